// Every route of a real service, sent generated path parameters, query strings and bodies
// (seeded, so a failure replays): no answer is a 5xx, and every 4xx carries the error body.

import { describe, it, expect, afterAll } from 'vitest';
import fc from 'fast-check';
import { startService, createPrivateLocation, type Service } from '../helpers/procs.js';

const SEED = 20261123;
const RUNS_PER_ROUTE = 60;

/** Values that have broken services before: NUL, lone surrogates, huge numbers, odd lengths. */
const SPECIAL = [
  '',
  '0',
  '-1',
  '1e20',
  '99999999999999999999',
  'NaN',
  'null',
  'true',
  '..',
  '%',
  'x'.repeat(5000),
  '\u0000',
  '\ud800',
  '💥',
  ' ',
];
// Already percent-encoded: bytes no UTF-8 decoder accepts, a NUL, a slash.
const RAW_SEGMENTS = ['%00', '%ED%A0%80', '%FF', '%2F', '%25'];

const text = fc.oneof(fc.constantFrom(...SPECIAL), fc.string({ unit: 'binary', maxLength: 40 }), fc.uuid());
const segment = fc.oneof(
  text.map((s) => {
    try {
      return encodeURIComponent(s);
    } catch {
      return '%ED%A0%80'; // a lone surrogate, which encodeURIComponent will not write
    }
  }),
  fc.constantFrom(...RAW_SEGMENTS),
);
const QUERY_KEYS = [
  'limit',
  'page',
  'from',
  'to',
  'location',
  'resultType',
  'hasFailures',
  'checkType',
  'nextId',
  'applyGroupSettings',
  'tag',
  'x',
];
const query = fc
  .array(fc.tuple(fc.constantFrom(...QUERY_KEYS), segment), { maxLength: 4 })
  .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));

const deep = fc
  .integer({ min: 50, max: 3000 })
  .chain((n) => fc.constantFrom('['.repeat(n) + ']'.repeat(n), '{"a":'.repeat(n) + '1' + '}'.repeat(n)));
const validTcp = { name: 'fuzz', request: { hostname: '127.0.0.1', port: 9 }, locations: ['eu-west-1'], frequency: 10 };
/** A valid check body with one field, at any depth, replaced by anything. */
const mutated = fc
  .tuple(
    fc.constantFrom(
      'name',
      'request',
      'locations',
      'frequency',
      'tags',
      'environmentVariables',
      'request.hostname',
      'request.port',
      'extra',
    ),
    fc.jsonValue({ maxDepth: 3 }),
  )
  .map(([field, value]) => {
    const body = structuredClone(validTcp) as Record<string, any>;
    const [a, b] = field.split('.');
    if (b) body[a!][b] = value;
    else body[a!] = value;
    return JSON.stringify(body);
  });
const body = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null'),
  fc.object({ maxDepth: 3, values: [text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null)] }).map((o) => JSON.stringify(o)),
  mutated,
  deep,
  fc.string({ maxLength: 60 }),
);

const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {});
});

describe('fuzzed requests to every route', () => {
  it('never get a 5xx, and every 4xx is the error body', async () => {
    const svc: Service = await startService({
      LOG_LEVEL: 'DEBUG',
      OUTPOST_AUTH_FAILURES_PER_MINUTE: '100000',
      OUTPOST_API_RATE_LIMIT_PER_SECOND: '0',
      OUTPOST_POLL_SECONDS: '1',
    });
    cleanup.push(() => svc.proc.kill('SIGKILL'));
    const routes = (await svc.proc.waitLog((l) => l.msg === 'routes')).routes as string[];
    expect(routes.length).toBeGreaterThan(60);
    const location = await createPrivateLocation(svc);
    const agentKey = location.key;
    // Ids that exist, so generated requests also reach past the lookups into the routes' work.
    const check = await svc.api('POST', '/v1/checks/tcp', validTcp);
    const variable = await svc.api('POST', '/v1/variables', { key: 'FUZZ', value: 'v' });
    expect([check.status, variable.status]).toEqual([201, 201]);
    const real = fc.constantFrom(check.body.id as string, location.id, location.keyId, 'FUZZ', '1');
    const param = fc.oneof({ arbitrary: real, weight: 2 }, { arbitrary: segment, weight: 3 });

    const failures: string[] = [];
    for (const [i, route] of routes.entries()) {
      const [method, pattern] = route.split(' ') as [string, string];
      const cases = fc.sample(fc.record({ params: fc.array(param, { minLength: 4, maxLength: 4 }), query, body }), {
        seed: SEED + i,
        numRuns: RUNS_PER_ROUTE,
      });
      for (const c of cases) {
        let p = 0;
        const path = pattern.replace(/:[A-Za-z]+/g, () => c.params[p++]!);
        const url = `${svc.baseUrl}${path}${c.query ? `?${c.query}` : ''}`;
        const key = pattern.startsWith('/agent/') ? agentKey : svc.apiKey;
        const withBody = method === 'POST' || method === 'PUT';
        const res = await fetch(url, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(withBody ? { 'content-type': 'application/json' } : {}) },
          body: withBody ? c.body : undefined,
        });
        const raw = await res.text();
        const what = `${method} ${`${path}${c.query ? `?${c.query}` : ''}`.slice(0, 200)} ${withBody ? c.body.slice(0, 100) : ''} → ${res.status} ${raw.slice(0, 200)}`;
        if (res.status >= 500) failures.push(what);
        else if (res.status >= 400) {
          let parsed: any = null;
          try {
            parsed = JSON.parse(raw);
          } catch {
            /* judged below */
          }
          const ok =
            parsed &&
            parsed.statusCode === res.status &&
            typeof parsed.error === 'string' &&
            typeof parsed.message === 'string' &&
            typeof parsed.attributes === 'object' &&
            parsed.attributes !== null;
          if (!ok) failures.push(`not the error body: ${what}`);
          // No database detail in a message: PostgreSQL codes, SQL, SQLite's wording.
          else if (
            /SQLITE_|SQLSTATE|syntax error at or near|violates .*constraint|relation "|invalid input syntax|out of range for type/.test(
              parsed.message,
            )
          )
            failures.push(`database detail: ${what}`);
        }
      }
    }
    // The first few, cut short: enough to replay (the seed is fixed) without flooding the output.
    expect(failures.length, failures.slice(0, 10).join('\n')).toBe(0);
  });
});
