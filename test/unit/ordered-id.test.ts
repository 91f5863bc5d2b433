// Ids of results and checks: UUIDs that sort in the order they were made, so the store appends
// to their index.

import { describe, it, expect } from 'vitest';
import { newOrderedId } from '../../src/service/secrets.js';

describe('ordered ids', () => {
  it('are version-7 UUIDs that begin with the time they were made', () => {
    const t = Date.parse('2026-11-23T22:00:00Z');
    const id = newOrderedId(t);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(t);
  });

  it('sort as text in the order of their times, whatever their random part', () => {
    const times = Array.from({ length: 200 }, (_, i) => 1_700_000_000_000 + i * 37);
    const ids = times.map((t) => newOrderedId(t));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids.map((id) => id.slice(-12))).size).toBe(200);
  });
});
