import { describe, expect, it } from 'vitest';
import { fill, maskDeep, maskSecrets, variableMap } from '../../src/domain/placeholders.js';

const vars = variableMap([
  { key: 'HOST', value: 'api.example.test', secret: false },
  { key: 'TOKEN', value: 'S3cr3t&Tok en/+', secret: true },
  { key: 'TENANT', value: 'AcmeTenant', secret: true },
]);

describe('placeholders', () => {
  it('fills known keys, later scopes winning, and leaves unknown ones as written', () => {
    const scoped = variableMap([
      { key: 'A', value: 'account', secret: false },
      { key: 'A', value: 'check', secret: false },
    ]);
    expect(fill('{{ A }}/{{B}}', scoped)).toBe('check/{{B}}');
  });
});

describe('secret masking', () => {
  it('masks a secret as written and leaves other values alone', () => {
    expect(maskSecrets('Bearer S3cr3t&Tok en/+ for api.example.test', vars)).toBe('Bearer ***** for api.example.test');
  });

  it('masks URL-encoded and form-encoded forms of a secret', () => {
    const url = new URL('https://api.example.test/x');
    url.searchParams.set('token', 'S3cr3t&Tok en/+');
    expect(maskSecrets(url.toString(), vars)).toBe('https://api.example.test/x?token=*****');
    expect(maskSecrets(`/path/${encodeURIComponent('S3cr3t&Tok en/+')}`, vars)).toBe('/path/*****');
    expect(maskSecrets(`https://h/${encodeURI('S3cr3t&Tok en/+')}`, vars)).toBe('https://h/*****');
  });

  it('masks case-folded forms (host names are lowercased on the way)', () => {
    expect(maskSecrets('getaddrinfo ENOTFOUND acmetenant.example.test', vars)).toBe('getaddrinfo ENOTFOUND *****.example.test');
    expect(maskSecrets('X-TENANT: ACMETENANT', vars)).toBe('X-TENANT: *****');
  });

  it('masks through every string of a nested value, keys and numbers untouched', () => {
    const result = maskDeep({ headers: { authorization: 'S3cr3t&Tok en/+' }, list: ['a AcmeTenant b', 3], n: 7 }, vars);
    expect(result).toEqual({ headers: { authorization: '*****' }, list: ['a ***** b', 3], n: 7 });
  });

  it('masks nothing when no variable is secret', () => {
    const plain = variableMap([{ key: 'A', value: 'visible', secret: false }]);
    const value = { a: 'visible' };
    expect(maskDeep(value, plain)).toBe(value);
    expect(maskSecrets('visible', plain)).toBe('visible');
  });
});
