import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/helpers/chromium-setup.ts'],
    // Browser and loopback-server tests start real components; give them room.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
