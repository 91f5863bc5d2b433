// Prepares the storage backend of an e2e project: a PostgreSQL server for 'postgres', and for
// 'embedded' a migrated data directory that each test's service starts from a copy of (creating
// an embedded database from nothing costs several seconds).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { startPostgres } from '../../src/bench/postgres.js';

const CLI = path.resolve('dist/cli.js');

async function makeTemplate(dir: string): Promise<void> {
  const child = spawn(process.execPath, [CLI, 'service'], {
    env: { ...process.env, PORT: '0', OUTPOST_DATA_DIR: dir, OUTPOST_API_KEY: 'template-key-0123456789', LOG_LEVEL: 'WARN' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('Base URL')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`template service exited with ${code}`)));
  });
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  // The template must not carry the account it made.
  fs.rmSync(path.join(dir, 'agent-spool'), { recursive: true, force: true });
}

export default async function setup(project: TestProject) {
  if (!fs.existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build (npm test does it first)');
  // The project's env reaches its test workers, not this hook: tell the backends apart by name.
  if (project.name === 'postgres') {
    const pg = await startPostgres();
    project.provide('databaseUrl', pg.url);
    return () => pg.stop();
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-template-'));
  await makeTemplate(dir);
  project.provide('templateDir', dir);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    templateDir: string;
  }
}
