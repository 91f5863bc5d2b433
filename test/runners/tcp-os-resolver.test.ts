// USE_OS_DNS_RESOLVER=true reaches TCP runs as the run context's osResolver: names resolve through
// the operating system, so /etc/hosts applies.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { runTcp } from '../../src/checks/tcp.js';
import { agentConfig } from '../../src/agent/config.js';
import { createLogger } from '../../src/log.js';
import { tcpServer, type TcpTarget } from '../helpers/servers.js';

let t: TcpTarget;
beforeAll(async () => {
  t = await tcpServer({ reply: () => 'hi' });
});
afterAll(async () => {
  await t.close();
});

describe('TCP runner with USE_OS_DNS_RESOLVER=true', () => {
  it('connects to localhost through /etc/hosts', async () => {
    const out = await runTcp(
      {
        id: 'j',
        checkId: 'c',
        checkType: 'TCP',
        location: 'here',
        dueAt: 0,
        timeoutMs: 2000,
        check: {
          name: 'n',
          request: { hostname: 'localhost', port: t.port, ipFamily: 'IPv4' },
          degradedResponseTime: 3000,
          maxResponseTime: 5000,
          shouldFail: false,
        },
      },
      {
        signal: new AbortController().signal,
        deadline: Date.now() + 2000,
        log: createLogger('test', 'ERROR'),
        osResolver: agentConfig({ API_KEY: 'k', USE_OS_DNS_RESOLVER: 'true' }).useOsDnsResolver,
      },
    );
    expect(out.error).toBeNull();
    expect((out.detail.tcpCheckResult as any).address).toBe('127.0.0.1');
  });
});
