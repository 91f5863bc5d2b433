import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REFUSED_FILE, Spool } from '../../src/agent/spool.js';
import type { RunResult } from '../../src/domain/run.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-spool-'));
  dirs.push(d);
  return d;
}
const result = (n: number): RunResult => ({
  jobId: `c:${n}:here`,
  checkId: 'c',
  location: 'here',
  dueAt: n,
  startedAt: n,
  stoppedAt: n + 1,
  responseTime: 1,
  hasFailures: false,
  hasErrors: false,
  isDegraded: false,
  overMaxResponseTime: false,
  error: null,
  detail: {},
});

describe('agent spool', () => {
  it('keeps results in order across segments and across a restart of the agent', () => {
    const dir = tempDir();
    const spool = new Spool(dir);
    expect(spool.empty).toBe(true);
    spool.append([result(1), result(2)]);
    spool.rotate();
    spool.append([result(3)]);
    const again = new Spool(dir);
    const segs = again.segments();
    expect(segs).toHaveLength(2);
    expect(segs.flatMap((s) => again.read(s).results).map((r) => r.dueAt)).toEqual([1, 2, 3]);
    again.append([result(4)]);
    expect(again.segments()).toHaveLength(3);
    for (const s of again.segments()) again.remove(s);
    expect(again.empty).toBe(true);
  });

  it('files are readable by the agent only', () => {
    const dir = tempDir();
    const spool = new Spool(path.join(dir, 'spool'));
    spool.append([result(1)]);
    expect(fs.statSync(path.join(dir, 'spool')).mode & 0o777).toBe(0o700);
    const file = fs.readdirSync(path.join(dir, 'spool'))[0];
    expect(fs.statSync(path.join(dir, 'spool', file)).mode & 0o777).toBe(0o600);
  });

  it('skips a line cut short by a crash, counts it, and reads the rest', () => {
    const dir = tempDir();
    const spool = new Spool(dir);
    spool.append([result(1)]);
    const [seg] = spool.segments();
    const file = path.join(dir, fs.readdirSync(dir)[0]);
    fs.appendFileSync(file, '{"jobId":"c:2:he');
    fs.appendFileSync(file, `\n${JSON.stringify(result(3))}\n`);
    const { results, unreadable } = spool.read(seg);
    expect(results.map((r) => r.dueAt)).toEqual([1, 3]);
    expect(unreadable).toBe(1);
  });

  it('sets refused results aside with the reason, outside the segments it delivers from', () => {
    const dir = tempDir();
    const spool = new Spool(dir);
    expect(spool.setAside(result(7), '400 responseTime must be >= 0')).toBe(true);
    expect(spool.segments()).toEqual([]);
    const [line] = fs.readFileSync(path.join(dir, REFUSED_FILE), 'utf8').trim().split('\n');
    expect(JSON.parse(line)).toMatchObject({ why: '400 responseTime must be >= 0', result: { dueAt: 7 } });
    expect(fs.statSync(path.join(dir, REFUSED_FILE)).mode & 0o777).toBe(0o600);
  });
});
