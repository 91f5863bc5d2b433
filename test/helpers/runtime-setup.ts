// Browser tests need the test runner of runtime 2026.04 (and of 2024.09, to run two runtimes
// side by side as the migration image does), setup-script tests axios; nothing else of them:
// install just those (npm run runtimes:install -- <id> @playwright/test axios) when missing. Each project's setup
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
    // Setup-script tests require axios, as Checkly users' scripts do.
    const wanted = id === '2026.04' ? ['@playwright/test', 'axios'] : ['@playwright/test'];
    if (!isInstalled(id) || !wanted.every((p) => fs.existsSync(path.join(DEFAULT_RUNTIMES_DIR, id, 'node_modules', p))))
      installRuntime(id, wanted);
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}
