import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/helpers/chromium-setup.ts'],
    // Guards against a hang, not measures: browser and loopback-server tests start real components, and on a
    // busy 2-core machine a browser test that loads 34 pages can take minutes. No test asserts a duration.
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
