import { describe, it, expect } from 'vitest';
import { TargetGuard, parseCidr } from '../../src/domain/target-guard.js';
import { agentConfig } from '../../src/agent/config.js';

describe('target guard', () => {
  const guard = new TargetGuard();
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254', // cloud metadata
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    '::ffff:127.0.0.1', // IPv4-mapped loopback
    '::ffff:a9fe:a9fe', // IPv4-mapped metadata address, in hex
    'fe80::1',
    'fd00::1',
    'ff02::1',
  ])('refuses %s', (address) => {
    expect(guard.refuses(address)).toBe(true);
  });
  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])('lets %s through', (address) => {
    expect(guard.refuses(address)).toBe(false);
  });
  it('refuses what is not an address at all', () => {
    expect(guard.refuses('localhost')).toBe(true);
  });
  it('lets allowed ranges through and nothing else of the private ones', () => {
    const g = new TargetGuard(['10.1.0.0/16', 'fd00::1']);
    expect(g.refuses('10.1.200.3')).toBe(false);
    expect(g.refuses('10.2.0.1')).toBe(true);
    expect(g.refuses('fd00::1')).toBe(false);
    expect(g.refuses('fd00::2')).toBe(true);
  });
  it('reads CIDR ranges and bare addresses, and nothing else', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    expect(parseCidr('::1')).toEqual({ address: '::1', prefix: 128, family: 'ipv6' });
    for (const bad of ['10.0.0.0/33', 'fd00::/129', 'example.com', '10.0.0.0/x', '']) expect(parseCidr(bad)).toBeNull();
  });
  it('is configured on the agent, a bad range stopping it with the variable named', () => {
    const cfg = agentConfig({
      API_KEY: 'k',
      OUTPOST_BLOCK_PRIVATE_TARGETS: 'true',
      OUTPOST_PRIVATE_TARGETS_ALLOWED: '10.1.0.0/16, fd00::/8',
    });
    expect(cfg).toMatchObject({ blockPrivateTargets: true, privateTargetsAllowed: ['10.1.0.0/16', 'fd00::/8'] });
    expect(agentConfig({ API_KEY: 'k' }).blockPrivateTargets).toBe(false);
    expect(() => agentConfig({ API_KEY: 'k', OUTPOST_PRIVATE_TARGETS_ALLOWED: 'intranet' })).toThrow(
      /OUTPOST_PRIVATE_TARGETS_ALLOWED must list/,
    );
  });
});
