// API check: one HTTP request of any method with headers, query and body, judged by assertions
// on status, headers, JSON and text body, and response time.

import { describeFailure, type Assertion, type Actual } from '../domain/assertions.js';
import { assess, InDocument } from './assess.js';
import { fill, maskSecrets, maskDeep, variableMap } from '../domain/placeholders.js';
import type { Variable } from '../domain/run.js';
import { runScript, type ScriptPlace } from './script-sandbox.js';
import { runtimeModules, DEFAULT_RUNTIMES_DIR } from '../runtimes/catalog.js';
import { DEFAULT_RUNTIME_ID } from '../domain/limits.js';
import { timedRequest, transportOf, responseView, exchangeFailure } from './http.js';
import { syntheticHeaders } from './synthetic.js';
import type { CheckRunner } from './types.js';
import type { ApiRequest } from '../domain/check-types/api.js';

interface KeyValue {
  key: string;
  value: string;
}

/** The request as sent: after a setup script, whose method may be any. */
type Exchange = Omit<ApiRequest, 'method'> & { method: string };

const CONTENT_TYPES: Record<string, string> = {
  JSON: 'application/json',
  GRAPHQL: 'application/json',
  FORM: 'application/x-www-form-urlencoded',
};
/** Kept for assertions; the result stores at most RESULT_BODY_BYTES of it. */
const BODY_BYTES = 1024 * 1024;
const RESULT_BODY_BYTES = 64 * 1024;

const SCRIPT_TIMEOUT_MS = 10_000;

interface ScriptRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  queryParameters: KeyValue[];
  body: string;
}

export const runApi: CheckRunner<ApiRequest> = async (job, ctx) => {
  // A setup script may set any method; the exchange sends what it is given.
  let req: Exchange = job.check.request;
  const vars = variableMap(job.variables);
  const environment = Object.fromEntries([...vars].map(([k, v]) => [k, v.value]));
  const scriptTimeout = () => Math.max(100, Math.min(SCRIPT_TIMEOUT_MS, ctx.deadline - Date.now()));
  const logs: string[] = [];
  // Scripts run under the check's runtime: its packages are the ones they may require.
  const code = ctx.browser;
  const place: ScriptPlace = {
    modules: runtimeModules(job.runtimeId ?? DEFAULT_RUNTIME_ID, code?.runtimesDir ?? DEFAULT_RUNTIMES_DIR),
    sandbox: code?.sandbox ?? null,
  };
  if ((job.setupScript || job.tearDownScript) && code?.sandboxRequired && !code.sandbox)
    return scriptFailure(
      `the check's scripts were not run: this agent runs them only in a sandbox (OUTPOST_SANDBOX=required), and ${code.sandboxMissing}`,
      [],
      vars,
    );
  if (job.setupScript) {
    // The setup script may change the request; it runs on the request as configured, placeholders filled.
    const before: ScriptRequest = {
      method: req.method,
      url: fill(req.url, vars),
      headers: Object.fromEntries((req.headers ?? []).map((h) => [fill(h.key, vars), fill(h.value, vars)])),
      queryParameters: (req.queryParameters ?? []).map((q) => ({ key: fill(q.key, vars), value: fill(q.value, vars) })),
      body: fill(req.body ?? '', vars),
    };
    const out = await runScript(job.setupScript, { request: before, response: null, variables: environment }, scriptTimeout(), place);
    logs.push(...out.logs);
    if (out.error) return scriptFailure(`setup failed: ${out.error}`, logs, vars);
    const after = out.request as Partial<ScriptRequest> | null;
    req = {
      ...req,
      method: typeof after?.method === 'string' ? after.method.toUpperCase() : before.method,
      url: typeof after?.url === 'string' ? after.url : before.url,
      headers: Object.entries(after?.headers && typeof after.headers === 'object' ? after.headers : before.headers).map(([key, value]) => ({
        key,
        value: String(value),
      })),
      queryParameters: Array.isArray(after?.queryParameters)
        ? after.queryParameters.map((q) => ({ key: String(q.key), value: String(q.value) }))
        : before.queryParameters,
      body: typeof after?.body === 'string' ? after.body : before.body,
    };
  }
  const outcome = await exchange(job, ctx, req, vars);
  if (job.tearDownScript && outcome.detail.apiCheckResult) {
    const response = (outcome.detail.apiCheckResult as { response: unknown }).response;
    const out = await runScript(
      job.tearDownScript,
      { request: (outcome.detail.apiCheckResult as { request: unknown }).request, response, variables: environment },
      scriptTimeout(),
      place,
    );
    logs.push(...out.logs);
    if (out.error && !outcome.error) outcome.error = maskSecrets(`teardown failed: ${out.error}`, vars);
  }
  if (logs.length) (outcome.detail.apiCheckResult as Record<string, unknown>).jobLog = { scripts: maskDeep(logs, vars) };
  return outcome;
};

function scriptFailure(message: string, logs: string[], vars: Map<string, Variable>) {
  const error = maskSecrets(message, vars);
  return {
    responseTime: 0,
    error,
    assertions: [],
    detail: {
      apiCheckResult: {
        assertions: [],
        request: null,
        response: null,
        tls: null,
        requestError: error,
        jobLog: { scripts: maskDeep(logs, vars) },
      },
    },
  };
}

async function exchange(job: Parameters<CheckRunner>[0], ctx: Parameters<CheckRunner>[1], req: Exchange, vars: Map<string, Variable>) {
  const url = new URL(fill(req.url, vars));
  for (const q of req.queryParameters ?? []) url.searchParams.append(fill(q.key, vars), fill(q.value, vars));
  const headers: Record<string, string> = { ...syntheticHeaders(job) };
  const bodyType = req.bodyType ?? 'NONE';
  if (CONTENT_TYPES[bodyType]) headers['content-type'] = CONTENT_TYPES[bodyType];
  if (req.basicAuth?.username) {
    const user = fill(req.basicAuth.username, vars);
    const pass = fill(req.basicAuth.password ?? '', vars);
    headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  }
  for (const h of req.headers ?? []) headers[fill(h.key, vars).toLowerCase()] = fill(h.value, vars);
  const body = bodyType === 'NONE' || req.method === 'GET' || req.method === 'HEAD' ? null : fill(req.body ?? '', vars);

  // What the result shows of the request: secrets masked, credentials too.
  const shownHeaders = Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k, k === 'authorization' ? '*****' : maskSecrets(v, vars)]),
  );
  const request = {
    method: req.method,
    url: maskSecrets(url.toString(), vars),
    data: body === null ? null : maskSecrets(body, vars),
    headers: shownHeaders,
    params: Object.fromEntries([...url.searchParams].map(([k, v]) => [k, maskSecrets(v, vars)])),
  };
  try {
    const res = await timedRequest({
      url: url.toString(),
      method: req.method,
      headers,
      body,
      transport: transportOf(req, ctx),
      keepBodyBytes: BODY_BYTES,
      proxyUrl: job.proxyUrl ?? null,
    });
    let parsed: unknown;
    let parseError: string | null = null;
    const json = (): unknown => {
      if (parsed === undefined && parseError === null) {
        try {
          parsed = JSON.parse(res.body);
        } catch (err) {
          parseError = (err as Error).message;
        }
      }
      if (parseError !== null) throw new Error(`the body is not JSON (${parseError})`);
      return parsed;
    };
    const assertions = (req.assertions ?? []).map((a): Assertion => ({
      source: a.source,
      comparison: a.comparison,
      property: fill(a.property ?? '', vars),
      target: fill(String(a.target ?? ''), vars),
      regex: a.regex ?? null,
    }));
    const outcomes = await assess(assertions, (a): Actual | InDocument => {
      switch (a.source) {
        case 'STATUS_CODE':
          return res.status;
        case 'RESPONSE_TIME':
          return Math.round(res.timingPhases.total);
        case 'TEXT_BODY':
          return res.body;
        case 'JSON_BODY':
          return new InDocument(json(), a.property ?? '');
        case 'HEADERS':
          return a.property ? (res.headers[a.property.toLowerCase()] ?? null) : (res.headers as unknown as Actual);
        default:
          throw new Error(`unknown assertion source ${a.source}`);
      }
    });
    // Assertions may have compared against a secret: what is reported carries none.
    const shown = maskDeep(outcomes, vars);
    const failed = shown.find((o) => !o.passed);
    const error = failed ? describeFailure(failed) + (failed.error ? `: ${failed.error}` : '') : null;
    return {
      responseTime: Math.round(res.timingPhases.total),
      error,
      assertions: shown,
      detail: {
        apiCheckResult: {
          assertions: shown,
          request,
          response: responseView(res, res.body.slice(0, RESULT_BODY_BYTES), (v) => maskDeep(v, vars)),
          tls: res.tls,
          requestError: null,
        },
      },
    };
  } catch (err) {
    return exchangeFailure(err, request, ctx.deadline - job.timeoutMs, (m) => maskSecrets(m, vars));
  }
}
