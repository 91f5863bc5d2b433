// Served status pages and dashboards, opened in real Chromium against `outpost start` (service and
// built-in agent): a service going down shows, an incident's updates show in order, maintenance
// shows, a private page refuses an anonymous visitor and opens to a page key, a custom domain is
// served by its Host. Screenshots of the main states go to test/screenshots/<storage>/ for a
// person to look at. Subscribers get their emails on a local SMTP server.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright';
import { mailbox, type Mail } from '../helpers/smtp.js';
import { startService, eventually, runNow as runNowOn, type Service } from '../helpers/procs.js';
import { switchableTarget, type SwitchableTarget } from '../helpers/http-servers.js';
import { CHROMIUM_FLAGS } from '../../src/checks/pw/browser-server.js';

const SHOTS = path.join(import.meta.dirname, '..', 'screenshots', process.env.OUTPOST_TEST_STORAGE ?? 'embedded');
const DOMAIN = 'status.acme.test';

let target: SwitchableTarget;
let targetUrl: string;
let svc: Service;
let browser: Browser;
let smtp: Awaited<ReturnType<typeof mailbox>>;
let mails: Mail[];

beforeAll(async () => {
  target = await switchableTarget();
  targetUrl = `${target.url}checkout`;
  smtp = await mailbox();
  mails = smtp.mails;
  svc = await startService({ OUTPOST_SMTP_URL: smtp.url, OUTPOST_NOTIFY_RETRY_SECONDS: '1' }, 'start');
  // The custom domain resolves to the service inside this browser only.
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [...CHROMIUM_FLAGS, `--host-resolver-rules=MAP ${DOMAIN} 127.0.0.1`],
  });
  fs.mkdirSync(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
  await target?.close();
  await smtp?.close();
});

const runNow = (checkId: string) => runNowOn(svc, checkId);

async function service(name: string): Promise<string> {
  const res = await svc.api('POST', '/v1/status-pages/services', { name });
  expect(res.status).toBe(200);
  return res.body.id;
}

async function open(url: string, o: { dark?: boolean } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 }, colorScheme: o.dark ? 'dark' : 'light' });
  const page = await context.newPage();
  await page.goto(url);
  return page;
}
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
const serviceRow = (page: Page, name: string) =>
  page.locator('ul.services > li').filter({ has: page.getByRole('heading', { name, exact: true }) });

describe('a public status page', () => {
  it('shows a service going down, its incident in order, and its recovery', async () => {
    const checkout = await service('Checkout');
    const search = await service('Search');
    const made = await svc.api('POST', '/v1/status-pages', {
      name: 'Acme',
      url: 'acme',
      description: 'How the Acme shop is doing',
      cards: [{ name: 'Shop', services: [{ id: checkout }, { id: search }] }],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const check = await svc.api('POST', '/v1/checks/url', {
      name: 'checkout probe',
      frequency: 1440,
      locations: ['eu-west-1'],
      request: { url: targetUrl },
      useGlobalAlertSettings: false,
      alertSettings: {
        escalationType: 'RUN_BASED',
        runBasedEscalation: { failedRunThreshold: 1 },
        reminders: { amount: 0, interval: 5 },
        parallelRunFailureThreshold: { enabled: false, percentage: 10 },
      },
      triggerIncident: {
        serviceId: checkout,
        severity: 'CRITICAL',
        name: 'Checkout is down',
        description: 'Orders fail',
        notifySubscribers: true,
      },
    });
    expect(check.status, JSON.stringify(check.body)).toBe(201);
    const checkId = check.body.id;
    expect((await runNow(checkId)).status).toBe('PASSED');
    const subscribed = await svc.api('POST', `/v1/status-pages/${made.body.id}/subscriptions/bulk`, {
      subscriptions: [{ type: 'EMAIL', config: 'ops@acme.test' }],
      autoVerify: true,
    });
    expect(subscribed.body).toEqual({ created: 1, skipped: 0, status: 'VERIFIED' });

    const page = await open(`${svc.baseUrl}/status/acme`);
    await expect(page.title()).resolves.toBe('Acme status');
    expect(await page.getByRole('status').textContent()).toBe('All systems operational');
    expect(await serviceRow(page, 'Checkout').locator('.state').textContent()).toBe('Operational');
    // 90 days of bars per service; today's for Checkout measured and clean.
    expect(await serviceRow(page, 'Checkout').locator('.bars i').count()).toBe(90);
    expect(await serviceRow(page, 'Checkout').locator('.bars i').last().getAttribute('class')).toBe('ok');
    expect(await serviceRow(page, 'Checkout').getByRole('img').getAttribute('aria-label')).toBe('Uptime over the last 90 days: 100.00%');
    await shot(page, 'status-operational');

    target.healthy = false;
    expect((await runNow(checkId)).status).toBe('FAILED');
    await eventually(async () => (await svc.api('GET', '/v1/status-pages/incidents')).body.entries.length > 0);
    await page.reload();
    expect(await page.getByRole('status').textContent()).toBe('Major outage');
    expect(await serviceRow(page, 'Checkout').locator('.state').textContent()).toBe('Major outage');
    expect(await serviceRow(page, 'Search').locator('.state').textContent()).toBe('Operational');
    // One pass and one failure today: half the day's runs.
    expect(await serviceRow(page, 'Checkout').locator('.bars i').last().getAttribute('class')).toBe('major');
    expect(await serviceRow(page, 'Checkout').locator('.bars i').last().getAttribute('title')).toMatch(/: 50\.00% uptime, 1 incident$/);
    const openIncidents = page.getByRole('region', { name: 'Open incidents' });
    expect(await openIncidents.getByRole('heading', { name: 'Checkout is down' }).count()).toBe(1);
    expect(await openIncidents.locator('.timeline li strong').allTextContents()).toEqual(['Investigating']);

    // The owner posts an update; the check's recovery resolves the incident.
    const [incident] = (await svc.api('GET', '/v1/status-pages/incidents')).body.entries;
    const posted = await svc.api('POST', `/v1/status-pages/incidents/${incident.id}/incident-updates`, {
      status: 'IDENTIFIED',
      description: 'A bad deploy; rolling back',
    });
    expect(posted.status).toBe(200);
    await page.reload();
    expect(await openIncidents.locator('.timeline li strong').allTextContents()).toEqual(['Identified', 'Investigating']);
    await shot(page, 'status-outage');

    target.healthy = true;
    expect((await runNow(checkId)).status).toBe('PASSED');
    await eventually(async () => (await svc.api('GET', `/v1/status-pages/incidents/${incident.id}`)).body.lastUpdateStatus === 'RESOLVED');
    await page.reload();
    expect(await page.getByRole('status').textContent()).toBe('All systems operational');
    expect(await page.getByRole('region', { name: 'Open incidents' }).count()).toBe(0);
    const past = page.getByRole('region', { name: 'Past incidents' });
    await past.getByText('Checkout is down').click();
    expect(await past.locator('.timeline li strong').allTextContents()).toEqual(['Resolved', 'Identified', 'Investigating']);
    await shot(page, 'status-resolved');
    // The check's triggerIncident asked for subscribers to be told: of the opening and the end.
    const told = await eventually(async () => {
      const got = mails.filter((m) => m.to === 'ops@acme.test');
      return got.length === 2 && got;
    });
    expect(told.map((m) => m.subject).sort()).toEqual(['[Acme] Checkout is down: Investigating', '[Acme] Checkout is down: Resolved']);

    // Nothing that identifies the check or its target reaches the page.
    const html = await page.content();
    expect(html).not.toContain(checkId);
    expect(html).not.toContain(targetUrl);
    expect(html).not.toContain('checkout probe');
    expect(html).not.toContain('503');

    // Dark: the reader's preference, or the footer's link.
    const dark = await open(`${svc.baseUrl}/status/acme`, { dark: true });
    const background = (p: Page) => p.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(await background(dark)).toBe('rgb(13, 17, 23)');
    expect(await background(page)).toBe('rgb(246, 248, 250)');
    await shot(dark, 'status-dark');
    await page.getByRole('link', { name: 'Dark' }).click();
    expect(await background(page)).toBe('rgb(13, 17, 23)');
    await dark.context().close();
    await page.context().close();
  });

  it('reads as a document: landmarks, one heading per level, bars summarised for screen readers', async () => {
    const page = await open(`${svc.baseUrl}/status/acme`);
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    expect(await page.getByRole('heading', { level: 1 }).allTextContents()).toEqual(['Acme']);
    expect(await page.getByRole('main').count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Skip to content' }).count()).toBe(1);
    const tree = await page.getByRole('main').ariaSnapshot();
    expect(tree).toContain('heading "Shop" [level=2]');
    expect(tree).toMatch(/img "Uptime over the last 90 days: [\d.]+%/);
    // Readable with scripts off: the page has none.
    expect(await page.locator('script').count()).toBe(0);
    await page.context().close();
  });

  it('shows maintenance under way and coming, on the services it affects', async () => {
    const page0 = (await svc.api('GET', '/v1/status-pages')).body.entries.find((p: any) => p.url === 'acme');
    const search = page0.cards[0].services.find((s: any) => s.name === 'Search').id;
    const now = Date.now();
    const visible = { enabled: true, serviceIds: [search], statusPageIds: [page0.id], severity: 'MINOR' };
    for (const [name, start] of [
      ['Search index rebuild', now - 60_000],
      ['Database upgrade', now + 2 * 86_400_000],
    ] as const) {
      const res = await svc.api('POST', '/v1/maintenance-windows', {
        name,
        startsAt: new Date(start).toISOString(),
        endsAt: new Date(start + 3_600_000).toISOString(),
        repeatUnit: 'DAY',
        tags: ['nothing-tagged-so'],
        statusPageVisibility: visible,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    // Not made visible: not shown.
    await svc.api('POST', '/v1/maintenance-windows', {
      name: 'Internal only',
      startsAt: new Date(now - 60_000).toISOString(),
      endsAt: new Date(now + 3_600_000).toISOString(),
      repeatUnit: 'DAY',
    });
    const page = await open(`${svc.baseUrl}/status/acme`);
    expect(await serviceRow(page, 'Search').locator('.state').textContent()).toBe('Under maintenance');
    expect(await page.getByRole('status').textContent()).toBe('Under maintenance');
    const section = page.getByRole('region', { name: 'Maintenance' });
    expect(await section.locator('article h3').allTextContents()).toEqual(['Search index rebuild', 'Database upgrade']);
    expect(await section.locator('article').first().textContent()).toContain('In progress');
    expect(await section.locator('article').last().textContent()).toContain('Scheduled');
    expect(await section.textContent()).toContain('Affects Search');
    expect(await page.content()).not.toContain('Internal only');
    await shot(page, 'status-maintenance');
    await page.context().close();
  });
});

describe('a private status page', () => {
  it('refuses an anonymous visitor and opens to a page key kept in a cookie', async () => {
    const api = await service('Billing API');
    const made = await svc.api('POST', '/v1/status-pages', {
      name: 'Internal',
      url: 'internal',
      isPrivate: true,
      cards: [{ name: 'Back office', services: [{ id: api }] }],
    });
    expect(made.status).toBe(201);

    const page = await open(`${svc.baseUrl}/status/internal`);
    expect(await page.getByRole('heading', { name: 'This page is private' }).count()).toBe(1);
    expect(await page.content()).not.toContain('Billing API');
    await shot(page, 'private-refused');
    const anonymous = await fetch(`${svc.baseUrl}/status/internal`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });

    await page.getByLabel('Access key').fill('pk_wrong');
    await page.getByRole('button', { name: 'Open the page' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('That key does not open this page.');

    const key = await svc.api('POST', `/v1/status-pages/${made.body.id}/keys`, {});
    expect(key.status).toBe(201);
    expect(key.body).toMatchObject({ rawKey: expect.stringMatching(/^pk_/), maskedKey: expect.stringMatching(/^\.\.\./) });
    // Listed masked only, from then on.
    const listed = (await svc.api('GET', `/v1/status-pages/${made.body.id}`)).body.keys;
    expect(listed).toEqual([{ id: key.body.id, maskedKey: key.body.maskedKey, created_at: expect.any(String), updated_at: null }]);
    expect(JSON.stringify(listed)).not.toContain(key.body.rawKey);

    await page.getByLabel('Access key').fill(key.body.rawKey);
    await page.getByRole('button', { name: 'Open the page' }).click();
    expect(new URL(page.url()).pathname).toBe('/status/internal');
    expect(await serviceRow(page, 'Billing API').count()).toBe(1);
    const [cookie] = await page.context().cookies();
    expect(cookie).toMatchObject({ path: '/status/internal', httpOnly: true, sameSite: 'Lax' });
    expect(page.url()).not.toContain(key.body.rawKey);
    expect(await page.content()).not.toContain(key.body.rawKey);
    await page.reload();
    expect(await serviceRow(page, 'Billing API').count()).toBe(1);

    // Scripts send the owner's API key (or the page key) as a bearer token.
    const byApiKey = await fetch(`${svc.baseUrl}/status/internal`, { headers: { authorization: `Bearer ${svc.apiKey}` } });
    expect(byApiKey.status).toBe(200);
    expect(byApiKey.headers.get('cache-control')).toBe('private, no-store');
    expect(await byApiKey.text()).toContain('<meta name="robots" content="noindex">');

    // A revoked key opens nothing, cookie or not.
    expect((await svc.api('DELETE', `/v1/status-pages/${made.body.id}/keys/${key.body.id}`)).status).toBe(204);
    await page.reload();
    expect(await page.getByRole('heading', { name: 'This page is private' }).count()).toBe(1);
    await page.context().close();
  });
});

describe('custom domains and dashboards', () => {
  it('serve a status page on its custom domain, by the Host header', async () => {
    const made = await svc.api('PUT', `/v1/status-pages/${(await svc.api('GET', '/v1/status-pages')).body.entries[0].id}`, {
      name: 'Acme',
      url: 'acme',
      customDomain: DOMAIN,
      cards: (await svc.api('GET', '/v1/status-pages')).body.entries[0].cards.map((c: any) => ({
        name: c.name,
        services: c.services.map((s: any) => ({ id: s.id })),
      })),
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const page = await open(`http://${DOMAIN}:${new URL(svc.baseUrl).port}/`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Acme');
    expect(await serviceRow(page, 'Checkout').count()).toBe(1);
    await page.context().close();
    // Another host at / is no page.
    expect((await fetch(`${svc.baseUrl}/`)).status).toBe(404);
  });

  it('show the checks a dashboard selects, with their state and incidents, and nothing of their targets', async () => {
    target.healthy = false;
    const failing = await svc.api('POST', '/v1/checks/url', {
      name: 'cart api',
      frequency: 1440,
      tags: ['shop'],
      locations: ['eu-west-1'],
      request: { url: targetUrl },
    });
    const other = await svc.api('POST', '/v1/checks/url', {
      name: 'intranet',
      activated: false,
      tags: ['internal'],
      request: { url: targetUrl },
    });
    expect([failing.status, other.status]).toEqual([201, 201]);
    await runNow(failing.body.id);
    target.healthy = true;
    const dashboard = await svc.api('POST', '/v1/dashboards', {
      header: 'Shop checks',
      customUrl: 'shop',
      tags: ['shop'],
      enableIncidents: true,
    });
    expect(dashboard.status).toBe(201);
    const incident = await svc.api('POST', '/v1/incidents', {
      name: 'Cart errors',
      impact: 'MAJOR',
      dashboardId: dashboard.body.id,
      incidentUpdates: [{ status: 'INVESTIGATING', description: 'Carts fail to load' }],
    });
    expect(incident.status).toBe(201);

    const page = await open(`${svc.baseUrl}/dashboards/shop`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Shop checks');
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().getByRole('rowheader').textContent()).toContain('cart api');
    expect(await rows.first().locator('.state').textContent()).toBe('Failing');
    expect(await page.getByRole('status').textContent()).toBe('Some checks are failing');
    expect(await page.getByRole('region', { name: 'Open incidents' }).getByRole('heading', { name: 'Cart errors' }).count()).toBe(1);
    expect(await page.locator('meta[http-equiv="refresh"]').getAttribute('content')).toBe('60');
    await shot(page, 'dashboard');
    const html = await page.content();
    expect(html).not.toContain('intranet');
    expect(html).not.toContain(failing.body.id);
    expect(html).not.toContain(targetUrl);
    expect(html).not.toMatch(/503|Service Unavailable/);

    // Error text only where the owner opts in.
    expect(
      (await svc.api('PUT', `/v1/dashboards/${dashboard.body.dashboardId}`, { header: 'Shop checks', showErrorMessages: true })).status,
    ).toBe(200);
    await page.reload();
    expect(await rows.first().textContent()).toMatch(/503/);

    // Private dashboards refuse anonymous visitors like private status pages.
    await svc.api('PUT', `/v1/dashboards/${dashboard.body.dashboardId}`, { header: 'Shop checks', isPrivate: true });
    expect((await fetch(`${svc.baseUrl}/dashboards/shop`)).status).toBe(401);
    expect((await fetch(`${svc.baseUrl}/dashboards/shop`, { headers: { authorization: `Bearer ${svc.apiKey}` } })).status).toBe(200);
    await page.context().close();
  });
});

describe('status-page subscribers', () => {
  it('confirm by email, then hear of incident updates posted to notify them, and can leave', async () => {
    const api = await service('Public API');
    const page = await svc.api('POST', '/v1/status-pages', {
      name: 'Notices',
      url: 'notices',
      cards: [{ name: 'API', services: [{ id: api }] }],
    });
    expect(page.status).toBe(201);
    const subscribe = (addresses: string[], autoVerify = false) =>
      svc.api('POST', `/v1/status-pages/${page.body.id}/subscriptions/bulk`, {
        subscriptions: addresses.map((config) => ({ type: 'EMAIL', config })),
        autoVerify,
      });
    const made = await subscribe(['Ann@Example.test', 'bob@example.test']);
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ created: 2, skipped: 0, status: 'PENDING' });
    expect((await subscribe(['ann@example.test'])).body).toEqual({ created: 0, skipped: 1, status: 'PENDING' });
    expect((await subscribe(['not an address'])).status).toBe(400);
    expect((await subscribe([])).status).toBe(400);

    // Each new address is asked to confirm; Ann does, in a browser, Bob does not.
    const confirmations = await eventually(async () => {
      const got = mails.filter((m) => m.subject === 'Confirm your subscription to Notices');
      return got.length === 2 && got;
    });
    const link = /https?:\/\/\S+\/confirm\?token=\w+/.exec(confirmations.find((m) => m.to === 'ann@example.test')!.text)![0];
    const browserPage = await open(link);
    // Opening the link (as a mail scanner would) changes nothing until the button is pressed.
    const listed = async () =>
      Object.fromEntries(
        (await svc.api('GET', `/v1/status-pages/${page.body.id}/subscriptions`)).body.map((s: any) => [s.address, s.status]),
      );
    expect(await listed()).toEqual({ 'ann@example.test': 'PENDING', 'bob@example.test': 'PENDING' });
    await browserPage.getByRole('button', { name: 'Confirm' }).click();
    expect(await browserPage.getByRole('status').textContent()).toMatch(/^Subscribed/);
    expect(await listed()).toEqual({ 'ann@example.test': 'VERIFIED', 'bob@example.test': 'PENDING' });
    await browserPage.context().close();

    // An update posted to notify subscribers reaches the VERIFIED ones; one posted quietly does not.
    const before = mails.length;
    const incident = await svc.api('POST', '/v1/status-pages/incidents', {
      name: 'API errors',
      severity: 'MAJOR',
      services: [{ id: api }],
      incidentUpdates: [{ description: 'Some requests fail', status: 'INVESTIGATING', notifySubscribers: true }],
    });
    expect(incident.status).toBe(201);
    await svc.api('POST', `/v1/status-pages/incidents/${incident.body.id}/incident-updates`, {
      description: 'Found it',
      status: 'IDENTIFIED',
      notifySubscribers: false,
    });
    await svc.api('POST', `/v1/status-pages/incidents/${incident.body.id}/incident-updates`, {
      description: 'All requests succeed again',
      status: 'RESOLVED',
      notifySubscribers: true,
    });
    const told = await eventually(async () => mails.length - before === 2 && mails.slice(before));
    expect(told.map((m) => [m.to, m.subject]).sort()).toEqual([
      ['ann@example.test', '[Notices] API errors: Investigating'],
      ['ann@example.test', '[Notices] API errors: Resolved'],
    ]);
    const resolved = told.find((m) => m.subject.endsWith('Resolved'))!;
    expect(resolved.text).toContain('Resolved: All requests succeed again');
    expect(resolved.text).toContain('Affects: Public API');
    expect(resolved.text).toContain(`${svc.baseUrl}/status/notices`);

    // The unsubscribe link's button removes the subscription.
    const leave = /https?:\/\/\S+\/unsubscribe\?token=\w+/.exec(resolved.text)![0];
    const leavePage = await open(leave);
    await leavePage.getByRole('button', { name: 'Unsubscribe' }).click();
    expect(await leavePage.getByRole('status').textContent()).toMatch(/^Unsubscribed/);
    expect(await listed()).toEqual({ 'bob@example.test': 'PENDING' });
    await leavePage.context().close();
    expect((await fetch(leave)).status).toBe(404);
  });
});
