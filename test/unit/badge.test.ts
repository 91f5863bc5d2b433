import { describe, it, expect } from 'vitest';
import { badgeSvg, stateOf, worstState } from '../../src/domain/badge.js';

describe('status badges', () => {
  it('say the state in its colour, with the name, escaped', () => {
    const svg = badgeSvg({ label: 'API <prod> & "eu"', state: 'failing' });
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain('fill="#cf222e"');
    expect(svg).toContain('API &#60;prod&#62; &#38; &#34;eu&#34;');
    expect(svg).not.toContain('<prod>');
    expect(svg).toContain('aria-label="API &#60;prod&#62; &#38; &#34;eu&#34;: failing"');
    expect(badgeSvg({ label: 'x', state: 'passing', detail: '123 ms' })).toContain('>passing | 123 ms<');
  });
  it('grow with their text, and take the style and theme asked for', () => {
    const width = (svg: string) => Number(/width="(\d+)"/.exec(svg)![1]);
    expect(width(badgeSvg({ label: 'a much longer check name', state: 'passing' }))).toBeGreaterThan(
      width(badgeSvg({ label: 'short', state: 'passing' })),
    );
    expect(badgeSvg({ label: 'x', state: 'passing', style: 'for-the-badge' })).toContain('>PASSING<');
    expect(badgeSvg({ label: 'x', state: 'passing', style: 'flat-square' })).toContain('rx="0"');
    expect(badgeSvg({ label: 'x', state: 'passing', theme: 'light' })).toContain('fill="#eaeef2"');
  });
  it('a check is inactive, unknown before its first run, else as its status says; a group is its worst member', () => {
    expect(stateOf({ activated: false, status: { hasFailures: true, isDegraded: false } })).toBe('inactive');
    expect(stateOf({ activated: true, status: null })).toBe('unknown');
    expect(stateOf({ activated: true, status: { hasFailures: false, isDegraded: true } })).toBe('degraded');
    expect(worstState(['passing', 'degraded', 'inactive'])).toBe('degraded');
    expect(worstState(['passing', 'failing'])).toBe('failing');
    expect(worstState([])).toBe('unknown');
  });
});
