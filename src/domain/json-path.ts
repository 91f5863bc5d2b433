// JSONPath for JSON_BODY and JSON_ANSWER assertions (`$.Answer[0].data`, `$.items[*].id`).

import { JSONPath } from 'jsonpath-plus';
import type { Actual } from './assertions.js';

/** The value at `path` (a single match) or the list of matches; null when nothing matches. */
export function jsonPath(doc: unknown, path: string): Actual {
  if (!path || path === '$') return doc as Actual;
  const expr = path.startsWith('$') ? path : `$.${path}`;
  const found = JSONPath({ path: expr, json: doc as object, wrap: true, eval: false }) as Actual[];
  if (!found || found.length === 0) return null;
  return found.length === 1 ? found[0] : found;
}
