// Artifact records (screenshots, traces, videos, reports); their bytes are in the artifact store.

import type { Sql } from './db.js';

export interface ArtifactRow {
  id: string;
  name: string;
  content_type: string;
  size: string | number;
}

export class ArtifactRepository {
  constructor(private readonly db: Sql) {}

  async insert(a: { id: string; accountId: string; checkId: string; jobId: string; name: string; contentType: string; size: number }) {
    await this.db.query(
      'INSERT INTO artifacts (id, account_id, check_id, job_id, name, content_type, size) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [a.id, a.accountId, a.checkId, a.jobId, a.name, a.contentType, a.size],
    );
  }

  async get(accountId: string, id: string): Promise<ArtifactRow | null> {
    const rows = await this.db.query<ArtifactRow>('SELECT id, name, content_type, size FROM artifacts WHERE id = $1 AND account_id = $2', [
      id,
      accountId,
    ]);
    return rows[0] ?? null;
  }
}
