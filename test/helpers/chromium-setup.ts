/**
 * vitest globalSetup: inflate the bundled Chromium once, before the test files start in parallel workers
 * (each would otherwise inflate its own 200 MB copy on a fresh machine; chromium.ts makes that safe, not cheap).
 */
import { chromiumExecutable } from './chromium.ts';

export default async function setup(): Promise<void> {
  await chromiumExecutable();
}
