// Alerts that reach people: a check fails and recovers on `outpost start`'s built-in agent, and
// a local receiver checks what arrives (body, signature, notification id); muted checks stay
// quiet; a notification stored before the service died is delivered after it restarts.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { startService, eventually, runNow as runNowOn, type Service } from '../helpers/procs.js';
import { closedPort } from '../helpers/servers.js';
import { httpsServer, switchableTarget, type SwitchableTarget } from '../helpers/http-servers.js';

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on a port of its own (or a given one), recording each request. */
async function receiver(port = 0) {
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      got.push({ path: req.url!, headers: req.headers, body });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    got,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The check's target: answers 200 or 503 as the test says. */
let target: SwitchableTarget;
let targetUrl: string;
let svc: Service;
beforeAll(async () => {
  target = await switchableTarget();
  targetUrl = target.url;
  svc = await startService({ OUTPOST_NOTIFY_RETRY_SECONDS: '1' }, 'start');
});
afterAll(async () => {
  await svc?.stop();
  await target?.close();
});

async function urlCheck(channelId: number, extra: Record<string, unknown> = {}) {
  const res = await svc.api('POST', '/v1/checks/url', {
    name: 'shop home',
    activated: false,
    locations: ['eu-west-1'],
    request: { url: targetUrl },
    alertChannelSubscriptions: [{ alertChannelId: channelId, activated: true }],
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

/** Alert settings that wait for two failed runs in a row. */
const twoFailedRuns = {
  escalationType: 'RUN_BASED',
  runBasedEscalation: { failedRunThreshold: 2 },
  reminders: { amount: 0, interval: 5 },
  parallelRunFailureThreshold: { enabled: false, percentage: 10 },
};

/** Runs the check now and waits for its result. */
const runNow = (checkId: string) => runNowOn(svc, checkId);

describe('webhook notifications', () => {
  it('tell of a failure and of the recovery, signed and with a notification id', async () => {
    const hook = await receiver();
    const channel = await svc.api('POST', '/v1/alert-channels', {
      type: 'WEBHOOK',
      config: {
        name: 'ops',
        url: `${hook.url}/alerts/{{CHECK_ID}}`,
        method: 'POST',
        webhookSecret: 'whsec-test-0001',
        headers: [{ key: 'X-Team', value: 'shop' }],
        template: '{"title":"{{ALERT_TITLE}}","type":"{{ALERT_TYPE}}","error":"{{CHECK_ERROR_MESSAGE}}","reminder":{{REMINDER_SEQUENCE}} }',
      },
    });
    expect(channel.status).toBe(201);
    const checkId = await urlCheck(channel.body.id);
    // A template Handlebars cannot read is refused when the channel is saved, not when it fires.
    const broken = await svc.api('POST', '/v1/alert-channels', {
      type: 'WEBHOOK',
      config: { name: 'x', url: hook.url, method: 'POST', template: '{"n":{{REMINDER_SEQUENCE}}}' },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.message).toMatch(/config\.template is not a Handlebars template Outpost can read/);

    target.healthy = false;
    expect((await runNow(checkId)).status).toBe('FAILED');
    const failure = await eventually(async () => hook.got[0]);
    expect(failure.path).toBe(`/alerts/${checkId}`);
    expect(failure.headers['x-team']).toBe('shop');
    expect(JSON.parse(failure.body)).toEqual({
      title: 'Check &quot;shop home&quot; has failed',
      type: 'ALERT_FAILURE',
      error: 'status code 503',
      reminder: 0,
    });
    expect(failure.headers['x-checkly-signature']).toBe(createHmac('sha256', 'whsec-test-0001').update(failure.body).digest('hex'));
    expect(failure.headers['x-outpost-notification-id']).toMatch(/^[0-9a-f-]{36}$/);

    // Still failing: told once, not again.
    await runNow(checkId);
    target.healthy = true;
    await runNow(checkId);
    const recovery = await eventually(async () => hook.got[1]);
    expect(JSON.parse(recovery.body)).toMatchObject({ type: 'ALERT_RECOVERY', title: 'Check &quot;shop home&quot; has recovered' });
    expect(hook.got).toHaveLength(2);

    // The receiver has answered; the service records the attempt just after.
    const sent = await eventually(async () => {
      const all = (await svc.api('GET', `/v1/alert-notifications?alertChannelId=${channel.body.id}`)).body;
      return all.every((n: any) => n.status !== 'IN_PROGRESS') && all;
    });
    expect(sent.map((n: any) => [n.alertType, n.status])).toEqual([
      ['ALERT_RECOVERY', 'SUCCESS'],
      ['ALERT_FAILURE', 'SUCCESS'],
    ]);
    expect(sent[0]).toMatchObject({
      type: 'WEBHOOK',
      checkId,
      alertChannelId: channel.body.id,
      alertConfig: { webhookSecret: '****0001' },
    });
    const alerts = (await svc.api('GET', `/v1/check-alerts/${checkId}`)).body;
    expect(alerts.map((a: any) => a.alertType)).toEqual(['ALERT_RECOVERY', 'ALERT_FAILURE']);
    expect(alerts[1]).toMatchObject({ checkId, name: 'shop home', checkType: 'URL', runLocation: 'eu-west-1', statusCode: 503 });
    await hook.close();
  });

  it('wait for the check’s own threshold of failed runs in a row', async () => {
    const hook = await receiver();
    const channel = (await svc.api('POST', '/v1/alert-channels', { type: 'WEBHOOK', config: { name: 't', url: hook.url, method: 'POST' } }))
      .body;
    const checkId = await urlCheck(channel.id, {
      useGlobalAlertSettings: false,
      alertSettings: twoFailedRuns,
    });
    target.healthy = false;
    await runNow(checkId);
    // Decided with the result: after one failed run there is nothing to send.
    expect((await svc.api('GET', `/v1/alert-notifications?alertChannelId=${channel.id}`)).body).toEqual([]);
    await runNow(checkId);
    target.healthy = true;
    const told = await eventually(async () => hook.got[0]);
    expect(JSON.parse(told.body)).toMatchObject({ ALERT_TYPE: 'ALERT_FAILURE', CHECK_ID: checkId });
    expect((await svc.api('GET', `/v1/check-alerts/${checkId}`)).body.map((a: any) => a.alertType)).toEqual(['ALERT_FAILURE']);
    await hook.close();
  });

  it('count a parallel run failing in every location as one failed run', async () => {
    const channel = (
      await svc.api('POST', '/v1/alert-channels', {
        type: 'WEBHOOK',
        config: { name: 'parallel', url: 'http://127.0.0.1:9/', method: 'POST' },
      })
    ).body;
    const checkId = await urlCheck(channel.id, {
      locations: ['eu-west-1', 'us-east-1'],
      runParallel: true,
      useGlobalAlertSettings: false,
      alertSettings: twoFailedRuns,
    });
    target.healthy = false;
    const first = await runNow(checkId);
    expect(first.results.map((r: any) => [r.runLocation, r.hasFailures]).sort()).toEqual([
      ['eu-west-1', true],
      ['us-east-1', true],
    ]);
    // Two failed locations, one failed run: below the threshold of two runs.
    expect((await svc.api('GET', `/v1/check-alerts/${checkId}`)).body).toEqual([]);
    await runNow(checkId);
    target.healthy = true;
    expect((await svc.api('GET', `/v1/check-alerts/${checkId}`)).body.map((a: any) => a.alertType)).toEqual(['ALERT_FAILURE']);
    await svc.api('DELETE', `/v1/checks/${checkId}`);
  });

  it('open a status-page incident when the failure is told, and resolve it with the recovery', async () => {
    const service = (await svc.api('POST', '/v1/status-pages/services', { name: 'Shop' })).body;
    const channel = (
      await svc.api('POST', '/v1/alert-channels', {
        type: 'WEBHOOK',
        config: { name: 'incidents', url: 'http://127.0.0.1:9/', method: 'POST' },
      })
    ).body;
    const checkId = await urlCheck(channel.id, {
      useGlobalAlertSettings: false,
      alertSettings: twoFailedRuns,
      triggerIncident: {
        serviceId: service.id,
        severity: 'CRITICAL',
        name: 'Shop is down',
        description: 'Checkout fails',
        notifySubscribers: false,
      },
    });
    const incidentsOf = async () =>
      (await svc.api('GET', '/v1/status-pages/incidents?limit=100')).body.entries.filter((i: any) =>
        i.services.some((s: any) => s.id === service.id),
      );
    target.healthy = false;
    await runNow(checkId);
    // One failed run is below the threshold: no alert, so no incident.
    expect(await incidentsOf()).toEqual([]);
    await runNow(checkId);
    const [opened] = await incidentsOf();
    expect(opened).toMatchObject({ name: 'Shop is down', severity: 'CRITICAL', lastUpdateStatus: 'INVESTIGATING' });
    expect(opened.incidentUpdates[0]).toMatchObject({ description: 'Checkout fails', status: 'INVESTIGATING' });
    await runNow(checkId);
    expect(await incidentsOf()).toHaveLength(1);
    target.healthy = true;
    await runNow(checkId);
    const [closed] = await incidentsOf();
    expect(closed.id).toBe(opened.id);
    expect(closed.incidentUpdates.map((u: any) => u.status)).toEqual(['INVESTIGATING', 'RESOLVED']);
    expect(closed.lastUpdateStatus).toBe('RESOLVED');
    await svc.api('DELETE', `/v1/checks/${checkId}`);
  });

  it('tell of a heartbeat that missed its ping, and of the next ping', async () => {
    const hook = await receiver();
    const channel = (
      await svc.api('POST', '/v1/alert-channels', { type: 'WEBHOOK', config: { name: 'hb', url: hook.url, method: 'POST' } })
    ).body;
    const check = await svc.api('POST', '/v1/checks/heartbeat', {
      name: 'nightly backup',
      script: '',
      heartbeat: { period: 1, periodUnit: 'seconds', grace: 0, graceUnit: 'seconds' },
      alertChannelSubscriptions: [{ alertChannelId: channel.id, activated: true }],
    });
    expect(check.status).toBe(201);
    const missed = await eventually(async () => hook.got[0], 10_000);
    expect(JSON.parse(missed.body)).toMatchObject({ ALERT_TYPE: 'ALERT_FAILURE', CHECK_TYPE: 'HEARTBEAT', CHECK_ID: check.body.id });
    expect((await fetch(check.body.heartbeat.pingUrl)).status).toBe(200);
    const recovered = await eventually(async () => hook.got.find((g) => JSON.parse(g.body).ALERT_TYPE === 'ALERT_RECOVERY'));
    expect(JSON.parse(recovered.body).CHECK_ID).toBe(check.body.id);
    await svc.api('DELETE', `/v1/checks/${check.body.id}`);
    await hook.close();
  });

  it('warn of a certificate about to expire, once a day, to channels that asked that far ahead', async () => {
    const tls = await httpsServer(); // its certificate is valid for 30 days
    const hook = await receiver();
    const ahead30 = (
      await svc.api('POST', '/v1/alert-channels', {
        type: 'WEBHOOK',
        config: { name: 'ssl', url: `${hook.url}/30`, method: 'POST' },
        sslExpiry: true,
      })
    ).body;
    const ahead7 = (
      await svc.api('POST', '/v1/alert-channels', {
        type: 'WEBHOOK',
        config: { name: 'ssl7', url: `${hook.url}/7`, method: 'POST' },
        sslExpiry: true,
        sslExpiryThreshold: 7,
      })
    ).body;
    const check = await svc.api('POST', '/v1/checks/url', {
      name: 'tls shop',
      activated: false,
      locations: ['eu-west-1'],
      request: { url: `${tls.url}/ok`, skipSSL: true },
      alertChannelSubscriptions: [
        { alertChannelId: ahead30.id, activated: true },
        { alertChannelId: ahead7.id, activated: true },
      ],
    });
    expect((await runNow(check.body.id)).status).toBe('PASSED');
    const warned = await eventually(async () => hook.got[0]);
    expect(warned.path).toBe('/30');
    expect(JSON.parse(warned.body)).toMatchObject({ ALERT_TYPE: 'ALERT_SSL', SSL_DAYS_REMAINING: 29, SSL_CHECK_DOMAIN: '127.0.0.1' });
    await runNow(check.body.id);
    // Written with the result: the second run's decision is known once its session is done.
    const sent = (await svc.api('GET', `/v1/alert-notifications?limit=100`)).body.filter((n: any) => n.checkId === check.body.id);
    expect(sent.map((n: any) => [n.alertType, n.alertChannelId])).toEqual([['ALERT_SSL', ahead30.id]]);
    await hook.close();
    await tls.close();
  });

  it('stay quiet for a muted check, which still records its alerts', async () => {
    const hook = await receiver();
    const channel = (await svc.api('POST', '/v1/alert-channels', { type: 'WEBHOOK', config: { name: 'm', url: hook.url, method: 'POST' } }))
      .body;
    const checkId = await urlCheck(channel.id, { muted: true });
    target.healthy = false;
    await runNow(checkId);
    target.healthy = true;
    // Written with the result: by the time the session is done, there is nothing to wait for.
    expect((await svc.api('GET', `/v1/check-alerts/${checkId}`)).body.map((a: any) => a.alertType)).toEqual(['ALERT_FAILURE']);
    expect((await svc.api('GET', `/v1/alert-notifications?alertChannelId=${channel.id}`)).body).toEqual([]);
    expect(hook.got).toEqual([]);
    await hook.close();
  });

  it('refuse windows wider than the API allows', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await svc.api('GET', `/v1/alert-notifications?from=${now - 25 * 3600}&to=${now}`)).status).toBe(400);
    expect((await svc.api('GET', `/v1/check-alerts?from=${now - 7 * 3600}&to=${now}`)).status).toBe(400);
  });
});

describe('the notification outbox', () => {
  it('delivers after a kill -9 what was decided before it, once', async () => {
    const port = await closedPort();
    const channel = (
      await svc.api('POST', '/v1/alert-channels', {
        type: 'WEBHOOK',
        config: { name: 'late', url: `http://127.0.0.1:${port}/`, method: 'POST' },
      })
    ).body;
    const checkId = await urlCheck(channel.id);
    target.healthy = false;
    await runNow(checkId);
    target.healthy = true;
    // The receiver is down: the notification waits in the outbox, attempted and not delivered.
    await eventually(async () => {
      const [n] = (await svc.api('GET', `/v1/alert-notifications?alertChannelId=${channel.id}`)).body;
      return n && n.notificationResult?.attempts >= 1 && n.status === 'IN_PROGRESS';
    });
    await svc.proc.kill('SIGKILL');
    const hook = await receiver(port);
    await svc.restart();
    const got = await eventually(async () => hook.got[0]);
    expect(JSON.parse(got.body)).toMatchObject({ ALERT_TYPE: 'ALERT_FAILURE', CHECK_ID: checkId });
    const [n] = await eventually(async () => {
      const list = (await svc.api('GET', `/v1/alert-notifications?alertChannelId=${channel.id}`)).body;
      return list[0]?.status === 'SUCCESS' ? list : null;
    });
    expect(got.headers['x-outpost-notification-id']).toBe(n.id);
    expect(new Set(hook.got.map((g) => g.headers['x-outpost-notification-id'])).size).toBe(1);
    await hook.close();
  });
});
