// Reading configuration from the environment: every bad value is refused at start, naming the variable.

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

export function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

export function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  }
  return n;
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T, caseInsensitive = true): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const hit = allowed.find((a) => (caseInsensitive ? a.toLowerCase() === raw.toLowerCase() : a === raw));
  if (!hit) throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got ${JSON.stringify(raw)})`);
  return hit;
}

export function url(env: Env, name: string, fallback: string, protocols: string[] = ['http:', 'https:']): string {
  const v = str(env, name, fallback);
  try {
    const u = new URL(v);
    if (!protocols.includes(u.protocol)) throw new Error();
  } catch {
    // The value is not repeated: it may hold credentials.
    throw new ConfigError(`${name} must be a ${protocols.map((p) => `${p}//`).join(' or ')} URL`);
  }
  return v.replace(/\/+$/, '');
}
