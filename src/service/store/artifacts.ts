// Artifact records (screenshots, traces, videos, reports); their bytes are in the artifact store.

import type { Queryable } from './db.js';

export interface ArtifactRow {
  id: string;
  name: string;
  content_type: string;
  size: string | number;
}

export async function insertArtifact(
  db: Queryable,
  a: { id: string; accountId: string; checkId: string; jobId: string; name: string; contentType: string; size: number },
): Promise<void> {
  await db.query('INSERT INTO artifacts (id, account_id, check_id, job_id, name, content_type, size) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    a.id,
    a.accountId,
    a.checkId,
    a.jobId,
    a.name,
    a.contentType,
    a.size,
  ]);
}

export async function getArtifact(db: Queryable, accountId: string, id: string): Promise<ArtifactRow | null> {
  const rows = await db.query<ArtifactRow>('SELECT id, name, content_type, size FROM artifacts WHERE id = $1 AND account_id = $2', [
    id,
    accountId,
  ]);
  return rows[0] ?? null;
}
