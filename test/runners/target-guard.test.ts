// An agent that blocks private targets, against real loopback servers: each check type refuses
// them after resolving the name and after every redirect, and reaches the ranges it allows.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { TargetGuard } from '../../src/domain/target-guard.js';
import { runTcp } from '../../src/checks/tcp.js';
import { runUrl } from '../../src/checks/url.js';
import { runApi } from '../../src/checks/api.js';
import { runDns } from '../../src/checks/dns.js';
import { runIcmp } from '../../src/checks/icmp.js';
import { httpServer, type HttpTarget } from '../helpers/http-servers.js';
import { tcpServer, type TcpTarget } from '../helpers/servers.js';
import { dnsServer, type DnsServer } from '../helpers/dns-server.js';
import { runBrowser } from '../../src/checks/browser.js';
import { BrowserServers } from '../../src/checks/pw/browser-server.js';
import { Sandbox } from '../../src/checks/sandbox.js';
import { DEFAULT_RUNTIMES_DIR, runtimeModules } from '../../src/runtimes/catalog.js';
import type { BrowserEnv } from '../../src/checks/types.js';
import { jobOf, runJob, log } from '../helpers/runner.js';

const REFUSED = /refused to connect to .*a loopback, link-local or private address, and this agent blocks those/;
const blockAll = { guard: new TargetGuard() };
const allowV4Loopback = { guard: new TargetGuard(['127.0.0.1/32']) };

let web: HttpTarget;
let web6: HttpTarget;
let echo: TcpTarget;
let ns: DnsServer;
beforeAll(async () => {
  [web, web6, echo, ns] = await Promise.all([httpServer(), httpServer('::1'), tcpServer(), dnsServer()]);
});
afterAll(async () => {
  await Promise.all([web.close(), web6.close(), echo.close(), ns.close()]);
});

describe('private targets refused', () => {
  it('TCP: by address, and through the ranges allowed', async () => {
    const job = jobOf('TCP', { hostname: '127.0.0.1', port: echo.port });
    expect((await runJob(runTcp, job, blockAll)).error).toMatch(REFUSED);
    expect((await runJob(runTcp, job, allowV4Loopback)).error).toBeNull();
  });

  it('URL: a redirect from an allowed address to a refused one stops at the redirect', async () => {
    const out = await runJob(
      runUrl,
      jobOf('URL', { url: `${web.url}/redirect?to=${encodeURIComponent(`${web6.url}/ok`)}` }),
      allowV4Loopback,
    );
    expect(out.error).toMatch(REFUSED);
    expect(out.error).toContain('::1');
    expect(web6.seen).toHaveLength(0);
    expect(web.seen.at(-1)?.path).toBe('/redirect');
  });

  it('API: a name that resolves to a private address', async () => {
    const port = new URL(web.url).port;
    const out = await runJob(runApi, jobOf('API', { method: 'GET', url: `http://localhost:${port}/ok` }), blockAll);
    expect(out.error).toMatch(/refused to connect to localhost \(127\.0\.0\.1\)/);
  });

  it('DNS: a name server the check names', async () => {
    const job = jobOf('DNS', { nameServer: '127.0.0.1', port: ns.udpPort, protocol: 'UDP', recordType: 'A', query: 'probe.test' });
    expect((await runJob(runDns, job, blockAll)).error).toMatch(REFUSED);
    expect((await runJob(runDns, job, allowV4Loopback)).error).toBeNull();
  });

  it('ICMP: the address the host name resolves to', async () => {
    const out = await runJob(runIcmp, jobOf('ICMP', { hostname: 'localhost', pingCount: 1 }, { timeoutMs: 5000 }), blockAll);
    expect(out.error).toMatch(REFUSED);
    expect((out.detail.icmpCheckResult as any).packetsSent).toBe(0);
  });

  it('browser checks: page loads go through the guard, a redirect to a refused address is answered 403', { timeout: 120_000 }, async () => {
    const servers = new BrowserServers('/usr/bin/chromium', log);
    const { sandbox } = await Sandbox.detect('auto', [DEFAULT_RUNTIMES_DIR, runtimeModules('2026.04', DEFAULT_RUNTIMES_DIR)]);
    const browser: BrowserEnv = {
      servers,
      runtimesDir: DEFAULT_RUNTIMES_DIR,
      chromiumPath: '/usr/bin/chromium',
      carried: new Set(['2026.04']),
      sandbox,
      sandboxMissing: null,
      sandboxRequired: false,
    };
    web6.seen.length = 0;
    const script = `const { test, expect } = require('@playwright/test');
test('guarded', async ({ page }) => {
  expect((await page.goto('${web.url}/ok')).status()).toBe(200);
  const refused = await page.goto('${web.url}/redirect?to=${encodeURIComponent(`${web6.url}/ok`)}');
  expect(refused.status()).toBe(403);
  expect(await page.textContent('body')).toContain('Outpost refused ::1');
});`;
    try {
      const out = await runJob(
        runBrowser,
        jobOf(
          'BROWSER',
          {},
          { runtimeId: '2026.04', timeoutMs: 60_000, check: { code: { script, artifacts: { screenshot: 'off', trace: 'off' } } } },
        ),
        { browser, ...allowV4Loopback },
      );
      expect((out.detail.browserCheckResult as any).errors).toEqual([]);
      expect(out.error).toBeNull();
      expect(web6.seen).toHaveLength(0);
    } finally {
      await servers.close();
    }
  });
});
