// One logger factory for service and agent: JSON lines for machines, readable lines on a terminal,
// secrets redacted wherever they appear (redaction happens before either form is written).
import pino from 'pino';

export const LOG_LEVELS = ['DEBUG', 'LOG', 'INFO', 'WARN', 'ERROR'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `auto`: readable lines when standard output is a terminal, JSON lines otherwise. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

const REDACT = [
  'apiKey',
  'key',
  'rawKey',
  'token',
  'password',
  'proxyUrl',
  'authorization',
  '*.apiKey',
  '*.key',
  '*.rawKey',
  '*.token',
  '*.password',
  '*.proxyUrl',
  '*.authorization',
  'req.headers.authorization',
  'headers.authorization',
];

export function createLogger(name: string, level: LogLevel = 'INFO', format: LogFormat | pino.DestinationStream = 'json') {
  return pino(
    {
      name,
      // LOG sits between DEBUG and INFO, as in the private-location agent's documented levels.
      customLevels: { log: 25 },
      level: level === 'LOG' ? 'log' : level.toLowerCase(),
      redact: { paths: REDACT, censor: '[redacted]' },
      base: { pid: process.pid },
    },
    typeof format === 'object' ? format : destinationFor(format),
  );
}

function destinationFor(format: LogFormat): pino.DestinationStream {
  const out = pino.destination({ dest: 1, sync: true });
  const pretty = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
  return pretty ? { write: (line: string) => out.write(prettyLine(line)) } : out;
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 25: 'LOG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const OMITTED = new Set(['time', 'level', 'name', 'msg', 'pid', 'hostname', 'err']);

/** One JSON log line as a person reads it: `12:00:01.234 INFO  outpost-agent: msg key=value`. */
export function prettyLine(json: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(json);
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const time = typeof rec.time === 'number' ? new Date(rec.time).toISOString().slice(11, 23) : '';
  const level = (LEVEL_NAMES[rec.level as number] ?? String(rec.level)).padEnd(5);
  const fields = Object.entries(rec)
    .filter(([k]) => !OMITTED.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' && !/[\s"=]/.test(v) ? v : JSON.stringify(v)}`);
  const err = rec.err as { stack?: string; message?: string } | undefined;
  const tail = err ? `\n  ${(err.stack ?? err.message ?? '').split('\n').join('\n  ')}` : '';
  return `${time} ${level} ${rec.name ?? ''}: ${rec.msg ?? ''}${fields.length ? ` ${fields.join(' ')}` : ''}${tail}\n`;
}

export type Logger = ReturnType<typeof createLogger>;

/** Removes credentials from a URL before it is logged or shown. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      u.username = u.username ? '[redacted]' : '';
      u.password = '';
    }
    return u.toString();
  } catch {
    return '[invalid url]';
  }
}
