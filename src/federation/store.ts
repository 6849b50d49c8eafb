import type { Queryable } from '../platform/db/executor.ts';
import { newId } from '../platform/ids.ts';
import type { ActivityEvent } from './entropy.ts';
import type { TombstoneRule } from './tombstone.ts';

/** A tombstone as the API shows it. */
export interface TombstoneRecord extends TombstoneRule {
  readonly reason: string | null;
  readonly created_by: string | null;
  readonly created_at: string;
}

const iso = (v: unknown): string => new Date(v as string).toISOString();
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

function rowToTombstone(r: Record<string, unknown>): TombstoneRecord {
  return {
    id: String(r.id),
    document_id: str(r.document_id),
    connector_id: str(r.connector_id),
    external_id: str(r.external_id),
    reason: str(r.reason),
    created_by: str(r.created_by),
    created_at: iso(r.created_at),
  };
}

export async function insertTombstones(
  db: Queryable,
  tenantId: string,
  rules: readonly Omit<TombstoneRule, 'id'>[],
  meta: { reason: string | null; createdBy: string; now: Date },
): Promise<TombstoneRecord[]> {
  const out: TombstoneRecord[] = [];
  for (const r of rules) {
    const res = await db.query<Record<string, unknown>>(
      `INSERT INTO federation_tombstones (id, tenant_id, document_id, connector_id, external_id, reason, created_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
      [newId('tmb'), tenantId, r.document_id, r.connector_id, r.external_id, meta.reason, meta.createdBy, meta.now.toISOString()],
    );
    out.push(rowToTombstone(res.rows[0]!));
  }
  return out;
}

export async function listTombstones(db: Queryable, tenantId: string): Promise<TombstoneRecord[]> {
  const r = await db.query<Record<string, unknown>>(
    'SELECT * FROM federation_tombstones WHERE tenant_id = $1 AND lifted_at IS NULL ORDER BY created_at DESC, id',
    [tenantId],
  );
  return r.rows.map(rowToTombstone);
}

/** Lifts an active tombstone; false when there is none with that id in the tenant. */
export async function liftTombstone(db: Queryable, tenantId: string, id: string, by: string, now: Date): Promise<TombstoneRecord | null> {
  const r = await db.query<Record<string, unknown>>(
    `UPDATE federation_tombstones SET lifted_at = $4, lifted_by = $3
     WHERE tenant_id = $1 AND id = $2 AND lifted_at IS NULL RETURNING *`,
    [tenantId, id, by, now.toISOString()],
  );
  return r.rows[0] ? rowToTombstone(r.rows[0]) : null;
}

/** The active tombstones that could match these candidates (by document id or by connector). */
export async function tombstonesFor(db: Queryable, tenantId: string, documentIds: readonly string[], connectorIds: readonly string[]): Promise<TombstoneRule[]> {
  if (documentIds.length === 0 && connectorIds.length === 0) return [];
  const r = await db.query<Record<string, unknown>>(
    `SELECT id, document_id, connector_id, external_id FROM federation_tombstones
     WHERE tenant_id = $1 AND lifted_at IS NULL AND (document_id = ANY($2::text[]) OR connector_id = ANY($3::text[]))`,
    [tenantId, documentIds, connectorIds],
  );
  return r.rows.map((row) => ({ id: String(row.id), document_id: str(row.document_id), connector_id: str(row.connector_id), external_id: str(row.external_id) }));
}

/** Documents of the tenant among `ids`, with the source item they came from. */
export async function findDocuments(db: Queryable, tenantId: string, ids: readonly string[]): Promise<{ id: string; source_node: string; external_id: string }[]> {
  const r = await db.query<{ id: string; source_node: string; external_id: string }>(
    'SELECT id, source_node, external_id FROM documents WHERE tenant_id = $1 AND id = ANY($2::text[])',
    [tenantId, ids],
  );
  return r.rows;
}

export async function recordActivity(db: Queryable, e: { tenantId: string; userId: string; at: Date; queryHash: string; terms: readonly string[] }): Promise<void> {
  await db.query('INSERT INTO federation_activity (tenant_id, user_id, occurred_at, query_hash, terms) VALUES ($1, $2, $3, $4, $5::text[])', [
    e.tenantId,
    e.userId,
    e.at.toISOString(),
    e.queryHash,
    [...e.terms],
  ]);
  // Entropy only looks back minutes; keep a day for inspection and drop the rest of this user's history.
  await db.query('DELETE FROM federation_activity WHERE tenant_id = $1 AND user_id = $2 AND occurred_at < $3', [
    e.tenantId,
    e.userId,
    new Date(e.at.getTime() - 86_400_000).toISOString(),
  ]);
}

export async function loadActivity(db: Queryable, tenantId: string, userId: string, since: Date, limit: number): Promise<ActivityEvent[]> {
  const r = await db.query<{ occurred_at: string | Date; terms: string[] }>(
    `SELECT occurred_at, terms FROM federation_activity
     WHERE tenant_id = $1 AND user_id = $2 AND occurred_at >= $3 ORDER BY occurred_at DESC LIMIT $4`,
    [tenantId, userId, since.toISOString(), limit],
  );
  return r.rows.map((row) => ({ at: new Date(row.occurred_at), terms: row.terms ?? [] }));
}

/** The result-cache generation of a tenant: bumped by a trigger whenever its documents change. */
export async function cacheGeneration(db: Queryable, tenantId: string): Promise<string> {
  const r = await db.query<{ generation: string | number }>('SELECT generation FROM federation_generations WHERE tenant_id = $1', [tenantId]);
  return String(r.rows[0]?.generation ?? 0);
}

/** A local source: one of the tenant's connectors. */
export interface LocalSource {
  readonly id: string;
  readonly connector_type: string;
  readonly display_name: string;
  readonly status: string;
}

export async function listLocalSources(db: Queryable, tenantId: string): Promise<LocalSource[]> {
  const r = await db.query<Record<string, unknown>>(
    'SELECT id, connector_type, display_name, status FROM connectors WHERE tenant_id = $1 ORDER BY created_at, id',
    [tenantId],
  );
  return r.rows.map((row) => ({ id: String(row.id), connector_type: String(row.connector_type), display_name: String(row.display_name), status: String(row.status) }));
}

/** The embedding model(s) of each local source's documents, most used first. */
export async function sourceModels(db: Queryable, tenantId: string): Promise<Map<string, string[]>> {
  const r = await db.query<{ source_node: string; embedding_model: string | null; n: number }>(
    `SELECT source_node, embedding_model, count(*)::int AS n FROM documents
     WHERE tenant_id = $1 AND embedding_model IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 3 DESC, 2`,
    [tenantId],
  );
  const out = new Map<string, string[]>();
  for (const row of r.rows) {
    if (row.embedding_model === null) continue;
    out.set(row.source_node, [...(out.get(row.source_node) ?? []), row.embedding_model]);
  }
  return out;
}

/** What every federated query reads before fanning out, in one round trip. */
export interface QueryContextRows {
  readonly generation: string;
  /** The tenant's trained translations (count and latest training): cached answers used the registry as it was. */
  readonly translations: string;
  readonly activeTombstones: number;
  /** The tenant's federation origin id (migration 054): sent on fan-out, refused when it comes back. */
  readonly origin: string;
  readonly localSourceIds: string[];
  /** federation_nodes rows (id, name, url, created_at, api_key_enc); empty when not asked for. */
  readonly nodes: Record<string, unknown>[];
}

/** Context reads per database and (tenant, withNodes), kept while the database's write epoch is unchanged. */
const contextMemo = new WeakMap<object, Map<string, { epoch: number; value: QueryContextRows }>>();

/**
 * The query context. Where the executor is the database's one client (embedded PGlite, `writeEpoch`), the
 * answer is reused until any write is sent through it (documents, connectors, nodes, tombstones, the
 * federated query's own activity rows), so a cached federated query usually reads nothing; on PostgreSQL
 * other processes write, so it is read every time.
 */
export async function loadQueryContext(db: Queryable & { writeEpoch?(): number }, tenantId: string, withNodes: boolean): Promise<QueryContextRows> {
  if (!db.writeEpoch) return readQueryContext(db, tenantId, withNodes);
  const epoch = db.writeEpoch();
  let memo = contextMemo.get(db);
  if (!memo) {
    memo = new Map();
    contextMemo.set(db, memo);
  }
  const key = `${tenantId}\u0000${withNodes}`;
  const hit = memo.get(key);
  if (hit && hit.epoch === epoch) return hit.value;
  const value = await readQueryContext(db, tenantId, withNodes);
  if (memo.size > 1000) memo.clear();
  memo.set(key, { epoch, value });
  return value;
}

async function readQueryContext(db: Queryable, tenantId: string, withNodes: boolean): Promise<QueryContextRows> {
  const r = await db.query<{ generation: string | number | null; translations: string | null; tombstones: number; origin: string | null; sources: unknown; nodes: unknown }>(
    `SELECT
       (SELECT generation FROM federation_generations WHERE tenant_id = $1) AS generation,
       (SELECT federation_origin FROM tenants WHERE id = $1) AS origin,
       (SELECT count(*)::text || '@' || coalesce(max(trained_at)::text, '') FROM translations WHERE tenant_id = $1) AS translations,
       (SELECT count(*)::int FROM federation_tombstones WHERE tenant_id = $1 AND lifted_at IS NULL) AS tombstones,
       (SELECT coalesce(json_agg(id ORDER BY created_at, id), '[]'::json) FROM connectors WHERE tenant_id = $1) AS sources,
       CASE WHEN $2::boolean THEN (SELECT coalesce(json_agg(json_build_object('id', id, 'name', name, 'url', url, 'created_at', created_at, 'api_key_enc', api_key_enc) ORDER BY name), '[]'::json)
         FROM federation_nodes WHERE tenant_id = $1) ELSE '[]'::json END AS nodes`,
    [tenantId, withNodes],
  );
  const row = r.rows[0];
  const json = (v: unknown): unknown[] => (typeof v === 'string' ? (JSON.parse(v) as unknown[]) : Array.isArray(v) ? v : []);
  return {
    generation: String(row?.generation ?? 0),
    translations: String(row?.translations ?? ''),
    activeTombstones: Number(row?.tombstones ?? 0),
    origin: String(row?.origin ?? ''),
    localSourceIds: json(row?.sources).map(String),
    nodes: json(row?.nodes) as Record<string, unknown>[],
  };
}

/** The tenant's federation origin id (migration 054), or null for an unknown tenant. */
export async function federationOrigin(db: Queryable, tenantId: string): Promise<string | null> {
  const r = await db.query<{ origin: string }>('SELECT federation_origin AS origin FROM tenants WHERE id = $1', [tenantId]);
  return r.rows[0]?.origin ?? null;
}

/**
 * Gives the tenant a new federation origin id (`atrium tenants reset-origin`): needed once on a copy of another
 * instance's database, which the original would otherwise take for itself. False for an unknown tenant.
 */
export async function resetFederationOrigin(db: Queryable, tenantId: string): Promise<boolean> {
  const r = await db.query('UPDATE tenants SET federation_origin = gen_random_uuid()::text WHERE id = $1', [tenantId]);
  return r.affectedRows > 0;
}
