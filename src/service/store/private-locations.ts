import { creationOrder, inList, type Sql } from './db.js';
import { hashKey, maskKey, newId, newPrivateLocationKey } from '../secrets.js';

export interface PrivateLocationRow {
  id: string;
  account_id: string;
  name: string;
  slug_name: string;
  icon: string;
  proxy_url: string | null;
  last_seen_at: Date | null;
  created_at: Date;
  updated_at: Date | null;
}

export interface KeyRow {
  id: string;
  private_location_id: string;
  masked_key: string;
  created_at: Date;
  updated_at: Date | null;
}

export class PrivateLocationRepository {
  constructor(private readonly db: Sql) {}

  /** null when the account already has a location of that slug. */
  async insert(accountId: string, body: { name: string; slugName: string; icon?: string; proxyUrl?: string | null }) {
    const rows = await this.db.query<PrivateLocationRow>(
      `INSERT INTO private_locations (id, account_id, name, slug_name, icon, proxy_url) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (account_id, slug_name) DO NOTHING RETURNING *`,
      [newId(), accountId, body.name, body.slugName, body.icon ?? 'location', body.proxyUrl ?? null],
    );
    return rows[0] ?? null;
  }

  /** Creates a key; the raw form is returned to the caller once and stored only as a hash. */
  async insertKey(privateLocationId: string): Promise<KeyRow & { rawKey: string }> {
    const raw = newPrivateLocationKey();
    const rows = await this.db.query<KeyRow>(
      `INSERT INTO private_location_keys (id, private_location_id, key_hash, masked_key) VALUES ($1, $2, $3, $4)
       RETURNING id, private_location_id, masked_key, created_at, updated_at`,
      [newId(), privateLocationId, hashKey(raw), maskKey(raw)],
    );
    return { ...rows[0], rawKey: raw };
  }

  async get(accountId: string, id: string) {
    const rows = await this.db.query<PrivateLocationRow>('SELECT * FROM private_locations WHERE id = $1 AND account_id = $2', [
      id,
      accountId,
    ]);
    return rows[0] ?? null;
  }

  /** Which of these slugs name a private location of the account. */
  async knownSlugs(accountId: string, slugs: string[]): Promise<Set<string>> {
    if (slugs.length === 0) return new Set();
    const rows = await this.db.query<{ slug_name: string }>(
      `SELECT slug_name FROM private_locations WHERE account_id = $1 AND slug_name ${inList(this.db, '$2')}`,
      [accountId, slugs],
    );
    return new Set(rows.map((r) => r.slug_name));
  }

  async list(accountId: string) {
    return this.db.query<PrivateLocationRow>(`SELECT * FROM private_locations WHERE account_id = $1 ORDER BY ${creationOrder(this.db)}`, [
      accountId,
    ]);
  }

  async keysOf(ids: string[]) {
    return this.db.query<KeyRow>(
      `SELECT id, private_location_id, masked_key, created_at, updated_at FROM private_location_keys
       WHERE private_location_id ${inList(this.db, '$1')} ORDER BY ${creationOrder(this.db)}`,
      [ids],
    );
  }

  async update(accountId: string, id: string, body: { name: string; icon?: string; proxyUrl?: string | null }) {
    const rows = await this.db.query<PrivateLocationRow>(
      `UPDATE private_locations SET name = $3, icon = COALESCE($4, icon), proxy_url = CASE WHEN $5 THEN $6 ELSE proxy_url END, updated_at = $7
       WHERE id = $1 AND account_id = $2 RETURNING *`,
      [id, accountId, body.name, body.icon ?? null, body.proxyUrl !== undefined, body.proxyUrl ?? null, new Date()],
    );
    return rows[0] ?? null;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return (
      (await this.db.query('DELETE FROM private_locations WHERE id = $1 AND account_id = $2 RETURNING id', [id, accountId])).length > 0
    );
  }

  async deleteKey(privateLocationId: string, keyId: string): Promise<boolean> {
    const rows = await this.db.query('DELETE FROM private_location_keys WHERE id = $1 AND private_location_id = $2 RETURNING id', [
      keyId,
      privateLocationId,
    ]);
    return rows.length > 0;
  }

  /** The private location a key (by its hash) opens, or null when the key is unknown or revoked. */
  async byKey(keyHash: string) {
    const rows = await this.db.query<{ key_id: string; id: string; account_id: string; slug_name: string; proxy_url: string | null }>(
      `SELECT k.id AS key_id, p.id, p.account_id, p.slug_name, p.proxy_url
       FROM private_location_keys k JOIN private_locations p ON p.id = k.private_location_id WHERE k.key_hash = $1`,
      [keyHash],
    );
    return rows[0] ?? null;
  }

  async markSeen(id: string) {
    await this.db.query('UPDATE private_locations SET last_seen_at = $2 WHERE id = $1', [id, new Date()]);
  }

  /** `${accountId}/${slugName}` → private location id, for one account or all of them. */
  async slugIndex(accountId?: string): Promise<Map<string, string>> {
    const rows = await this.db.query<{ id: string; account_id: string; slug_name: string }>(
      accountId
        ? 'SELECT id, account_id, slug_name FROM private_locations WHERE account_id = $1'
        : 'SELECT id, account_id, slug_name FROM private_locations',
      accountId ? [accountId] : [],
    );
    return new Map(rows.map((r) => [`${r.account_id}/${r.slug_name}`, r.id]));
  }
}
