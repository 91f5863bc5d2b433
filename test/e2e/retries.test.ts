// Retries of scheduled runs on `outpost start`: a flaky local target fails a check's first runs;
// each failed attempt is stored as an ATTEMPT, the last as FINAL, all in one sequence; a retry
// waiting for its time survives a kill -9 of the service; nothing alerts while a run retries.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startService, eventually, type Service } from '../helpers/procs.js';

/** Answers 503 to the first `failFirst` requests of each path, 200 after. */
const failFirst = new Map<string, number>();
const hits = new Map<string, number>();
let target: http.Server;
let base: string;
let svc: Service;
beforeAll(async () => {
  target = http.createServer((req, res) => {
    const n = (hits.get(req.url!) ?? 0) + 1;
    hits.set(req.url!, n);
    res.writeHead(n <= (failFirst.get(req.url!) ?? 0) ? 503 : 200);
    res.end();
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  svc = await startService({}, 'start');
});
afterAll(async () => {
  await svc?.stop();
  target?.close();
});

/** A URL check run every 10 s against `path`, which fails its first `fails` requests. */
async function flakyCheck(path: string, fails: number, extra: Record<string, unknown>) {
  failFirst.set(path, fails);
  const res = await svc.api('POST', '/v1/checks/url', {
    name: `flaky ${path}`,
    frequency: 0,
    frequencyOffset: 10,
    locations: ['eu-west-1'],
    request: { url: `${base}${path}` },
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

const results = async (checkId: string, resultType = 'ALL') =>
  (await svc.api('GET', `/v1/check-results/${checkId}?resultType=${resultType}&limit=100`)).body as any[];

/** The results of the first sequence, oldest first, once its FINAL one is in. */
async function firstSequence(checkId: string) {
  return eventually(
    async () => {
      const all = (await results(checkId)).reverse();
      const seq = all.find((r) => r.sequenceId)?.sequenceId;
      const mine = all.filter((r) => r.sequenceId === seq);
      return seq && mine.some((r) => r.resultType === 'FINAL') ? mine : null;
    },
    60_000,
    250,
  );
}

describe('retries', () => {
  it('store each failed attempt as ATTEMPT and the last as FINAL, in one sequence, without alerting', async () => {
    const id = await flakyCheck('/fixed', 2, {
      retryStrategy: { type: 'FIXED', baseBackoffSeconds: 1, maxRetries: 2, maxDurationSeconds: 60, sameRegion: true },
    });
    const seq = await firstSequence(id);
    expect(seq.map((r) => [r.resultType, r.hasFailures, r.attempts])).toEqual([
      ['ATTEMPT', true, 0],
      ['ATTEMPT', true, 1],
      ['FINAL', false, 2],
    ]);
    expect(new Set(seq.map((r) => r.runLocation))).toEqual(new Set(['eu-west-1']));
    // About a second apart, as the strategy says.
    const gap = Date.parse(seq[1].startedAt) - Date.parse(seq[0].stoppedAt);
    expect(gap).toBeGreaterThanOrEqual(0);
    expect(gap).toBeLessThan(3000);
    // FINAL is what results show by default, what the status and alerting count.
    const finals = await results(id, 'FINAL');
    expect(finals.every((r) => r.resultType === 'FINAL')).toBe(true);
    expect(finals.map((r) => r.id)).toContain(seq[2].id);
    expect((await results(id, 'ATTEMPT')).map((r) => r.id).sort()).toEqual([seq[0].id, seq[1].id].sort());
    expect((await svc.api('GET', `/v1/check-statuses/${id}`)).body.hasFailures).toBe(false);
    expect((await svc.api('GET', `/v1/check-alerts/${id}`)).body).toEqual([]);
    await svc.api('DELETE', `/v1/checks/${id}`);
  });

  it('give up after maxRetries: the last failure is FINAL; doubleCheck alone retries once', async () => {
    const exhausted = await flakyCheck('/down', 100, {
      retryStrategy: { type: 'LINEAR', baseBackoffSeconds: 1, maxRetries: 1, maxDurationSeconds: 60 },
    });
    const double = await flakyCheck('/blip', 1, { retryStrategy: null, doubleCheck: true });
    const none = await flakyCheck('/plain', 1, { retryStrategy: null, doubleCheck: false });
    expect((await firstSequence(exhausted)).map((r) => [r.resultType, r.hasFailures, r.attempts])).toEqual([
      ['ATTEMPT', true, 0],
      ['FINAL', true, 1],
    ]);
    expect((await firstSequence(double)).map((r) => [r.resultType, r.hasFailures, r.attempts])).toEqual([
      ['ATTEMPT', true, 0],
      ['FINAL', false, 1],
    ]);
    const plain = await eventually(async () => {
      const all = await results(none);
      return all.length ? all : null;
    });
    expect(plain.at(-1)).toMatchObject({ resultType: 'FINAL', hasFailures: true, sequenceId: null, attempts: 0 });
    // The exhausted sequence alerted once, on its FINAL failure.
    const alerts = await eventually(async () => {
      const a = (await svc.api('GET', `/v1/check-alerts/${exhausted}`)).body;
      return a.length ? a : null;
    });
    expect(alerts.map((a: any) => a.alertType)).toEqual(['ALERT_FAILURE']);
    for (const id of [exhausted, double, none]) await svc.api('DELETE', `/v1/checks/${id}`);
  });

  it('keep a retry waiting for its time across a kill -9 of the service', async () => {
    const id = await flakyCheck('/restart', 1, {
      retryStrategy: { type: 'FIXED', baseBackoffSeconds: 6, maxRetries: 1, maxDurationSeconds: 60 },
    });
    const attempt = await eventually(async () => (await results(id, 'ATTEMPT'))[0], 60_000, 100);
    await svc.proc.kill('SIGKILL');
    await svc.restart();
    const seq = await firstSequence(id);
    expect(seq.map((r) => [r.resultType, r.hasFailures, r.sequenceId])).toEqual([
      ['ATTEMPT', true, attempt.sequenceId],
      ['FINAL', false, attempt.sequenceId],
    ]);
    expect(Date.parse(seq[1].startedAt) - Date.parse(seq[0].stoppedAt)).toBeGreaterThanOrEqual(4000);
  });
});
