// Browser tests need the test runner of runtime 2026.04 (and of 2024.09, to run two runtimes
// side by side as the migration image does), nothing else of them: install just that part
// (npm run runtimes:install -- <id> @playwright/test) when it is missing. Each project's setup
// may run this; a lock folder keeps two installs from racing.

import fs from 'node:fs';
import path from 'node:path';
import { isInstalled, DEFAULT_RUNTIMES_DIR } from '../../src/runtimes/catalog.js';
import { installRuntime } from '../../src/runtimes/install.js';

const TEST_RUNTIMES = ['2026.04', '2024.09'];

export default async function setup() {
  for (const id of TEST_RUNTIMES) await installOnce(id);
}

async function installOnce(id: string) {
  const lock = path.join(DEFAULT_RUNTIMES_DIR, id, '.install-lock');
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
    if (!isInstalled(id)) installRuntime(id, ['@playwright/test']);
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}
