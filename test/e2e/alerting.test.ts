// Alert channels and subscriptions through the API, on a real service.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startService, type Service } from '../helpers/procs.js';
import { expectError } from '../helpers/api-error.js';

let svc: Service;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

const webhook = (extra: Record<string, unknown> = {}) => ({
  type: 'WEBHOOK',
  config: {
    name: 'ops hook',
    url: 'https://hooks.example.test/outpost',
    method: 'POST',
    webhookSecret: 'whsec-0123456789abcdef',
    ...extra,
  },
});
const tcpCheck = (extra: Record<string, unknown> = {}, query = '') =>
  svc.api('POST', `/v1/checks/tcp${query}`, {
    name: 'alerting',
    activated: false,
    locations: ['eu-west-1'],
    request: { hostname: '127.0.0.1', port: 9 },
    ...extra,
  });

describe('alert channels', () => {
  it('are created with defaults, listed with Content-Range, updated and deleted; secrets never shown', async () => {
    const made = await svc.api('POST', '/v1/alert-channels', webhook());
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      type: 'WEBHOOK',
      config: { name: 'ops hook', url: 'https://hooks.example.test/outpost', method: 'POST', webhookSecret: '****cdef' },
      subscriptions: [],
      sendRecovery: true,
      sendFailure: true,
      sendDegraded: false,
      sslExpiry: false,
      sslExpiryThreshold: 30,
      autoSubscribe: false,
    });
    expect(JSON.stringify(made.body)).not.toContain('whsec-0123456789abcdef');
    const id = made.body.id;
    expect(typeof id).toBe('number');

    // Sent back as shown, the secret is kept; a new one replaces it.
    const same = await svc.api('PUT', `/v1/alert-channels/${id}`, {
      ...made.body,
      id: undefined,
      created_at: undefined,
      updated_at: undefined,
      subscriptions: undefined,
      sendDegraded: true,
    });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body).toMatchObject({ sendDegraded: true, config: { webhookSecret: '****cdef' } });
    const changed = await svc.api('PUT', `/v1/alert-channels/${id}`, webhook({ webhookSecret: 'whsec-new-secret-9999' }));
    expect(changed.body.config.webhookSecret).toBe('****9999');

    const list = await svc.api('GET', '/v1/alert-channels?limit=100');
    expect(list.status).toBe(200);
    expect(list.body.map((c: any) => c.id)).toContain(id);
    expect(list.headers.get('content-range')).toMatch(/^0-\d+\/\d+$/);

    expect((await svc.api('DELETE', `/v1/alert-channels/${id}`)).status).toBe(204);
    expectError(await svc.api('GET', `/v1/alert-channels/${id}`), 404, /Alert channel \d+ not found/);
  });

  it('refuse a config their type cannot use', async () => {
    expectError(
      await svc.api('POST', '/v1/alert-channels', { type: 'EMAIL', config: {} }),
      400,
      /config\.address is required for EMAIL channels/,
    );
    expectError(
      await svc.api('POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'not-an-address' } }),
      400,
      /config\.address must be an email address/,
    );
    expectError(await svc.api('POST', '/v1/alert-channels', { type: 'PIGEON', config: {} }), 400, /type must be one of/);
    expectError(await svc.api('POST', '/v1/alert-channels', webhook({ method: 'TRACE' })), 400, /config\.method must be one of/);
    expectError(await svc.api('POST', '/v1/alert-channels', { type: 'SMS', config: { number: '555-1234' } }), 400, /E\.164/);
    expectError(await svc.api('POST', '/v1/alert-channels', { ...webhook(), sslExpiryThreshold: 31 }), 400, /sslExpiryThreshold/);
    expectError(
      await svc.api('POST', '/v1/alert-channels', { type: 'OPSGENIE', config: { apiKey: 'k', region: 'MARS', priority: 'P1' } }),
      400,
      /config\.region must be one of US, EU/,
    );
  });
});

describe('subscriptions', () => {
  it('come from the check body, show as alertChannelSubscriptions and alertChannels, and go with the check', async () => {
    const hook = (await svc.api('POST', '/v1/alert-channels', webhook())).body;
    const mail = (await svc.api('POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'oncall@example.test' } })).body;
    const check = await tcpCheck({
      alertChannelSubscriptions: [
        { alertChannelId: hook.id, activated: true },
        { alertChannelId: mail.id, activated: false },
      ],
    });
    expect(check.status, JSON.stringify(check.body)).toBe(201);
    expect(check.body.alertChannelSubscriptions).toEqual([
      { alertChannelId: hook.id, activated: true },
      { alertChannelId: mail.id, activated: false },
    ]);
    expect(check.body.alertChannels).toEqual({
      email: [],
      webhook: [{ name: 'ops hook', url: 'https://hooks.example.test/outpost', method: 'POST', headers: [], queryParameters: [] }],
      slack: [],
      sms: [],
    });
    expect((await svc.api('GET', `/v1/alert-channels/${hook.id}`)).body.subscriptions).toEqual([
      expect.objectContaining({ checkId: check.body.id, groupId: null, activated: true }),
    ]);

    // One subscription changed through the channel: the check shows it.
    const sub = await svc.api('PUT', `/v1/alert-channels/${mail.id}/subscriptions`, { checkId: check.body.id, activated: true });
    expect(sub.status).toBe(200);
    expect(sub.body).toMatchObject({ checkId: check.body.id, groupId: null, activated: true });
    const read = (await svc.api('GET', `/v1/checks/${check.body.id}`)).body;
    expect(read.alertChannels.email).toEqual([{ address: 'oncall@example.test' }]);

    // An update with a list replaces the subscriptions; without one it leaves them.
    const put = await svc.api('PUT', `/v1/checks/tcp/${check.body.id}`, { name: 'renamed' });
    expect(put.body.alertChannelSubscriptions).toHaveLength(2);
    const cleared = await svc.api('PUT', `/v1/checks/tcp/${check.body.id}`, { alertChannelSubscriptions: [] });
    expect(cleared.body.alertChannelSubscriptions).toEqual([]);

    await svc.api('PUT', `/v1/alert-channels/${hook.id}/subscriptions`, { checkId: check.body.id, activated: true });
    expect((await svc.api('DELETE', `/v1/checks/${check.body.id}`)).status).toBe(204);
    expect((await svc.api('GET', `/v1/alert-channels/${hook.id}`)).body.subscriptions).toEqual([]);
  });

  it('refuse unknown channels, checks and groups, and a subscription naming both or neither', async () => {
    expectError(
      await tcpCheck({ alertChannelSubscriptions: [{ alertChannelId: 999999, activated: true }] }),
      400,
      /no alert channel with id 999999/,
    );
    const hook = (await svc.api('POST', '/v1/alert-channels', webhook())).body;
    expectError(
      await svc.api('PUT', `/v1/alert-channels/${hook.id}/subscriptions`, {
        checkId: '6f1c2f7e-0000-4000-8000-000000000000',
        activated: true,
      }),
      404,
      /Check .* not found/,
    );
    expectError(
      await svc.api('PUT', `/v1/alert-channels/${hook.id}/subscriptions`, { activated: true }),
      400,
      /exactly one of checkId and groupId/,
    );
    expectError(
      await svc.api('PUT', `/v1/alert-channels/999999/subscriptions`, { groupId: 1, activated: true }),
      404,
      /Alert channel 999999/,
    );
  });

  it('are given to a new check without a list (autoAssignAlerts), unless it says not to', async () => {
    const all = (await svc.api('GET', '/v1/alert-channels?limit=100')).body.map((c: any) => c.id).sort((a: number, b: number) => a - b);
    expect(all.length).toBeGreaterThan(0);
    const auto = (await tcpCheck()).body;
    expect(auto.alertChannelSubscriptions.map((s: any) => s.alertChannelId).sort((a: number, b: number) => a - b)).toEqual(all);
    expect((await tcpCheck({}, '?autoAssignAlerts=false')).body.alertChannelSubscriptions).toEqual([]);
    expect((await tcpCheck({ alertChannelSubscriptions: [] })).body.alertChannelSubscriptions).toEqual([]);
  });
});
