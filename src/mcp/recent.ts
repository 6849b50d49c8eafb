import { aclCondition, type Viewer } from '../documents/index.ts';
import type { Queryable } from '../platform/db/executor.ts';

export interface RecentDocument {
  readonly document_id: string;
  readonly title: string;
  readonly source_node: string;
  readonly url: string | null;
  readonly author: string | null;
  readonly document_type: string;
  readonly updated_at: string | null;
  readonly synced_at: string;
}

const iso = (v: unknown): string | null => (v === null || v === undefined ? null : new Date(v as string).toISOString());

/**
 * The tenant's most recently synced documents, newest first. Reads the documents table of the
 * documents module's migration; an install without it (no documents yet) has nothing recent.
 */
export async function recentDocuments(db: Queryable, tenantId: string, limit: number, viewer: Viewer): Promise<RecentDocument[]> {
  const exists = await db.query<{ t: string | null }>(`SELECT to_regclass('documents')::text AS t`);
  if (!exists.rows[0]?.t) return [];
  const params: unknown[] = [tenantId, limit];
  // Only what the reader may read: the listing is filtered in the statement, before its LIMIT.
  const acl = aclCondition(viewer, (v) => `$${params.push(v)}`);
  const r = await db.query<Record<string, unknown>>(
    `SELECT d.id, d.title, d.source_node, d.url, d.author, d.document_type, d.updated_at, d.ingested_at
     FROM documents d WHERE d.tenant_id = $1${acl ? ` AND ${acl}` : ''} ORDER BY d.ingested_at DESC, d.id DESC LIMIT $2`,
    params,
  );
  return r.rows.map((row) => ({
    document_id: String(row.id),
    title: String(row.title ?? ''),
    source_node: String(row.source_node),
    url: (row.url as string | null) ?? null,
    author: (row.author as string | null) ?? null,
    document_type: String(row.document_type ?? ''),
    updated_at: iso(row.updated_at),
    synced_at: iso(row.ingested_at) ?? '',
  }));
}
