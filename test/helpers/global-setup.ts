// Prepares the storage backend of an e2e project: a PostgreSQL server for 'postgres'; the
// embedded store needs nothing (each service creates its own in a new data directory).

import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startPostgres } from '../../src/bench/postgres.js';

const CLI = path.resolve('dist/cli.js');

export default async function setup(project: TestProject) {
  if (!fs.existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build (npm test does it first)');
  // The project's env reaches its test workers, not this hook: tell the backends apart by name.
  if (project.name === 'postgres') {
    const pg = await startPostgres();
    project.provide('databaseUrl', pg.url);
    return () => pg.stop();
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}
