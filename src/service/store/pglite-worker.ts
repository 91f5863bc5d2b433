// PGlite runs its queries synchronously on the thread that owns it. Kept on the main thread it
// would stall timers and requests for as long as each query takes; in this worker it runs on
// its own core while the service keeps dispatching.

import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

interface Request {
  id: number;
  sql?: string;
  params?: unknown[];
  close?: boolean;
}

const db = await PGlite.create(`${(workerData as { dataDir: string }).dataDir}/pg`);
parentPort!.postMessage({ ready: true });

parentPort!.on('message', async (m: Request) => {
  try {
    if (m.close) {
      await db.close();
      parentPort!.postMessage({ id: m.id, rows: [] });
      return;
    }
    const res = await db.query(m.sql!, m.params);
    parentPort!.postMessage({ id: m.id, rows: res.rows });
  } catch (err) {
    const e = err as Error & { code?: string };
    parentPort!.postMessage({ id: m.id, error: { message: e.message, code: e.code } });
  }
});
