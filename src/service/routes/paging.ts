// Lists paged by cursor, as status-page resources are: `nextId` names the first item of the page.

import { ApiError } from '../errors.js';

/** The page starting at `nextId` (the first page without one); an unknown cursor is a 400. */
export function cursorPage<T extends { id: string }>(all: T[], limit: number, nextId: string | undefined, what: string) {
  const from = nextId === undefined ? 0 : all.findIndex((x) => x.id === nextId);
  if (from < 0) throw new ApiError(400, `nextId names no ${what}: ${nextId}`, { field: 'nextId', rule: 'cursor' });
  return { page: all.slice(from, from + limit), nextId: all[from + limit]?.id ?? null };
}
