// The durable outbox: results the service could not take are appended to segment files and
// delivered from there in order. The service stores results idempotently by job id, so sending
// a segment again after a crash cannot duplicate anything: at-least-once here is exactly-once
// there.

import fs from 'node:fs';
import path from 'node:path';
import type { RunResult } from '../domain/run.js';

const SEGMENT_MAX_BYTES = 4 * 1024 * 1024;
/** Results the service refused are kept for the operator up to this size, then only counted. */
const REFUSED_MAX_BYTES = 16 * 1024 * 1024;
export const REFUSED_FILE = 'refused.jsonl';

export class Spool {
  private current = 0;
  private currentBytes = 0;

  constructor(private dir: string) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const segs = this.segments();
    this.current = segs.length ? segs[segs.length - 1] + 1 : 1;
  }

  /** Segment numbers holding results, oldest first. */
  segments(): number[] {
    return fs
      .readdirSync(this.dir)
      .map((f) => /^results-(\d+)\.jsonl$/.exec(f))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
  }

  get empty(): boolean {
    return this.segments().length === 0;
  }

  append(results: RunResult[]): void {
    if (results.length === 0) return;
    const text = `${results.map((r) => JSON.stringify(r)).join('\n')}\n`;
    if (this.currentBytes > SEGMENT_MAX_BYTES) this.rotate();
    const file = this.file(this.current);
    const fd = fs.openSync(file, 'a', 0o600);
    try {
      fs.writeSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    this.currentBytes += text.length;
  }

  /** Closes the segment being written, so the drainer can take it whole. */
  rotate(): void {
    this.current += 1;
    this.currentBytes = 0;
  }

  /** The results of a segment, and how many lines could not be read (a crash mid-write cuts one short). */
  read(seg: number): { results: RunResult[]; unreadable: number } {
    const text = fs.readFileSync(this.file(seg), 'utf8');
    const results: RunResult[] = [];
    let unreadable = 0;
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        results.push(JSON.parse(line));
      } catch {
        // Its run's lease expires and it runs again.
        unreadable++;
      }
    }
    return { results, unreadable };
  }

  /** Keeps a result the service refused, with why, where an operator can look at it. */
  setAside(result: RunResult, why: string): boolean {
    const file = path.join(this.dir, REFUSED_FILE);
    const size = fs.existsSync(file) ? fs.statSync(file).size : 0;
    const line = `${JSON.stringify({ refusedAt: new Date().toISOString(), why, result })}\n`;
    if (size + line.length > REFUSED_MAX_BYTES) return false;
    fs.appendFileSync(file, line, { mode: 0o600 });
    return true;
  }

  remove(seg: number): void {
    fs.rmSync(this.file(seg), { force: true });
  }

  private file(seg: number): string {
    return path.join(this.dir, `results-${String(seg).padStart(8, '0')}.jsonl`);
  }
}
