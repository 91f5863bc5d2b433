// The published `checkly` CLI (8.x, the line that runs on Node 20), unchanged, against Outpost:
// it authenticates, keeps account variables, creates a group and a member check, and reads the
// member back both as stored and with the group's settings applied.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startService, type Service } from '../helpers/procs.js';

const CLI = fileURLToPath(new URL('../../node_modules/checkly/bin/run', import.meta.url));

let svc: Service;
let home: string;
beforeAll(async () => {
  svc = await startService();
  // The CLI keeps its config under HOME; a fresh one per run keeps a developer's login out of it.
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-checkly-'));
});
afterAll(async () => {
  await svc?.stop();
  fs.rmSync(home, { recursive: true, force: true });
});

/** Runs `checkly <args>` pointed at the service; answers its exit code and output. */
function checkly(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    CHECKLY_ENV: 'local',
    CHECKLY_API_URL: svc.baseUrl,
    CHECKLY_API_KEY: svc.apiKey,
    CHECKLY_ACCOUNT_ID: svc.accountId,
    // The CLI would otherwise ask the npm registry for a newer version.
    CHECKLY_SKIP_NEW_VERSION_CHECK: 'true',
    NO_COLOR: '1',
    ...extraEnv,
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, cwd: home, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** Runs `checkly api …` and answers the JSON it printed. */
async function api(...args: string[]) {
  const out = await checkly(['api', ...args]);
  expect(out.stderr).not.toMatch(/error/i);
  expect(out.code).toBe(0);
  return JSON.parse(out.stdout);
}

describe('the checkly CLI', () => {
  it('logs in with an API key and names the account', async () => {
    const out = await checkly(['whoami']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`(${svc.accountId})`);
    expect(out.stdout).not.toContain(svc.apiKey);
  });

  it('refuses a wrong API key without echoing it', async () => {
    const wrong = 'cu_wrong_key_0123456789';
    const out = await checkly(['whoami'], { CHECKLY_API_KEY: wrong });
    expect(out.code).not.toBe(0);
    expect(out.stdout + out.stderr).toMatch(/Authentication failed/);
    expect(out.stdout + out.stderr).not.toContain(wrong);
  });

  it('adds, lists and removes account variables, never printing a secret', async () => {
    expect((await checkly(['env', 'add', 'REGION', 'eu-west'])).code).toBe(0);
    expect((await checkly(['env', 'add', 'DB_PASSWORD', 'hunter2-s3cret', '--secret'])).code).toBe(0);
    const listed = await checkly(['env', 'ls']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^REGION=eu-west$/m);
    expect(listed.stdout).toMatch(/^DB_PASSWORD=/m);
    expect(listed.stdout).not.toContain('hunter2-s3cret');
    expect((await checkly(['env', 'rm', 'REGION', '--force'])).code).toBe(0);
    const after = await checkly(['env', 'ls']);
    expect(after.stdout).not.toMatch(/^REGION=/m);
    expect(after.stdout).toMatch(/^DB_PASSWORD=/m);
  });

  it("shows a member check with its group's settings applied, and as stored", async () => {
    const groupFile = path.join(home, 'group.json');
    fs.writeFileSync(
      groupFile,
      JSON.stringify({
        name: 'payments',
        locations: ['ap-south-1', 'us-east-1'],
        runtimeId: '2024.09',
        muted: true,
        tags: ['team-payments'],
        environmentVariables: [{ key: 'REGION', value: 'eu' }],
        apiCheckDefaults: { url: 'http://127.0.0.1:9', headers: [{ key: 'X-Team', value: 'payments' }] },
        retryStrategy: { type: 'FIXED', baseBackoffSeconds: 30, maxRetries: 2, maxDurationSeconds: 600, sameRegion: true },
      }),
    );
    const group = await api('/v1/check-groups', '-X', 'POST', '--input', groupFile);
    expect(group).toMatchObject({ name: 'payments', locations: ['ap-south-1', 'us-east-1'] });

    const check = await api(
      '/v1/checks/api',
      '-X',
      'POST',
      '-F',
      'name=charge',
      '-F',
      'activated:=false',
      '-F',
      'locations:=["eu-west-1"]',
      '-F',
      `groupId:=${group.id}`,
      '-F',
      'request:={"method":"GET","url":"{{GROUP_BASE_URL}}/charge"}',
    );
    expect(check).toMatchObject({ name: 'charge', groupId: group.id, locations: ['eu-west-1'], muted: false });

    const applied = await api(`/v1/checks/${check.id}`, '-X', 'GET', '-F', 'applyGroupSettings=true');
    expect(applied).toMatchObject({
      id: check.id,
      groupId: group.id,
      locations: ['ap-south-1', 'us-east-1'],
      runtimeId: '2024.09',
      muted: true,
      retryStrategy: { type: 'FIXED', baseBackoffSeconds: 30, maxRetries: 2, maxDurationSeconds: 600, sameRegion: true },
    });
    expect(applied.request.headers).toEqual([{ key: 'X-Team', value: 'payments' }]);
    expect(applied.environmentVariables.map((v: { key: string }) => v.key)).toEqual(['GROUP_BASE_URL', 'REGION']);

    // Read as stored (the API's default): the check's own settings.
    const stored = await api(`/v1/checks/${check.id}`);
    expect(stored).toMatchObject({ locations: ['eu-west-1'], muted: false, retryStrategy: null });

    // The group's member listing answers the same effective view.
    expect(await api(`/v1/check-groups/${group.id}/checks/${check.id}`)).toEqual(applied);
  });
});
