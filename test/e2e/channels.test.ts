// Each channel type delivering for real: an SMTP server receives the email; local receivers
// stand in for Slack, PagerDuty and Opsgenie and check the request shapes; SMS without a
// provider is recorded as failed, saying why.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mailbox } from '../helpers/smtp.js';
import { startService, eventually, runNow as runNowOn, type Service } from '../helpers/procs.js';
import { switchableTarget, type SwitchableTarget } from '../helpers/http-servers.js';

interface Hit {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

let svc: Service;
let provider: http.Server;
let smtp: Awaited<ReturnType<typeof mailbox>>;
const hits: Hit[] = [];
let target: SwitchableTarget;
let targetUrl: string;

beforeAll(async () => {
  // One receiver for Slack, PagerDuty and Opsgenie: the path tells them apart.
  provider = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      hits.push({ method: req.method!, path: req.url!, headers: req.headers, body: raw ? JSON.parse(raw) : null });
      res.writeHead(202, { 'content-type': 'application/json' }).end('{"status":"success"}');
    });
  });
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  smtp = await mailbox();
  target = await switchableTarget(500);
  targetUrl = target.url;
  svc = await startService(
    {
      OUTPOST_SMTP_URL: smtp.url,
      OUTPOST_SMTP_FROM: 'alerts@outpost.test',
      OUTPOST_PAGERDUTY_URL: `${base}/pagerduty/v2/enqueue`,
      OUTPOST_OPSGENIE_URL: `${base}/opsgenie`,
      OUTPOST_NOTIFY_RETRY_SECONDS: '1',
    },
    'start',
  );
});
afterAll(async () => {
  await svc?.stop();
  provider?.close();
  await target?.close();
  await smtp?.close();
});

/** The Subject header, its MIME encoded-word (=?UTF-8?Q?…?=) decoded. */
function subjectOf(message: string): string {
  const raw = /^Subject: (.*)$/m.exec(message)?.[1] ?? '';
  const q = /^=\?UTF-8\?Q\?(.*)\?=$/i.exec(raw);
  if (!q) return raw;
  return Buffer.from(
    q[1]!.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
    'latin1',
  ).toString('utf8');
}

async function channel(body: Record<string, unknown>) {
  const res = await svc.api('POST', '/v1/alert-channels', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as number;
}

const runNow = (checkId: string) => runNowOn(svc, checkId);

describe('channels', () => {
  it('email, Slack, PagerDuty and Opsgenie receive the failure and the recovery; SMS says it has no provider', async () => {
    const base = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
    const ids = [
      await channel({ type: 'EMAIL', config: { address: 'oncall@example.test' } }),
      await channel({ type: 'SLACK', config: { url: `${base}/slack/hook`, channel: '#ops' } }),
      await channel({ type: 'PAGERDUTY', config: { serviceKey: 'pd-routing-key-0001', serviceName: 'shop' } }),
      await channel({ type: 'OPSGENIE', config: { name: 'og', apiKey: 'og-api-key-0001', region: 'US', priority: 'P2' } }),
      await channel({ type: 'SMS', config: { number: '+15555550100', name: 'pager' } }),
    ];
    const made = await svc.api('POST', '/v1/checks/url', {
      name: 'checkout',
      activated: false,
      locations: ['eu-west-1'],
      request: { url: targetUrl },
      alertChannelSubscriptions: ids.map((alertChannelId) => ({ alertChannelId, activated: true })),
    });
    const checkId = made.body.id;

    target.healthy = false;
    await runNow(checkId);
    const mail = await eventually(async () => smtp.mails[0]);
    expect(mail.to).toBe('oncall@example.test');
    expect(subjectOf(mail.data)).toBe('Check "checkout" has failed');
    expect(mail.data).toMatch(/From: alerts@outpost\.test/);
    expect(mail.data).toMatch(/status code 500/);
    const byPath = (p: string) => hits.filter((h) => h.path.startsWith(p));
    await eventually(async () => byPath('/slack').length && byPath('/pagerduty').length && byPath('/opsgenie').length);
    expect(byPath('/slack')[0]!.body).toMatchObject({ channel: '#ops', text: expect.stringContaining('Check "checkout" has failed') });
    expect(byPath('/pagerduty')[0]!.body).toMatchObject({
      routing_key: 'pd-routing-key-0001',
      event_action: 'trigger',
      dedup_key: checkId,
      payload: { summary: 'Check "checkout" has failed', severity: 'critical' },
    });
    const og = byPath('/opsgenie')[0]!;
    expect(og.path).toBe('/opsgenie/v2/alerts');
    expect(og.headers.authorization).toBe('GenieKey og-api-key-0001');
    expect(og.body).toMatchObject({ alias: checkId, priority: 'P2', message: 'Check "checkout" has failed' });

    const sms = await eventually(async () => {
      const [n] = (await svc.api('GET', `/v1/alert-notifications?alertChannelId=${ids[4]}`)).body;
      return n?.status === 'FAILURE' ? n : null;
    });
    expect(sms.notificationResult.message).toBe('no SMS provider is configured (set OUTPOST_SMS_URL)');
    // Credentials of channels are not shown in the log of notifications either.
    const all = JSON.stringify((await svc.api('GET', '/v1/alert-notifications?limit=100')).body);
    expect(all).not.toContain('og-api-key-0001');
    expect(all).not.toContain('pd-routing-key-0001');

    target.healthy = true;
    await runNow(checkId);
    await eventually(async () => byPath('/pagerduty').length > 1 && byPath('/opsgenie').length > 1 && smtp.mails.length > 1);
    expect(byPath('/pagerduty')[1]!.body).toMatchObject({ event_action: 'resolve', dedup_key: checkId });
    expect(byPath('/opsgenie')[1]!.path).toBe(`/opsgenie/v2/alerts/${checkId}/close?identifierType=alias`);
    expect(subjectOf(smtp.mails[1]!.data)).toBe('Check "checkout" has recovered');
  });
});
