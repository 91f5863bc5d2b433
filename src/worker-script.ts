import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A worker thread's script, for every module that starts one: beside that module once built; run
 * from TypeScript source (the unit tests), the built one in dist/.
 */
export function workerScript(moduleUrl: string, file: string): string {
  const beside = fileURLToPath(new URL(file, moduleUrl));
  if (fs.existsSync(beside)) return beside;
  const src = `${path.sep}src${path.sep}`;
  const at = beside.lastIndexOf(src);
  return at < 0 ? beside : `${beside.slice(0, at)}${path.sep}dist${path.sep}${beside.slice(at + src.length)}`;
}
