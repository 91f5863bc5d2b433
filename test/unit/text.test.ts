import { describe, expect, it } from 'vitest';
import { unstorableTextAt } from '../../src/domain/text.js';

describe('unstorable text', () => {
  it('finds NUL characters and unpaired surrogates, naming where they are', () => {
    expect(unstorableTextAt({ name: 'a\u0000b' })).toBe('name');
    expect(
      unstorableTextAt({
        request: {
          headers: [
            { key: 'x', value: 'ok' },
            { key: 'y', value: '\ud800' },
          ],
        },
      }),
    ).toBe('request.headers[1].value');
    expect(unstorableTextAt({ tags: ['\udc00x'] })).toBe('tags[0]');
    expect(unstorableTextAt({ ['bad\u0000key']: 1 })).toBe('bad\u0000key');
    expect(unstorableTextAt('\u0000', 'params.id')).toBe('params.id');
  });

  it('lets paired surrogates (emoji), other control characters and non-strings through', () => {
    expect(unstorableTextAt({ name: 'deploy 🚀', note: 'tab\tand\nnewline', n: 0, ok: true, none: null })).toBeNull();
  });
});
