// Which addresses a check may reach when an agent blocks private targets: an opt-in guard
// against server-side request forgery (a check, or a redirect it follows, aimed at the agent's
// own host, its cloud metadata service or the private network it sits in). Checked on the
// address a name resolved to, so a public name pointing at 127.0.0.1 does not slip through.
import net from 'node:net';

/** Loopback, link-local, private, shared, multicast, documentation and reserved ranges. */
const BLOCKED: readonly (readonly [string, number, 'ipv4' | 'ipv6'])[] = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.0.2.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['::', 96, 'ipv6'], // unspecified, loopback and the old IPv4-compatible form
  ['64:ff9b:1::', 48, 'ipv6'],
  ['100::', 64, 'ipv6'],
  ['2001:db8::', 32, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['fec0::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

/** Parses `a.b.c.d/n` or `v6::/n` (a bare address is a single host); null when it is neither. */
export function parseCidr(text: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [address = '', bits] = text.trim().split('/');
  const v = net.isIP(address);
  if (v === 0) return null;
  const max = v === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
  if (!(prefix >= 0 && prefix <= max)) return null;
  return { address, prefix, family: v === 4 ? 'ipv4' : 'ipv6' };
}

export class TargetGuard {
  private readonly blocked = new net.BlockList();
  private readonly allowed = new net.BlockList();

  /** `allowed`: CIDRs reachable even though private (e.g. the one internal network to watch). */
  constructor(allowed: readonly string[] = []) {
    for (const [address, prefix, family] of BLOCKED) this.blocked.addSubnet(address, prefix, family);
    for (const c of allowed) {
      const r = parseCidr(c);
      if (!r) throw new Error(`not an address or CIDR range: ${c}`);
      this.allowed.addSubnet(r.address, r.prefix, r.family);
    }
  }

  /** True when a check must not reach this address. */
  refuses(address: string): boolean {
    const v = net.isIP(address);
    if (v === 0) return true;
    const family = v === 4 ? 'ipv4' : 'ipv6';
    return this.blocked.check(address, family) && !this.allowed.check(address, family);
  }
}
