// Browser tests need runtime 2026.04's test runner, nothing else of it: install just that part
// (npm run runtimes:install -- 2026.04 @playwright/test) when it is missing. Each project's
// setup may run this; a lock folder keeps two installs from racing.

import fs from 'node:fs';
import path from 'node:path';
import { isInstalled, DEFAULT_RUNTIMES_DIR } from '../../src/runtimes/catalog.js';
import { installRuntime } from '../../src/runtimes/install.js';

export const TEST_RUNTIME = '2026.04';

export default async function setup() {
  const lock = path.join(DEFAULT_RUNTIMES_DIR, TEST_RUNTIME, '.install-lock');
  const end = Date.now() + 300_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > end) throw new Error(`${lock} is held too long: remove it if no install runs`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    if (!isInstalled(TEST_RUNTIME)) installRuntime(TEST_RUNTIME, ['@playwright/test']);
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}
