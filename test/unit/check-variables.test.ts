// A check's own secret variables: shown without their values, kept when sent back as null.

import { describe, expect, it } from 'vitest';
import { resolveVariables, showVariables } from '../../src/domain/check-variables.js';

describe('check variables', () => {
  const stored = [
    { key: 'TOKEN', value: 'tok', secret: true },
    { key: 'PLAIN', value: 'p' },
  ];
  it('shows secrets without their values', () => {
    expect(showVariables(stored)).toEqual([
      { key: 'TOKEN', value: null, secret: true },
      { key: 'PLAIN', value: 'p' },
    ]);
  });
  it('keeps a stored secret sent back as null, takes new values as given', () => {
    expect(
      resolveVariables(
        [
          { key: 'TOKEN', value: null, secret: true },
          { key: 'PLAIN', value: 'q' },
        ],
        stored,
      ),
    ).toEqual({
      vars: [
        { key: 'TOKEN', value: 'tok', secret: true },
        { key: 'PLAIN', value: 'q' },
      ],
    });
    expect(resolveVariables([{ key: 'TOKEN', value: 'new', secret: true }], stored).vars).toEqual([
      { key: 'TOKEN', value: 'new', secret: true },
    ]);
  });
  it('names a variable left without a value: a new key, or one that was not a secret', () => {
    expect(resolveVariables([{ key: 'OTHER', value: null, secret: true }], stored).missing).toBe('OTHER');
    expect(resolveVariables([{ key: 'PLAIN', value: null }], stored).missing).toBe('PLAIN');
    expect(resolveVariables([{ key: 'TOKEN', value: null, secret: true }], null).missing).toBe('TOKEN');
  });
});
