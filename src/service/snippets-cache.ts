// Snippet scripts by id, in memory: a leased API job carries the text of its setup and teardown
// snippets as they are now.

import type { SnippetRepository } from './store/snippets.js';

export class SnippetsCache {
  private byId = new Map<number, { accountId: string; script: string }>();

  async load(snippets: SnippetRepository): Promise<void> {
    for (const r of await snippets.all()) this.set(r.id, r.account_id, r.script);
  }

  set(id: number, accountId: string, script: string): void {
    this.byId.set(id, { accountId, script });
  }

  delete(id: number): void {
    this.byId.delete(id);
  }

  script(accountId: string, id: number | null | undefined): string | null {
    if (id === null || id === undefined) return null;
    const s = this.byId.get(id);
    return s && s.accountId === accountId ? s.script : null;
  }
}
