// Strings a database cannot store as text: NUL characters, and UTF-16 surrogates without their
// pair (JSON can carry both as \u escapes). Pure.

const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The path (`name`, `request.headers[0]`) of the first unstorable string in value, or null. */
export function unstorableTextAt(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = unstorableTextAt(value[i], `${path}[${i}]`);
      if (hit !== null) return hit;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const at = path ? `${path}.${k}` : k;
      if (UNSTORABLE.test(k)) return at;
      const hit = unstorableTextAt(v, at);
      if (hit !== null) return hit;
    }
  }
  return null;
}
