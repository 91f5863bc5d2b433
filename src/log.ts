// One logger factory for service and agent: JSON lines, secrets redacted wherever they appear.
import pino from 'pino';

export const LOG_LEVELS = ['DEBUG', 'LOG', 'INFO', 'WARN', 'ERROR'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const REDACT = [
  'apiKey', 'key', 'rawKey', 'token', 'password', 'proxyUrl', 'authorization',
  '*.apiKey', '*.key', '*.rawKey', '*.token', '*.password', '*.proxyUrl', '*.authorization',
  'req.headers.authorization', 'headers.authorization',
];

export function createLogger(name: string, level: LogLevel = 'INFO', destination?: pino.DestinationStream) {
  return pino(
    {
      name,
      // LOG sits between DEBUG and INFO, as in the private-location agent's documented levels.
      customLevels: { log: 25 },
      level: level === 'LOG' ? 'log' : level.toLowerCase(),
      redact: { paths: REDACT, censor: '[redacted]' },
      base: { pid: process.pid },
    },
    destination,
  );
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
