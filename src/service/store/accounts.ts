import type { Queryable } from './db.js';
import { hashKey, newApiKey, newId } from '../secrets.js';

export interface Account {
  id: string;
  name: string;
  runtime_id: string;
  created_at: Date;
}

export async function accountByKey(db: Queryable, rawKey: string): Promise<string | null> {
  const rows = await db.query<{ account_id: string }>('SELECT account_id FROM api_keys WHERE key_hash = $1', [hashKey(rawKey)]);
  return rows[0]?.account_id ?? null;
}

export async function getAccount(db: Queryable, id: string): Promise<Account | null> {
  return (await db.query<Account>('SELECT * FROM accounts WHERE id = $1', [id]))[0] ?? null;
}

export async function listAccounts(db: Queryable, ids: string[]): Promise<Account[]> {
  return db.query<Account>('SELECT * FROM accounts WHERE id = ANY($1) ORDER BY created_at', [ids]);
}

/**
 * Makes sure an account and a key exist. Returns the raw key only when this call created it,
 * so the caller prints it once and never again.
 */
export async function bootstrapAccount(
  db: Queryable,
  pinned: { accountId?: string; apiKey?: string },
): Promise<{ accountId: string; createdKey: string | null; created: boolean }> {
  const existing = await db.query<{ id: string }>('SELECT id FROM accounts ORDER BY created_at LIMIT 1');
  let accountId = pinned.accountId ?? existing[0]?.id;
  let created = false;
  if (!accountId || !(await getAccount(db, accountId))) {
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
