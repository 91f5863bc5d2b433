// Runs a browser, multi-step or Playwright check: the check's files in a fresh folder, the
// pinned runtime's @playwright/test runner in a child process (its own process group, an
// environment of the check's variables only), connected to the agent's shared Chromium. The
// JSON report becomes the result; screenshots, traces and videos are uploaded as artifacts.

import { killGroup, spawnGroup } from '../sandbox.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runtimeModules } from '../../runtimes/catalog.js';
import { maskDeep, maskSecrets, variableMap } from '../../domain/placeholders.js';
import type { Job, ProbeOutcome, CheckCode } from '../../domain/run.js';
import type { RunContext, ArtifactLink } from '../types.js';
import { testShim, playwrightShim } from './shim.js';
import { testsOf, firstError, plain, type RawReport, type TestOutcome } from './report.js';
import { CHROMIUM_FLAGS, linkFfmpeg } from './browser-server.js';
import { guardProxyUrl, proxyFlags } from '../guard-proxy.js';

/** Flags of a browser a run launches itself: through the guard's proxy when there is one. */
const browserFlags = (proxyUrl: string | null) => (proxyUrl ? [...CHROMIUM_FLAGS, ...proxyFlags(proxyUrl)] : CHROMIUM_FLAGS);

export type SuiteKind = 'BROWSER' | 'MULTI_STEP' | 'PLAYWRIGHT';

const RESULT_KEY: Record<SuiteKind, string> = {
  BROWSER: 'browserCheckResult',
  MULTI_STEP: 'multiStepCheckResult',
  PLAYWRIGHT: 'playwrightCheckResult',
};
const LOG_LIMIT = 64 * 1024;
/** Time the runner needs around the tests: starting, connecting, writing its report. */
const RUNNER_MARGIN_MS = 5000;

const failure = (kind: SuiteKind, error: string, extra: Record<string, unknown> = {}): ProbeOutcome => ({
  responseTime: 0,
  error,
  hasErrors: true,
  assertions: [],
  detail: { [RESULT_KEY[kind]]: { type: 'PLAYWRIGHT_TEST', errors: [error], ...extra } },
});

/** Whether a script is written against the test runner or drives plain `playwright`. */
export function usesTestRunner(script: string): boolean {
  return /['"]@playwright\/test['"]/.test(script);
}

/**
 * A plain playwright script as a test the runner can run: its imports stay at the top, the
 * rest becomes the body of one async test, so top-level await works as users expect.
 */
export function wrapPlainScript(script: string): string {
  const imports: string[] = [];
  const body = script.replace(/^\s*import\s[^;]*?from\s*['"][^'"]+['"];?[ \t]*$/gm, (line) => {
    imports.push(line.trim());
    return '';
  });
  return `${imports.join('\n')}\nconst { test: __outpostTest } = require('@playwright/test');\n__outpostTest('script', async () => {\ntry {\n${body}\n} finally {\n  await require('playwright').__outpostFlush();\n}\n});\n`;
}

function safeRelative(p: string): string | null {
  const n = path.posix.normalize(p.replace(/\\/g, '/'));
  return n.startsWith('../') || n === '..' || path.posix.isAbsolute(n) ? null : n;
}

function writeFile(root: string, rel: string, content: string): void {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

function configSource(o: {
  userConfig: string | null;
  testMatch: string | null;
  wsEndpoint: string | null;
  chromiumPath: string;
  /** The private-target guard's proxy, when the agent blocks private targets. */
  proxyUrl: string | null;
  timeoutMs: number;
  reportFile: string;
  outputDir: string;
  use: Record<string, unknown>;
}): string {
  const ours = {
    reporter: [['json', { outputFile: o.reportFile }]],
    outputDir: o.outputDir,
    // A test's own limit comes first, so the result names the test that ran out of time; the
    // global one (runner start-up included) is the backstop. Between them: room for teardown,
    // which takes seconds when a page is stuck loading.
    timeout: o.timeoutMs >= 30_000 ? o.timeoutMs - 10_000 : Math.round(o.timeoutMs / 2),
    globalTimeout: o.timeoutMs,
    workers: 1,
    retries: 0,
    forbidOnly: false,
  };
  // The shared browser, or (multi-step checks, which rarely need one) Chromium launched on use.
  // The guard's proxy comes last, so no config of the user's can route around it.
  const proxy = o.proxyUrl ? { proxy: { server: o.proxyUrl, bypass: '<-loopback>' } } : {};
  const browser = o.wsEndpoint
    ? { connectOptions: { wsEndpoint: o.wsEndpoint }, ...proxy }
    : { launchOptions: { executablePath: o.chromiumPath, args: browserFlags(o.proxyUrl) }, ...proxy };
  return `
const user = ${o.userConfig ? `(() => { const m = require(${JSON.stringify(o.userConfig)}); return m && m.default ? m.default : m; })()` : '{}'};
const browser = ${JSON.stringify(browser)};
const use = { ...${JSON.stringify(o.use)}, ...user.use, ...browser };
module.exports = {
  ...user,
  ${o.testMatch ? `testDir: __dirname, testMatch: ${JSON.stringify(o.testMatch)},` : ''}
  ...${JSON.stringify(ours)},
  use,
  projects: user.projects ? user.projects.map((p) => ({ ...p, use: { ...p.use, ...browser } })) : undefined,
};
`;
}

/**
 * The job's folder: module shims, the check's files, and a config that wraps the user's (if
 * any) with the report, the output folder, the time limits and the browser. Returns where
 * things are, or why the check's files cannot be used.
 */
function writeJobFolder(
  kind: SuiteKind,
  code: CheckCode,
  o: { dir: string; modules: string; wsEndpoint: string | null; chromiumPath: string; proxyUrl: string | null; deadline: number },
): { configDir: string; configFile: string; reportFile: string } | string {
  const { dir, modules, wsEndpoint, chromiumPath, proxyUrl, deadline } = o;
  writeFile(dir, 'node_modules/@playwright/test/package.json', '{"name":"@playwright/test","main":"index.js"}');
  writeFile(dir, 'node_modules/@playwright/test/index.js', testShim(path.join(modules, '@playwright', 'test')));
  writeFile(dir, 'node_modules/playwright/package.json', '{"name":"playwright","main":"index.js"}');
  writeFile(
    dir,
    'node_modules/playwright/index.js',
    playwrightShim(
      path.join(modules, 'playwright'),
      wsEndpoint ? { wsEndpoint } : { executablePath: chromiumPath, args: browserFlags(proxyUrl) },
      path.join(dir, 'plain-observations.json'),
      proxyUrl ? { server: proxyUrl, bypass: '<-loopback>' } : null,
    ),
  );
  for (const d of code.dependencies ?? []) {
    const rel = safeRelative(d.path);
    if (!rel || rel.startsWith('node_modules/')) return `dependency path ${JSON.stringify(d.path)} leaves the check's folder`;
    writeFile(dir, rel, d.content);
  }
  let configDir = dir;
  let userConfig: string | null = null;
  let testMatch: string | null = null;
  if (kind === 'PLAYWRIGHT') {
    const rel = safeRelative(code.playwrightConfigPath ?? 'playwright.config.ts');
    if (!rel || !fs.existsSync(path.join(dir, rel)))
      return `the Playwright config ${code.playwrightConfigPath ?? 'playwright.config.ts'} is not among the check's files`;
    userConfig = path.join(dir, rel);
    configDir = path.dirname(userConfig);
  } else {
    const script = code.script ?? '';
    writeFile(dir, 'check.spec.ts', usesTestRunner(script) ? script : wrapPlainScript(script));
    testMatch = 'check.spec.ts';
  }
  const a = code.artifacts ?? {};
  const use = { screenshot: a.screenshot ?? 'on', trace: a.trace ?? 'on', video: a.video ?? 'off' };
  const reportFile = path.join(dir, '.outpost', 'report.json');
  const budget = Math.max(1000, deadline - Date.now() - RUNNER_MARGIN_MS);
  const configFile = path.join(configDir, '.outpost.config.cjs');
  fs.writeFileSync(
    configFile,
    configSource({
      userConfig,
      testMatch,
      wsEndpoint,
      chromiumPath,
      proxyUrl,
      timeoutMs: budget,
      reportFile,
      outputDir: path.join(dir, '.outpost', 'results'),
      use,
    }),
  );
  return { configDir, configFile, reportFile };
}

/**
 * The runtime's test runner, as its own process group (runner and worker stop together), with
 * its output kept up to LOG_LIMIT; killed at the job's deadline or when the agent gives up.
 */
function runTestRunner(
  command: { file: string; args: string[]; uid?: number; gid?: number },
  opts: { cwd: string; env: Record<string, string> },
  ctx: RunContext,
): Promise<{ code: number | null; log: string; killed: boolean }> {
  return new Promise((resolve) => {
    const child = spawnGroup(command, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    let killed = false;
    const take = (d: Buffer) => {
      if (log.length < LOG_LIMIT) log += d.toString('utf8');
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    const kill = () => {
      killed = true;
      killGroup(child);
    };
    const timer = setTimeout(kill, Math.max(1000, ctx.deadline - Date.now()));
    ctx.signal.addEventListener('abort', kill, { once: true });
    child.on('error', (e) => {
      log += `\n${e.message}`;
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', kill);
      resolve({ code, log, killed });
    });
  });
}

export async function runSuite(kind: SuiteKind, job: Job, ctx: RunContext): Promise<ProbeOutcome> {
  const env = ctx.browser;
  const runtimeId = job.runtimeId ?? '';
  if (!env) return failure(kind, `this agent cannot run ${kind} checks: it has no browser environment`);
  if (!env.carried.has(runtimeId)) {
    return failure(
      kind,
      `this agent does not carry runtime ${runtimeId || '(none)'} (it carries ${[...env.carried].join(', ') || 'none'}); the check was not run under another runtime`,
    );
  }
  if (!env.sandbox && env.sandboxRequired)
    return failure(kind, `this agent runs ${kind} checks only in a sandbox (OUTPOST_SANDBOX=required), and ${env.sandboxMissing}`);
  const code = job.check.code ?? {};
  const vars = variableMap(job.variables);
  const modules = runtimeModules(runtimeId, env.runtimesDir);
  // Sandboxed, each job launches a browser of its own inside its sandbox: no browser, and so no
  // DevTools path, is shared with another job. Otherwise the agent's shared browser serves it.
  let wsEndpoint: string | null = null;
  if (env.sandbox) linkFfmpeg(modules, ctx.log);
  else if (kind !== 'MULTI_STEP') {
    try {
      wsEndpoint = await env.servers.endpoint(runtimeId, modules);
    } catch (e) {
      return failure(kind, `the browser could not start: ${plain((e as Error).message).split('\n')[0]}`);
    }
  }

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-job-'));
  env.sandbox?.prepareWorkDir(dir);
  const startTime = Date.now();
  try {
    const proxyUrl = ctx.guard ? await guardProxyUrl(ctx.guard) : null;
    const folder = writeJobFolder(kind, code, {
      dir,
      modules,
      wsEndpoint,
      chromiumPath: env.chromiumPath,
      proxyUrl,
      deadline: ctx.deadline,
    });
    if (typeof folder === 'string') return failure(kind, folder);
    const { configDir, configFile, reportFile } = folder;

    const args = [path.join(modules, '@playwright', 'test', 'cli.js'), 'test', '-c', configFile];
    for (const p of code.pwProjects ?? []) args.push('--project', p);
    if (code.pwTags?.length) args.push('--grep', code.pwTags.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));
    const childEnv: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      TMPDIR: os.tmpdir(),
      NODE_PATH: modules, // the runtime's packages, and only those
      CI: '1',
      FORCE_COLOR: '0',
      PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
    };
    const browsersPath = process.env.PLAYWRIGHT_BROWSERS_PATH;
    if (browsersPath) childEnv.PLAYWRIGHT_BROWSERS_PATH = browsersPath; // ffmpeg, for videos
    for (const v of vars.values()) childEnv[v.key] = v.value;

    const argv = [process.execPath, ...args];
    // The runtime's packages where they really are (a runtimes folder may link them from elsewhere).
    const readOnly = [...new Set([env.runtimesDir, fs.realpathSync(modules), ...(browsersPath ? [browsersPath] : [])])];
    const command = env.sandbox ? env.sandbox.command(argv, { workDir: dir, cwd: configDir, readOnly }) : { file: process.execPath, args };
    const run = await runTestRunner(command, { cwd: configDir, env: childEnv }, ctx);
    const endTime = Date.now();
    const jobLog = maskSecrets(plain(run.log), vars)
      .split('\n')
      .filter((l) => l.trim())
      .slice(-200);

    let report: RawReport | null = null;
    try {
      report = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as RawReport;
    } catch {
      /* no report: the runner died or never started */
    }
    if (!report) {
      const why = run.killed
        ? `the run was stopped at its time limit (${Math.round((ctx.deadline - startTime) / 1000)} s)`
        : `the test runner exited with code ${run.code} before reporting: ${jobLog.slice(-3).join(' / ') || 'no output'}`;
      return failure(kind, maskSecrets(why, vars), { startTime, endTime, runtimeVersion: runtimeId, jobLog });
    }
    const tests = testsOf(report);
    let error = firstError(tests, report);
    if (!error && tests.length === 0) error = 'no tests ran (check the projects, tags and test files of the check)';
    if (!error && run.killed) error = `the run was stopped at its time limit`;

    // Artifacts: uploaded one after another as streams, so the agent's memory stays flat.
    const links: (ArtifactLink & { kind: string; test: string; uploadMs: number })[] = [];
    const uploadErrors: string[] = [];
    const upload = async (file: string, name: string, contentType: string, kindOf: string, test: string) => {
      if (!env.upload || !fs.existsSync(file)) return;
      const t0 = Date.now();
      const r = await env.upload(job, file, name, contentType).catch((e: Error) => ({ error: `upload failed: ${e.message}` }));
      if ('error' in r) uploadErrors.push(`${name}: ${r.error}`);
      else links.push({ ...r, kind: kindOf, test, uploadMs: Date.now() - t0 });
    };
    const observations: Record<string, unknown>[] = [];
    for (const t of tests) {
      for (const att of t.attachments) {
        if (att.name === 'outpost-observations' && att.body) {
          try {
            observations.push(JSON.parse(Buffer.from(att.body, 'base64').toString('utf8')));
          } catch {
            /* ignore */
          }
        } else if (att.path) {
          const kindOf =
            att.name === 'trace' ? 'trace' : att.name === 'video' ? 'video' : att.contentType.startsWith('image/') ? 'screenshot' : 'file';
          await upload(
            att.path,
            `${kindOf === 'file' ? att.name : kindOf}-${links.length + 1}${path.extname(att.path)}`,
            att.contentType,
            kindOf,
            t.title,
          );
        }
      }
    }
    try {
      observations.push(...(JSON.parse(fs.readFileSync(path.join(dir, 'plain-observations.json'), 'utf8')) as Record<string, unknown>[]));
    } catch {
      /* a test-runner script, or none recorded */
    }
    // The report quotes errors and logs verbatim: it leaves the agent with secrets masked.
    fs.writeFileSync(reportFile, maskSecrets(fs.readFileSync(reportFile, 'utf8'), vars));
    await upload(reportFile, 'report.json', 'application/json', 'report', '');

    const consoleLog = observations.flatMap((o) => (o.console as unknown[]) ?? []);
    const networkLog = observations.flatMap((o) => (o.network as { status: number | null; failed: boolean }[]) ?? []);
    const pageErrors = observations.flatMap((o) => (o.pageErrors as unknown[]) ?? []);
    const pages = observations.flatMap((o) => (o.pages as unknown[]) ?? []);
    const responseTime = tests.reduce((s, t) => s + t.duration, 0);
    const url = (k: string) => links.filter((l) => l.kind === k).map((l) => l.url);
    const result = maskDeep(
      {
        type: 'PLAYWRIGHT_TEST',
        runtimeVersion: runtimeId,
        startTime,
        endTime,
        errors: tests.flatMap((t) => t.errors.map((e) => ({ test: t.title, message: e }))),
        artifactErrors: uploadErrors,
        traceSummary: {
          consoleErrors: consoleLog.filter((c) => (c as { level: string }).level === 'error').length,
          networkErrors: networkLog.filter((n) => n.failed || (n.status ?? 0) >= 400).length,
          documentErrors: pageErrors.length,
          userScriptErrors: tests.filter((t) => t.status !== 'passed' && t.status !== 'skipped').length,
        },
        pages,
        consoleLog,
        networkLog,
        tests: tests.map(({ attachments: _a, ...t }) => t),
        ...(kind === 'MULTI_STEP' ? { steps: tests.flatMap((t) => t.steps) } : {}),
        jobLog,
        jobAssets: links.map(({ kind: k, test, ...l }) => ({ ...l, kind: k, test })),
        screenshots: url('screenshot'),
        playwrightTestTraces: url('trace'),
        playwrightTestVideos: url('video'),
        playwrightTestJsonReportFile: url('report')[0] ?? null,
        ...(kind === 'PLAYWRIGHT'
          ? { playwrightTraceFiles: links.filter((l) => l.kind === 'trace').map((l) => ({ url: l.url, name: l.test, filename: l.name })) }
          : {}),
      },
      vars,
    );
    return {
      responseTime,
      error: error ? maskSecrets(error, vars) : null,
      assertions: [],
      detail: { [RESULT_KEY[kind]]: result },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export type { TestOutcome };
