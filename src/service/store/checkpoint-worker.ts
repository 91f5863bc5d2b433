// The thread that copies the embedded store's write-ahead log into the database file
// (src/service/store/wal-checkpoints.ts), on a connection of its own: a checkpoint's reads,
// writes and fsync hold this thread, not the service's event loop.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite from 'better-sqlite3';

const port = parentPort!;

/** The connection, or why it could not be opened (said in answer to the first checkpoint). */
function open(): BetterSqlite.Database | string {
  try {
    // It never makes a database: the service's connection has opened this one.
    const conn = new BetterSqlite((workerData as { file: string }).file, { fileMustExist: true });
    // As the service's own connection: the log is synced before a checkpoint, the database file after.
    conn.pragma('synchronous = NORMAL');
    return conn;
  } catch (err) {
    return (err as Error).message;
  }
}
const conn = open();

port.on('message', (msg: 'checkpoint' | 'close') => {
  if (msg === 'close') {
    if (typeof conn !== 'string') conn.close();
    port.close();
    return;
  }
  if (typeof conn === 'string') return port.postMessage({ error: `could not open the database: ${conn}` });
  try {
    // Passive: it never waits on a lock. The service holds its writes back meanwhile, so every
    // frame is copied and SQLite starts the log over at the next write.
    conn.pragma('wal_checkpoint(PASSIVE)');
    port.postMessage({});
  } catch (err) {
    port.postMessage({ error: (err as Error).message });
  }
});
