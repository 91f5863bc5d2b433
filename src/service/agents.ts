// Which agents are connected, as seen by their requests. In memory: a restarted service learns
// them again from their next poll, which comes within one poll interval.

export interface AgentInfo {
  id: string;
  version: string;
  profile: string;
  runtimes: string[];
  /** null for the built-in agent that serves data-center locations. */
  privateLocationId: string | null;
  lastSeenAt: number;
}

export interface KeyGrant {
  keyId: string;
  privateLocationId: string;
  accountId: string;
  slugName: string;
  proxyUrl: string | null;
}

const KEY_CACHE_MS = 60_000;

export class AgentRegistry {
  private agents = new Map<string, AgentInfo>();
  /** Key hash → what it opens. Every agent request is authenticated; most need no query. */
  private grants = new Map<string, { grant: KeyGrant; at: number }>();

  cachedGrant(keyHash: string): KeyGrant | undefined {
    const hit = this.grants.get(keyHash);
    if (hit && Date.now() - hit.at < KEY_CACHE_MS) return hit.grant;
    this.grants.delete(keyHash);
    return undefined;
  }

  cacheGrant(keyHash: string, grant: KeyGrant): void {
    if (this.grants.size > 10_000) this.grants.clear();
    this.grants.set(keyHash, { grant, at: Date.now() });
  }

  /** A revoked key, or a deleted location, is refused from the next request on. */
  forgetGrants(pred: (g: KeyGrant) => boolean): void {
    for (const [hash, { grant }] of this.grants) if (pred(grant)) this.grants.delete(hash);
  }

  constructor(private connectedWindowMs: number) {}

  /** `ref` names the agent within the key it authenticated with; `info.id` is the id it chose. */
  seen(ref: string, info: Omit<AgentInfo, 'lastSeenAt'>): AgentInfo {
    const a = { ...info, lastSeenAt: Date.now() };
    this.agents.set(ref, a);
    return a;
  }

  touch(ref: string): AgentInfo | undefined {
    const a = this.agents.get(ref);
    if (a) a.lastSeenAt = Date.now();
    return a;
  }

  get(ref: string): AgentInfo | undefined {
    return this.agents.get(ref);
  }

  remove(ref: string): void {
    this.agents.delete(ref);
  }

  connected(privateLocationId: string): AgentInfo[] {
    const cutoff = Date.now() - this.connectedWindowMs;
    const out: AgentInfo[] = [];
    for (const a of this.agents.values()) {
      if (a.privateLocationId !== privateLocationId) continue;
      if (a.lastSeenAt >= cutoff) out.push(a);
    }
    return out;
  }
}

/** Orders dotted versions numerically, so 1.10.0 is above 1.9.0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => parseInt(x, 10) || 0);
  const pb = b.split(/[.-]/).map((x) => parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}
