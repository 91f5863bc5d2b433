import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger, prettyLine } from '../../src/log.js';

const CLI = path.resolve('dist/cli.js');

/** Starts the agent against a port nothing listens on and collects its standard output. */
function agentOutput(env: Record<string, string>, until: RegExp): Promise<string> {
  const child = spawn(process.execPath, [CLI, 'agent'], {
    env: {
      PATH: process.env.PATH ?? '',
      API_KEY: 'pl_secret_key_value_0123',
      OUTPOST_URL: 'http://127.0.0.1:9',
      AGENT_HEALTH_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      if (until.test(out)) {
        child.kill('SIGTERM');
        resolve(out);
      }
    });
    child.on('exit', () => resolve(out));
    child.on('error', reject);
  });
}

describe('logs', () => {
  it('renders a JSON line as level, logger, message and fields, with an error stack below', () => {
    const line = JSON.stringify({
      level: 40,
      time: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
      pid: 1,
      name: 'outpost-agent',
      msg: 'could not deliver results',
      count: 3,
      reason: 'connection refused',
      err: { message: 'boom', stack: 'Error: boom\n    at x' },
    });
    expect(prettyLine(line)).toBe(
      '03:04:05.678 WARN  outpost-agent: could not deliver results count=3 reason="connection refused"\n  Error: boom\n      at x\n',
    );
    expect(prettyLine('not json')).toBe('not json\n');
  });

  it('redacts secrets in readable lines as in JSON ones', () => {
    const lines: string[] = [];
    const log = createLogger('test', 'INFO', { write: (l: string) => lines.push(prettyLine(l)) });
    log.info({ apiKey: 'op_very_secret', headers: { authorization: 'Bearer op_very_secret' } }, 'hello');
    expect(lines.join('')).toContain('hello');
    expect(lines.join('')).not.toContain('op_very_secret');
  });

  it('writes readable lines with LOG_FORMAT=pretty and JSON lines with LOG_FORMAT=json', async () => {
    const pretty = await agentOutput({ LOG_FORMAT: 'pretty' }, /health server listening.*\n/);
    expect(pretty).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}outpost-agent: health server listening port=\d+$/m);
    expect(pretty).not.toContain('{"level"');
    const json = await agentOutput({ LOG_FORMAT: 'json' }, /health server listening.*\n/);
    const first = JSON.parse(json.split('\n')[0]);
    expect(first).toMatchObject({ level: 30, name: 'outpost-agent' });
    for (const out of [pretty, json]) expect(out).not.toContain('pl_secret_key_value_0123');
  });

  it('refuses an unknown LOG_FORMAT at start, naming the variable', async () => {
    const child = spawn(process.execPath, [CLI, 'agent'], {
      env: { PATH: process.env.PATH ?? '', API_KEY: 'pl_x', LOG_FORMAT: 'xml' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).not.toBe(0);
    expect(err).toContain('LOG_FORMAT must be one of auto, json, pretty');
  });
});
