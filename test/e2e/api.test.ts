// The REST API of the spine against a real service process: auth, errors, private locations,
// TCP checks and result queries.

import http from 'node:http';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startService, createPrivateLocation, type Service } from '../helpers/procs.js';

let svc: Service;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

const tcp = (extra: Record<string, unknown> = {}) => ({ name: 'tcp', request: { hostname: '127.0.0.1', port: 9 }, ...extra });

function expectError(res: { status: number; body: any }, status: number, text?: RegExp) {
  expect(res.status).toBe(status);
  expect(Object.keys(res.body).sort()).toEqual(['attributes', 'error', 'message', 'statusCode']);
  expect(res.body.statusCode).toBe(status);
  if (text) expect(res.body.message).toMatch(text);
}

describe('authentication', () => {
  it('refuses a missing or wrong key with 401 in the error body', async () => {
    const missing = await fetch(`${svc.baseUrl}/v1/checks`);
    expectError({ status: missing.status, body: await missing.json() }, 401);
    const wrong = await svc.api('GET', '/v1/checks', undefined, { authorization: 'Bearer not-a-key' });
    expectError(wrong, 401, /Invalid API key/);
    expect(wrong.body.error).toBe('Unauthorized');
  });
  it('makes an address that keeps failing wait (429, Retry-After), for API and agent keys alike', async () => {
    // A service of its own: the shared one must not start refusing this test runner's address.
    const guarded = await startService({ OUTPOST_AUTH_FAILURES_PER_MINUTE: '3' });
    try {
      for (let i = 0; i < 3; i++)
        expect((await guarded.api('GET', '/v1/checks', undefined, { authorization: 'Bearer guess' })).status).toBe(401);
      const refused = await guarded.api('GET', '/v1/checks', undefined, { authorization: 'Bearer guess' });
      expectError(refused, 429, /Too many failed authentications/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // Even the right key waits out the minute from that address, and so do agent keys.
      expect((await guarded.api('GET', '/v1/checks')).status).toBe(429);
      const agent = await fetch(`${guarded.baseUrl}/agent/v1/register`, {
        method: 'POST',
        headers: { authorization: 'Bearer pl_guess', 'content-type': 'application/json' },
        body: JSON.stringify({ agentId: 'a', version: '1.0.0' }),
      });
      expect(agent.status).toBe(429);
    } finally {
      await guarded.stop();
    }
  });
  it('slows a key that sends more than its rate (429, Retry-After); other keys go on', async () => {
    // 2 a second with 20 in the bucket: the 21st request in a quick run waits.
    const limited = await startService({ OUTPOST_API_RATE_LIMIT_PER_SECOND: '2' });
    try {
      const pl = await createPrivateLocation(limited);
      let passed = 0;
      let refused: Awaited<ReturnType<Service['api']>> | undefined;
      for (let i = 0; i < 100 && !refused; i++) {
        const res = await limited.api('GET', '/v1/checks');
        if (res.status === 200) passed++;
        else refused = res;
      }
      // The burst (less the private location's creation), and then, not long after, a refusal.
      expect(passed).toBeGreaterThanOrEqual(19);
      expect(passed).toBeLessThan(100);
      expectError(refused!, 429, /Too many requests with this key: at most 2 a second/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // A private-location key has a bucket of its own.
      const agent = await fetch(`${limited.baseUrl}/agent/v1/register`, {
        method: 'POST',
        headers: { authorization: `Bearer ${pl.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agentId: 'a', version: '1.0.0' }),
      });
      expect(agent.status).toBeLessThan(400);
    } finally {
      await limited.stop();
    }
  });
  it('takes the account from x-service-account or x-checkly-account, and refuses another account', async () => {
    expect((await svc.api('GET', '/v1/checks', undefined, { 'x-service-account': svc.accountId })).status).toBe(200);
    expect((await svc.api('GET', '/v1/checks', undefined, { 'x-checkly-account': svc.accountId })).status).toBe(200);
    expectError(await svc.api('GET', '/v1/checks', undefined, { 'x-checkly-account': 'someone-else' }), 401);
  });
  it('serves /v1/locations without a key', async () => {
    const res = await fetch(`${svc.baseUrl}/v1/locations`);
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body).toContainEqual({ region: 'eu-west-1', name: 'Ireland' });
    expect(body).toHaveLength(22);
  });
  it('answers unknown routes with 404 in the error body', async () => {
    expectError(await svc.api('GET', '/v1/nothing-here'), 404);
  });
  /** POSTs a body announced as `announced` bytes but sends only its first kilobyte. */
  function announce(path: string, key: string, announced: number) {
    const url = new URL(`${svc.baseUrl}${path}`);
    return new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': String(announced) },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => {
            req.destroy();
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
          });
        },
      );
      req.on('error', reject);
      req.write(`{"agentId":"a","results":[${' '.repeat(1024)}`);
    });
  }
  it('refuses an agent request with a bad key from its headers, before reading its body', async () => {
    // 60 MB announced, 1 KB sent: the 401 can only arrive if the service did not wait for the rest.
    expectError(await announce('/agent/v1/results', 'pl_not_a_key', 60 * 1024 * 1024), 401, /Invalid or revoked private-location key/);
  });
  it('names the limit of the route in a 413', async () => {
    const { body: pl } = await svc.api('POST', '/v1/private-locations', { name: 'limits', slugName: 'limits-413' });
    expectError(await announce('/agent/v1/results', pl.keys[0].rawKey, 70 * 1024 * 1024), 413, /larger than 67108864 bytes/);
  });
});

describe('accounts', () => {
  it('returns the key’s account under /v1 and /next', async () => {
    const one = await svc.api('GET', `/v1/accounts/${svc.accountId}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: svc.accountId, runtimeId: '2026.04' });
    expect((await svc.api('GET', '/next/accounts')).body).toEqual([one.body]);
    expect((await svc.api('GET', `/next/accounts/${svc.accountId}`)).body).toEqual(one.body);
    expect((await svc.api('GET', '/next/users/me')).body.accounts[0].id).toBe(svc.accountId);
    expectError(await svc.api('GET', '/v1/accounts/not-mine'), 404);
  });
});

describe('private locations', () => {
  it('creates one with a key shown once, then only masked', async () => {
    const res = await svc.api('POST', '/v1/private-locations', { name: 'Rack 1', slugName: 'rack-1', proxyUrl: null });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Rack 1',
      slugName: 'rack-1',
      icon: 'location',
      agentCount: 0,
      runningAgents: [],
      lastSeen: null,
    });
    const [key] = res.body.keys;
    expect(key.rawKey).toMatch(/^pl_[0-9a-f]{64}$/);
    expect(key.maskedKey).toBe(`...${key.rawKey.slice(-4)}`);

    const got = await svc.api('GET', `/v1/private-locations/${res.body.id}`);
    expect(got.body.keys[0]).not.toHaveProperty('rawKey');
    expect(got.body.keys[0].maskedKey).toBe(key.maskedKey);
    expect(JSON.stringify((await svc.api('GET', '/v1/private-locations')).body)).not.toContain(key.rawKey);
  });

  it('refuses a duplicate slug with 409 and a data-center-like or malformed slug with 400', async () => {
    await createPrivateLocation(svc, 'dup-slug');
    expectError(await svc.api('POST', '/v1/private-locations', { name: 'x', slugName: 'dup-slug' }), 409, /already exists/);
    expectError(await svc.api('POST', '/v1/private-locations', { name: 'x', slugName: 'us-east-1' }), 400, /slugName/);
    expectError(await svc.api('POST', '/v1/private-locations', { name: 'x', slugName: 'has space' }), 400, /slugName/);
    expectError(await svc.api('POST', '/v1/private-locations', { slugName: 'no-name' }), 400, /name is required/);
  });

  it('updates, adds and revokes keys, deletes', async () => {
    const pl = await createPrivateLocation(svc);
    const put = await svc.api('PUT', `/v1/private-locations/${pl.id}`, { name: 'Renamed', proxyUrl: 'http://proxy.local:3128' });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'Renamed', slugName: pl.slugName, proxyUrl: 'http://proxy.local:3128' });

    const added = await svc.api('POST', `/v1/private-locations/${pl.id}/keys`);
    expect(added.status).toBe(201);
    expect(added.body.rawKey).toMatch(/^pl_/);
    expect((await svc.api('GET', `/v1/private-locations/${pl.id}`)).body.keys).toHaveLength(2);

    expect((await svc.api('DELETE', `/v1/private-locations/${pl.id}/keys/${pl.keyId}`)).status).toBe(204);
    expectError(await svc.api('DELETE', `/v1/private-locations/${pl.id}/keys/${pl.keyId}`), 404);
    const left = (await svc.api('GET', `/v1/private-locations/${pl.id}`)).body.keys;
    expect(left.map((k: any) => k.id)).toEqual([added.body.id]);

    expect((await svc.api('DELETE', `/v1/private-locations/${pl.id}`)).status).toBe(204);
    expectError(await svc.api('GET', `/v1/private-locations/${pl.id}`), 404);
  });

  it('refuses to delete a location that checks still use', async () => {
    const pl = await createPrivateLocation(svc);
    await svc.api('POST', '/v1/checks/tcp', tcp({ privateLocations: [pl.slugName], activated: false }));
    expectError(await svc.api('DELETE', `/v1/private-locations/${pl.id}`), 409, /used by 1 check/);
  });
});

describe('TCP checks', () => {
  it('creates with the spec defaults', async () => {
    const res = await svc.api('POST', '/v1/checks/tcp', tcp());
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      checkType: 'TCP',
      name: 'tcp',
      activated: true,
      muted: false,
      doubleCheck: true,
      shouldFail: false,
      frequency: 10,
      degradedResponseTime: 3000,
      maxResponseTime: 5000,
      runParallel: false,
      useGlobalAlertSettings: true,
      locations: [],
      tags: [],
      groupId: null,
      groupOrder: null,
      runtimeId: null,
      description: null,
      request: { hostname: '127.0.0.1', port: 9, data: null, assertions: [], ipFamily: 'IPv4' },
      alertChannels: { email: [], webhook: [], slack: [], sms: [] },
      updated_at: null,
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.alertSettings.escalationType).toBe('RUN_BASED');
    expect((await svc.api('GET', `/v1/checks/${res.body.id}`)).body).toEqual(res.body);
  });

  it.each([
    [{ frequency: 3 }, /frequency must be one of 0, 1, 2, 5/],
    [{ frequency: 0, frequencyOffset: 15 }, /frequencyOffset must be 10, 20 or 30/],
    [{ frequency: 5, frequencyOffset: 51 }, /frequencyOffset must be between 1 and 50/],
    [{ frequency: 120, frequencyOffset: 3 }, /between 1 and 2/],
    [{ frequencyOffset: 0 }, /frequencyOffset must be >= 1/],
    [{ degradedResponseTime: 5001 }, /degradedResponseTime must be <= 5000/],
    [{ maxResponseTime: -1 }, /maxResponseTime must be >= 0/],
    [{ degradedResponseTime: 4000, maxResponseTime: 3000 }, /must not be above maxResponseTime/],
    [{ description: 'x'.repeat(501) }, /description must NOT have more than 500 characters/],
    [{ locations: ['mars-1'] }, /locations\.0 must be one of/],
    [{ privateLocations: ['nowhere'] }, /no private location with slugName "nowhere"/],
    [{ groupOrder: -1 }, /groupOrder must be >= 0/],
    [{ runtimeId: '1999.01' }, /runtimeId/],
    [{ request: { hostname: '127.0.0.1' } }, /request\.port is required/],
    [{ request: { hostname: '127.0.0.1', port: '80' } }, /request\.port must be integer/],
    [{ request: { hostname: '127.0.0.1', port: 70000 } }, /request\.port must be <= 65535/],
    [
      { request: { hostname: '127.0.0.1', port: 80, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS' }] } },
      /request\.assertions\.0\.source must be one of/,
    ],
    [{ name: '' }, /name must NOT have fewer than 1 characters/],
  ])('refuses %j with 400 naming the field', async (patch, message) => {
    expectError(await svc.api('POST', '/v1/checks/tcp', tcp(patch)), 400, message);
  });

  it('accepts every valid offset edge', async () => {
    for (const [frequency, frequencyOffset] of [
      [0, 30],
      [1, 10],
      [60, 600],
      [1440, 24],
    ]) {
      expect((await svc.api('POST', '/v1/checks/tcp', tcp({ frequency, frequencyOffset, activated: false }))).status).toBe(201);
    }
  });

  it('refuses a bad autoAssignAlerts, malformed JSON and oversized bodies', async () => {
    expectError(await svc.api('POST', '/v1/checks/tcp?autoAssignAlerts=maybe', tcp()), 400, /autoAssignAlerts must be boolean/);
    expectError(await svc.api('POST', '/v1/checks/tcp', '{"name":'), 400);
    // The client is still sending when the answer is decided: it must get the 413, not a reset
    // connection (several times over, as that was a race).
    for (let i = 0; i < 5; i++)
      expectError(
        await svc.api('POST', '/v1/checks/tcp', tcp({ description: 'x'.repeat(8 * 1024 * 1024) })),
        413,
        /larger than 1048576 bytes/,
      );
  });

  it('updates partially, merging the request, and re-validates', async () => {
    const { body: created } = await svc.api('POST', '/v1/checks/tcp', tcp({ tags: ['a'] }));
    const res = await svc.api('PUT', `/v1/checks/tcp/${created.id}`, { request: { port: 7 }, frequency: 1, muted: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, frequency: 1, muted: true, tags: ['a'], request: { hostname: '127.0.0.1', port: 7 } });
    expect(res.body.updated_at).not.toBeNull();
    // Fields a check does not have are not stored, on update as on create.
    const extra = await svc.api('PUT', `/v1/checks/tcp/${created.id}`, { bogusField: 1, name: 'renamed' });
    expect(extra.body.name).toBe('renamed');
    expect(extra.body).not.toHaveProperty('bogusField');
    expect((await svc.api('GET', `/v1/checks/${created.id}`)).body).not.toHaveProperty('bogusField');
    expectError(await svc.api('PUT', `/v1/checks/tcp/${created.id}`, { frequency: 0, frequencyOffset: 11 }), 400, /10, 20 or 30/);
    expectError(await svc.api('PUT', '/v1/checks/tcp/00000000-0000-0000-0000-000000000000', { name: 'x' }), 404);
  });

  it('lists with paging and Content-Range, deletes with 204', async () => {
    const fresh = await startService();
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await fresh.api('POST', '/v1/checks/tcp', tcp({ name: `c${i}`, activated: false }))).body.id);
      const page1 = await fresh.api('GET', '/v1/checks?limit=2&page=1');
      expect(page1.headers.get('content-range')).toBe('0-1/3');
      expect(page1.body.map((c: any) => c.name)).toEqual(['c0', 'c1']);
      const page2 = await fresh.api('GET', '/v1/checks?limit=2&page=2');
      expect(page2.headers.get('content-range')).toBe('2-2/3');
      expectError(await fresh.api('GET', '/v1/checks?limit=101'), 400, /limit must be <= 100/);

      expect((await fresh.api('DELETE', `/v1/checks/${ids[0]}`)).status).toBe(204);
      expectError(await fresh.api('GET', `/v1/checks/${ids[0]}`), 404);
      expectError(await fresh.api('DELETE', `/v1/checks/${ids[0]}`), 404);
      expect((await fresh.api('GET', '/v1/checks')).headers.get('content-range')).toBe('0-1/2');
    } finally {
      await fresh.stop();
    }
  });
});

describe('check results queries', () => {
  it('validate every parameter and 404 on unknown checks', async () => {
    const { body: check } = await svc.api('POST', '/v1/checks/tcp', tcp({ activated: false }));
    const base = `/v1/check-results/${check.id}`;
    expect((await svc.api('GET', base)).body).toEqual([]);
    for (const [q, msg] of [
      ['limit=0', /limit must be >= 1/],
      ['limit=101', /limit must be <= 100/],
      ['page=0', /page must be > 0/],
      ['resultType=SOME', /resultType must be one of "FINAL", "ATTEMPT", "ALL"/],
      ['checkType=PING', /checkType must be one of/],
      ['hasFailures=perhaps', /hasFailures must be boolean/],
      ['from=yesterday', /from must be number/],
      ['location=us-east-99', /location/],
      ['location=mars', /location must be a data-center location or the slugName of one of your private locations/],
      ['from=2000&to=1000', /to must be after/],
    ] as const) {
      expectError(await svc.api('GET', `${base}?${q}`), 400, msg);
    }
    expectError(await svc.api('GET', '/v1/check-results/00000000-0000-0000-0000-000000000000'), 404);
    expectError(await svc.api('GET', `${base}/00000000-0000-0000-0000-000000000000`), 404);
    const v2 = await svc.api('GET', `/v2/check-results/${check.id}`);
    expect(v2.body).toEqual({ length: 0, entries: [], nextId: null });
    expectError(await svc.api('GET', `/v2/check-results/${check.id}?nextId=garbage`), 400, /nextId/);
    expectError(await svc.api('GET', `/v2/check-results/${check.id}?location=mars`), 400, /querystring.location/);
    const pl = await svc.api('POST', '/v1/private-locations', { name: 'Mars base', slugName: 'mars-base' });
    expect(pl.status).toBe(201);
    expect((await svc.api('GET', `${base}?location=mars-base`)).body).toEqual([]);
    expect((await svc.api('GET', `${base}?location=eu-west-1`)).body).toEqual([]);
  });
});

describe('URL checks', () => {
  it('create with defaults, update, and refuse what is not a URL monitor', async () => {
    const res = await svc.api('POST', '/v1/checks/url', { name: 'home', request: { url: 'https://example.test/' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      checkType: 'URL',
      frequency: 10,
      degradedResponseTime: 3000,
      maxResponseTime: 5000,
      request: { method: 'GET', url: 'https://example.test/', followRedirects: true, skipSSL: false, ipFamily: 'IPv4', assertions: [] },
    });
    const put = await svc.api('PUT', `/v1/checks/url/${res.body.id}`, {
      request: { assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: 200 }] },
    });
    expect(put.body.request).toMatchObject({
      url: 'https://example.test/',
      assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
    });
    expectError(await svc.api('PUT', `/v1/checks/tcp/${res.body.id}`, { name: 'x' }), 400, /is a URL check, not TCP/);
    for (const [patch, msg] of [
      [{ request: { url: 'ftp://example.test/' } }, /request\.url must match pattern/],
      [{ request: { url: 'https://example.test/', method: 'POST' } }, /request\.method must be one of "GET"/],
      [
        { request: { url: 'https://example.test/', assertions: [{ source: 'JSON_BODY', comparison: 'EQUALS', target: '1' }] } },
        /source must be one of "STATUS_CODE"/,
      ],
      [
        { request: { url: 'https://example.test/', assertions: [{ source: 'STATUS_CODE', comparison: 'CONTAINS', target: '2' }] } },
        /comparison must be one of/,
      ],
      [{ request: { url: 'https://example.test/' }, maxResponseTime: 45001 }, /maxResponseTime must be <= 45000/],
    ] as const) {
      expectError(await svc.api('POST', '/v1/checks/url', { name: 'bad', ...patch }), 400, msg);
    }
  });
});

describe('variables', () => {
  it('create, list, update and delete; a secret is never shown again', async () => {
    expect((await svc.api('POST', '/v1/variables', { key: 'BASE_URL', value: 'http://127.0.0.1' })).status).toBe(201);
    const secret = await svc.api('POST', '/v1/variables', { key: 'TOKEN', value: 's3cret-value', secret: true });
    expect(secret.status).toBe(201);
    expect(secret.body).toMatchObject({ key: 'TOKEN', secret: true, value: null });
    expectError(await svc.api('POST', '/v1/variables', { key: 'TOKEN', value: 'x' }), 409, /already exists/);
    expectError(await svc.api('POST', '/v1/variables', { key: 'not a key', value: 'x' }), 400, /key must match pattern/);
    expectError(await svc.api('POST', '/v1/variables', { key: 'NOVALUE' }), 400, /value is required/);

    const list = await svc.api('GET', '/v1/variables');
    expect(JSON.stringify(list.body)).not.toContain('s3cret-value');
    expect(list.body.find((v: any) => v.key === 'BASE_URL')).toMatchObject({ value: 'http://127.0.0.1', locked: false, secret: false });

    const put = await svc.api('PUT', '/v1/variables/BASE_URL', { value: 'http://[::1]', locked: true });
    expect(put.body).toMatchObject({ key: 'BASE_URL', value: 'http://[::1]', locked: true });
    expectError(await svc.api('PUT', '/v1/variables/BASE_URL', { key: 'OTHER', value: 'x' }), 400, /key cannot be changed/);
    expectError(await svc.api('PUT', '/v1/variables/BASE_URL', { locked: true }), 400, /value is required/);
    expectError(await svc.api('PUT', '/v1/variables/BASE_URL', { value: 'x', extra: 1 }), 400, /unknown property "extra"/);
    expectError(await svc.api('PUT', '/v1/variables/TOKEN', { value: 'x', secret: false }), 400, /secret cannot be turned off/);
    expect((await svc.api('PUT', '/v1/variables/TOKEN', { value: 'rotated' })).body.value).toBeNull();
    expectError(await svc.api('PUT', '/v1/variables/MISSING', { value: 'x' }), 404);

    expect((await svc.api('DELETE', '/v1/variables/BASE_URL')).status).toBe(204);
    expectError(await svc.api('GET', '/v1/variables/BASE_URL'), 404);
    expectError(await svc.api('DELETE', '/v1/variables/BASE_URL'), 404);
    const logs = svc.proc.logs.map((l) => JSON.stringify(l)).join('\n');
    expect(logs).not.toContain('s3cret-value');
    expect(logs).not.toContain('rotated');
  });
});

describe('DNS checks', () => {
  it('create with the DNS defaults and refuse bad record types and assertions', async () => {
    const res = await svc.api('POST', '/v1/checks/dns', { name: 'dns', request: { recordType: 'MX', query: 'example.test' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      checkType: 'DNS',
      degradedResponseTime: 500,
      maxResponseTime: 1000,
      request: { recordType: 'MX', query: 'example.test', protocol: 'UDP', nameServer: null, port: null, assertions: [] },
    });
    expectError(
      await svc.api('POST', '/v1/checks/dns', { name: 'x', request: { recordType: 'PTR', query: 'a' } }),
      400,
      /request\.recordType must be one of/,
    );
    expectError(await svc.api('POST', '/v1/checks/dns', { name: 'x', request: { recordType: 'A' } }), 400, /request\.query is required/);
    expectError(
      await svc.api('POST', '/v1/checks/dns', { name: 'x', request: { recordType: 'A', query: 'a', protocol: 'QUIC' } }),
      400,
      /protocol must be one of "UDP", "TCP"/,
    );
    expectError(
      await svc.api('POST', '/v1/checks/dns', {
        name: 'x',
        request: { recordType: 'A', query: 'a', assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS' }] },
      }),
      400,
      /source must be one of/,
    );
    expectError(
      await svc.api('POST', '/v1/checks/dns', { name: 'x', maxResponseTime: 5001, request: { recordType: 'A', query: 'a' } }),
      400,
      /maxResponseTime must be <= 5000/,
    );
  });
});

describe('API checks', () => {
  it('never show a secret variable of the check, and keep it when a client sends the check back', async () => {
    const created = await svc.api('POST', '/v1/checks/api', {
      name: 'secret vars',
      activated: false,
      request: { method: 'GET', url: 'https://example.test/' },
      environmentVariables: [
        { key: 'TOKEN', value: 'tok-4f1b9c2d7e', secret: true },
        { key: 'PLAIN', value: 'shown' },
      ],
    });
    expect(created.status).toBe(201);
    const shown = [
      { key: 'TOKEN', value: null, secret: true },
      { key: 'PLAIN', value: 'shown' },
    ];
    expect(created.body.environmentVariables).toEqual(shown);
    const id = created.body.id;
    expect((await svc.api('GET', `/v1/checks/${id}`)).body.environmentVariables).toEqual(shown);
    const list = (await svc.api('GET', '/v1/checks?limit=100')).body as any[];
    expect(JSON.stringify(list)).not.toContain('tok-4f1b9c2d7e');
    // Sent back as read (the secret as null): accepted, and the secret is still there to use.
    const back = await svc.api('PUT', `/v1/checks/api/${id}`, { environmentVariables: created.body.environmentVariables, name: 'renamed' });
    expect(back.status).toBe(200);
    expect(back.body.environmentVariables).toEqual(shown);
    expectError(
      await svc.api('PUT', `/v1/checks/api/${id}`, { environmentVariables: [{ key: 'NEW', value: null, secret: true }] }),
      400,
      /NEW needs a value/,
    );
  });

  it('create with the API defaults; refuse snippets that do not exist', async () => {
    const res = await svc.api('POST', '/v1/checks/api', {
      name: 'api',
      request: { method: 'POST', url: 'https://example.test/v1', bodyType: 'JSON', body: '{}' },
      environmentVariables: [{ key: 'K', value: 'v' }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      checkType: 'API',
      degradedResponseTime: 5000,
      maxResponseTime: 20000,
      environmentVariables: [{ key: 'K', value: 'v' }],
      request: { method: 'POST', bodyType: 'JSON', headers: [], queryParameters: [], basicAuth: null, followRedirects: true },
    });
    expectError(
      await svc.api('POST', '/v1/checks/api', { name: 'x', request: { method: 'TRACE', url: 'https://e.test' } }),
      400,
      /request\.method must be one of/,
    );
    expectError(
      await svc.api('POST', '/v1/checks/api', { name: 'x', request: { method: 'GET', url: 'https://e.test', bodyType: 'XML' } }),
      400,
      /bodyType must be one of/,
    );
    expectError(
      await svc.api('POST', '/v1/checks/api', {
        name: 'x',
        request: { method: 'GET', url: 'https://e.test' },
        environmentVariables: Array.from({ length: 51 }, (_, i) => ({ key: `K${i}`, value: '' })),
      }),
      400,
      /environmentVariables must NOT have more than 50 items/,
    );
    expectError(
      await svc.api('POST', '/v1/checks/api', { name: 'x', request: { method: 'GET', url: 'https://e.test' }, setupSnippetId: 999999 }),
      400,
      /setupSnippetId names no snippet with id 999999/,
    );
    const withScript = await svc.api('POST', '/v1/checks/api', {
      name: 'x',
      request: { method: 'GET', url: 'https://e.test' },
      localSetupScript: "request.headers['x'] = '1'",
    });
    expect(withScript.body.localSetupScript).toBe("request.headers['x'] = '1'");
  });
});

describe('snippets', () => {
  it('create, read, update, delete (refused while a check uses one)', async () => {
    const created = await svc.api('POST', '/v1/snippets', { name: 'sign', script: "request.headers['x-sig'] = 'v1'" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'sign', script: "request.headers['x-sig'] = 'v1'", updated_at: null });
    expect(typeof created.body.id).toBe('number');
    expectError(await svc.api('POST', '/v1/snippets', { name: 'no script' }), 400, /script is required/);
    expectError(await svc.api('GET', '/v1/snippets/abc'), 400, /params\.id must be integer/);
    const put = await svc.api('PUT', `/v1/snippets/${created.body.id}`, { name: 'sign v2', script: "request.headers['x-sig'] = 'v2'" });
    expect(put.body).toMatchObject({ name: 'sign v2' });
    expect((await svc.api('GET', '/v1/snippets')).body.some((s: any) => s.id === created.body.id)).toBe(true);
    const check = await svc.api('POST', '/v1/checks/api', {
      name: 'uses',
      request: { method: 'GET', url: 'https://e.test' },
      setupSnippetId: created.body.id,
    });
    expect(check.status).toBe(201);
    expectError(await svc.api('DELETE', `/v1/snippets/${created.body.id}`), 409, /used by 1 check/);
    await svc.api('DELETE', `/v1/checks/${check.body.id}`);
    expect((await svc.api('DELETE', `/v1/snippets/${created.body.id}`)).status).toBe(204);
    expectError(await svc.api('GET', `/v1/snippets/${created.body.id}`), 404);
  });
});

describe('ICMP checks', () => {
  it('create with the ICMP defaults and refuse bad counts and hostnames', async () => {
    const res = await svc.api('POST', '/v1/checks/icmp', { name: 'ping', request: { hostname: 'host.test' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      checkType: 'ICMP',
      degradedResponseTime: 10000,
      maxResponseTime: 20000,
      request: { hostname: 'host.test', ipFamily: 'IPv4', pingCount: 10, assertions: [] },
    });
    expectError(await svc.api('POST', '/v1/checks/icmp', { name: 'x', request: { hostname: 'h', pingCount: 51 } }), 400, /pingCount/);
    expectError(
      await svc.api('POST', '/v1/checks/icmp', { name: 'x', request: { hostname: '-f' } }),
      400,
      /request\.hostname must match pattern/,
    );
    expectError(
      await svc.api('POST', '/v1/checks/icmp', {
        name: 'x',
        request: { hostname: 'h', assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS' }] },
      }),
      400,
      /source must be one of "LATENCY", "JSON_RESPONSE"/,
    );
  });
});

describe('generic check update (op 2)', () => {
  it('updates any type through its own rules and answers {checkType, id}', async () => {
    const { body: tcpCheck } = await svc.api('POST', '/v1/checks/tcp', tcp({ activated: false }));
    const res = await svc.api('PUT', `/v1/checks/${tcpCheck.id}`, { heartbeat: {}, script: '', name: 'renamed', request: { port: 22 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ checkType: 'TCP', id: tcpCheck.id });
    expect((await svc.api('GET', `/v1/checks/${tcpCheck.id}`)).body).toMatchObject({
      name: 'renamed',
      request: { port: 22, hostname: '127.0.0.1' },
    });
    expectError(await svc.api('PUT', `/v1/checks/${tcpCheck.id}`, { script: '', name: 'x' }), 400, /heartbeat is required/);
    expectError(
      await svc.api('PUT', `/v1/checks/${tcpCheck.id}`, { heartbeat: {}, script: '', frequency: 3 }),
      400,
      /frequency must be one of/,
    );
    expectError(
      await svc.api('PUT', `/v1/checks/${tcpCheck.id}`, { heartbeat: {}, script: '', checkType: 'URL' }),
      400,
      /checkType cannot change/,
    );
    expectError(await svc.api('PUT', '/v1/checks/00000000-0000-0000-0000-000000000000', { heartbeat: {}, script: '' }), 404);

    const { body: hb } = await svc.api('POST', '/v1/checks/heartbeat', {
      name: 'hb',
      script: '',
      heartbeat: { period: 1, periodUnit: 'hours', grace: 1, graceUnit: 'hours' },
    });
    const hbRes = await svc.api('PUT', `/v1/checks/${hb.id}`, { heartbeat: { period: 2 }, script: 'x' });
    expect(hbRes.body).toEqual({ checkType: 'HEARTBEAT', id: hb.id });
    expect((await svc.api('GET', `/v1/checks/${hb.id}`)).body.heartbeat).toMatchObject({
      period: 2,
      periodUnit: 'hours',
      pingToken: hb.heartbeat.pingToken,
    });
  });
});

describe('input no database can store', () => {
  it('refuses NUL characters and unpaired surrogates in bodies, paths and query strings with a 400 naming the field', async () => {
    const nul = await svc.api('POST', '/v1/checks/tcp', tcp({ name: 'a\u0000b' }));
    expectError(nul, 400, /body\.name contains a NUL character or an unpaired surrogate/);
    expect(nul.body.attributes).toMatchObject({ field: 'body.name', rule: 'text' });
    const surrogate = await svc.api('POST', '/v1/variables', { key: 'LONE', value: 'x\ud800y' });
    expectError(surrogate, 400, /body\.value/);
    expectError(await svc.api('GET', '/v1/checks/a%00b'), 400, /params\.id/);
    expectError(await svc.api('GET', '/v1/checks?checkType=%00'), 400);
    // Nothing was stored on the way.
    expect((await svc.api('GET', '/v1/variables/LONE')).status).toBe(404);
    expect((await svc.api('GET', '/v1/checks?limit=100')).body.some((c: any) => c.name.includes('\u0000'))).toBe(false);
  });

  it('refuses a page number past any real page with a 400, not a database error', async () => {
    const { body: check } = await svc.api('POST', '/v1/checks/tcp', tcp({ activated: false }));
    expectError(await svc.api('GET', '/v1/checks?page=1e20'), 400, /page/);
    expectError(await svc.api('GET', `/v1/check-results/${check.id}?page=1e20`), 400, /page must be <= 1000000/);
    expect((await svc.api('GET', `/v1/check-results/${check.id}?page=1000000`)).status).toBe(200);
  });
});
