import { creationOrder, inList, type Sql } from './db.js';
import { hashKey, newApiKey, newId } from '../secrets.js';

export interface Account {
  id: string;
  name: string;
  runtime_id: string;
  created_at: Date;
}

export class AccountRepository {
  constructor(private readonly db: Sql) {}

  async byKey(rawKey: string): Promise<string | null> {
    const rows = await this.db.query<{ account_id: string }>('SELECT account_id FROM api_keys WHERE key_hash = $1', [hashKey(rawKey)]);
    return rows[0]?.account_id ?? null;
  }

  async get(id: string): Promise<Account | null> {
    return (await this.db.query<Account>('SELECT * FROM accounts WHERE id = $1', [id]))[0] ?? null;
  }

  async list(ids: string[]): Promise<Account[]> {
    return this.db.query<Account>(`SELECT * FROM accounts WHERE id ${inList(this.db, '$1')} ORDER BY ${creationOrder(this.db)}`, [ids]);
  }

  /**
   * Makes sure an account and a key exist. Returns the raw key only when this call created it,
   * so the caller prints it once and never again.
   */
  async bootstrap(pinned: {
    accountId?: string;
    apiKey?: string;
  }): Promise<{ accountId: string; createdKey: string | null; created: boolean }> {
    const db = this.db;
    const existing = await db.query<{ id: string }>(`SELECT id FROM accounts ORDER BY ${creationOrder(db)} LIMIT 1`);
    let accountId = pinned.accountId ?? existing[0]?.id;
    let created = false;
    if (!accountId || !(await this.get(accountId))) {
      accountId = accountId ?? newId();
      await db.query('INSERT INTO accounts (id, name) VALUES ($1, $2)', [accountId, 'Outpost']);
      created = true;
    }
    if (pinned.apiKey) {
      await db.query('INSERT INTO api_keys (id, account_id, key_hash) VALUES ($1, $2, $3) ON CONFLICT (key_hash) DO NOTHING', [
        newId(),
        accountId,
        hashKey(pinned.apiKey),
      ]);
      return { accountId, createdKey: null, created };
    }
    const keys = await db.query('SELECT 1 FROM api_keys WHERE account_id = $1 LIMIT 1', [accountId]);
    if (keys.length > 0) return { accountId, createdKey: null, created };
    const raw = newApiKey();
    await db.query('INSERT INTO api_keys (id, account_id, key_hash) VALUES ($1, $2, $3)', [newId(), accountId, hashKey(raw)]);
    return { accountId, createdKey: raw, created };
  }
}
