import type { EmbeddingProvider } from '../embeddings/provider.ts';
import { annAddSeqs, annRemoveSeqs, annServes } from './ann/index.ts';
import type { Queryable } from '../platform/db/index.ts';
import { Errors } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { aclCondition, EVERYONE, type Viewer } from './acl.ts';
import { chunkDocument } from './chunker.ts';
import { buildChunkRows, insertChunkRows } from './store-chunks.ts';
import { embeddingText } from './embed.ts';
import { contentHash, fieldsHash } from './hash.ts';
import { noteChunkWrites } from './maintenance.ts';
import { resolveSettings } from './settings.ts';
import { addTermStats, lockTenantStats, removeTermStats } from './stats.ts';
import type { DocumentInput, DocumentsDeps, StoredDocument } from './types.ts';

export interface UpsertCore {
  readonly added: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly documents: { id: string; external_id: string }[];
  /** Documents whose chunks were (re)written and so need vectors. */
  readonly reindexed: string[];
  /** Chunks written with their vectors (by `input.embedder`). */
  readonly embedded: number;
}

export interface Prepared {
  readonly input: DocumentInput;
  readonly contentHash: string;
  readonly fieldsHash: string;
}

/** A batch to store, and how. */
export interface StoreInput {
  readonly tenantId: string;
  readonly connectorId: string;
  readonly documents: readonly DocumentInput[];
  readonly embedder?: EmbeddingProvider;
  /**
   * The source must still exist when the batch is written (checked under the tenant's write lock, which
   * deleteConnectorDocuments takes too): a batch racing its connector's deletion stores nothing (404).
   */
  readonly requireSource?: boolean;
  /**
   * Keep a stored document whose `updated_at` is later than the incoming one's (counted unchanged): a vendor
   * event delivered late, retried or replayed must not overwrite newer content.
   */
  readonly onlyNewer?: boolean;
}

/**
 * Stores a batch idempotently on (tenant, connector, external_id): unchanged documents cost one
 * lookup, metadata-only changes update the row, content changes replace the chunks atomically.
 * With `embedder` (a model cheap enough for the request path), new chunks are written with their
 * vectors and their documents with the model id, in the same transaction; otherwise chunks are
 * written without vectors and `reindexed` names the documents that need them.
 */
export async function storeDocuments(deps: DocumentsDeps, input: StoreInput): Promise<UpsertCore> {
  // Writers of a tenant take turns (the statistics row lock); one that finds, once its turn comes, that
  // another wrote some of the same documents meanwhile starts over from what is stored now.
  for (let attempt = 1; ; attempt++) {
    try {
      return await storeOnce(deps, input);
    } catch (err) {
      if (!(err instanceof StaleBatchError) || attempt >= MAX_STORE_ATTEMPTS) throw err;
    }
  }
}

const MAX_STORE_ATTEMPTS = 5;

/** The documents a batch was planned against changed before its transaction got the tenant's lock. */
class StaleBatchError extends Error {}

async function storeOnce(deps: DocumentsDeps, input: StoreInput): Promise<UpsertCore> {
  const { db } = deps;
  const settings = resolveSettings(deps);
  const { tenantId, connectorId } = input;
  // Last occurrence of a repeated external_id wins, as if the batch were applied in order.
  const byExt = new Map<string, Prepared>();
  for (const d of input.documents) byExt.set(d.external_id, { input: d, contentHash: contentHash(d), fieldsHash: fieldsHash(d) });
  const prepared = [...byExt.values()];
  if (prepared.length === 0) return { added: 0, updated: 0, unchanged: 0, documents: [], reindexed: [], embedded: 0 };

  type Existing = { id: string; external_id: string; content_hash: string; fields_hash: string; updated_at: string | Date | null };
  const readExisting = async (q: Queryable) =>
    (
      await q.query<Existing>(
        `SELECT id, external_id, content_hash, fields_hash, updated_at FROM documents
         WHERE tenant_id = $1 AND source_node = $2 AND external_id = ANY($3::text[])`,
        [tenantId, connectorId, prepared.map((p) => p.input.external_id)],
      )
    ).rows;
  const existing = await readExisting(db);
  const snapshot = (rows: readonly Existing[]) =>
    rows
      .map((r) => `${r.external_id}\u0000${r.id}\u0000${r.content_hash}\u0000${r.fields_hash}`)
      .sort()
      .join('\u0001');
  const planned = snapshot(existing);
  const old = new Map(existing.map((r) => [r.external_id, r]));
  const unchangedDocs: { id: string; external_id: string }[] = [];
  const toWrite: Prepared[] = [];
  const newer = (o: Existing, p: Prepared) =>
    input.onlyNewer === true && o.updated_at !== null && p.input.updated_at != null && new Date(o.updated_at).getTime() > new Date(p.input.updated_at).getTime();
  for (const p of prepared) {
    const o = old.get(p.input.external_id);
    if (o && ((o.content_hash === p.contentHash && o.fields_hash === p.fieldsHash) || newer(o, p))) unchangedDocs.push({ id: o.id, external_id: o.external_id });
    else toWrite.push(p);
  }
  if (toWrite.length === 0) return { added: 0, updated: 0, unchanged: unchangedDocs.length, documents: unchangedDocs, reindexed: [], embedded: 0 };

  // Chunking is CPU work: do it before the transaction.
  const needsChunks = toWrite.filter((p) => old.get(p.input.external_id)?.content_hash !== p.contentHash);
  const chunked = new Map(needsChunks.map((p) => [p.input.external_id, chunkDocument(
    { title: p.input.title, content: p.input.content, document_type: p.input.document_type },
    { maxChars: settings.chunkMaxChars, overlapChars: settings.chunkOverlapChars },
  )]));

  const newChunks = [...chunked.values()].reduce((n, cs) => n + cs.length, 0);
  // Embedding is CPU work too (and may fail): before the transaction, then each document's slice by external id.
  const { embedder } = input;
  const vectorsOf = new Map<string, Float32Array[]>();
  if (embedder) {
    const flat = await embedder.embed(needsChunks.flatMap((p) => (chunked.get(p.input.external_id) ?? []).map((c) => embeddingText(p.input.title, c.content))));
    if (flat.length !== newChunks) throw new Error(`model ${embedder.id} returned ${flat.length} vectors for ${newChunks} texts`);
    let at = 0;
    for (const p of needsChunks) {
      const n = chunked.get(p.input.external_id)?.length ?? 0;
      vectorsOf.set(p.input.external_id, flat.slice(at, at + n));
      at += n;
    }
  }
  const pgvector = db.hasVector;
  const result = await db.transaction(async (tx) => {
    await lockTenantStats(tx, tenantId);
    if (input.requireSource) {
      const source = await tx.query('SELECT 1 FROM connectors WHERE tenant_id = $1 AND id = $2', [tenantId, connectorId]);
      if (source.rows.length === 0) throw Errors.notFound('connector', connectorId);
    }
    // The plan (which documents are new, which chunks to replace) was made before the lock: check it.
    if (snapshot(await readExisting(tx)) !== planned) throw new StaleBatchError('documents changed while the batch was prepared');
    const replacedIds = needsChunks.map((p) => old.get(p.input.external_id)?.id).filter((id): id is string => id !== undefined);
    let removedSeqs: string[] = [];
    if (replacedIds.length) {
      await removeTermStats(tx, tenantId, replacedIds);
      const gone = await tx.query<{ seq: string }>('DELETE FROM chunks WHERE tenant_id = $1 AND document_id = ANY($2::text[]) RETURNING seq', [tenantId, replacedIds]);
      removedSeqs = gone.rows.map((r) => r.seq);
    }
    // A document whose chunks get vectors now is marked with the model (one with no chunks stays null).
    const modelOf = (p: Prepared) => (embedder && (chunked.get(p.input.external_id)?.length ?? 0) > 0 ? embedder.id : null);
    const written = await upsertRows(tx, tenantId, connectorId, toWrite, modelOf);
    const idByExt = new Map(written.map((w) => [w.external_id, w.id]));
    const { chunkRows, reindexed } = buildChunkRows(needsChunks, idByExt, chunked, vectorsOf, pgvector);
    let seqOf = new Map<string, number>();
    if (chunkRows.id.length) {
      seqOf = await insertChunkRows(tx, tenantId, chunkRows, { ftsLanguage: settings.ftsLanguage, embedderId: embedder?.id ?? null, pgvector });
      await addTermStats(tx, tenantId, reindexed, deps.impactListSize);
    }
    const added = written.filter((w) => !old.has(w.external_id)).length;
    return {
      added,
      updated: written.length - added,
      unchanged: unchangedDocs.length,
      documents: [...unchangedDocs, ...written],
      reindexed,
      embedded: embedder ? chunkRows.id.length : 0,
      // Every chunk of the batch has its vector, or none has (no embedder, or it failed): the graph takes them by seq.
      ann: { removedSeqs, seqs: chunkRows.vectors.length === chunkRows.id.length ? chunkRows.id.map((id) => seqOf.get(id) ?? -1) : [], vectors: chunkRows.vectors },
    };
  });
  // The embedded vector index follows the committed transaction (src/documents/ann).
  const { ann, ...core } = result;
  await annRemoveSeqs(deps, tenantId, ann.removedSeqs);
  if (embedder) await annAddSeqs(deps, tenantId, embedder.id, ann.seqs, ann.vectors);
  await noteChunkWrites(db, newChunks);
  return core;
}

async function upsertRows(
  tx: Queryable,
  tenantId: string,
  connectorId: string,
  docs: readonly Prepared[],
  modelOf: (p: Prepared) => string | null,
): Promise<{ id: string; external_id: string }[]> {
  const col = <T>(f: (p: Prepared) => T) => docs.map(f);
  const r = await tx.query<{ id: string; external_id: string }>(
    `INSERT INTO documents (id, tenant_id, source_node, external_id, title, content, url, author, document_type,
                            created_at, updated_at, metadata, acl, content_hash, fields_hash, embedding_model, ingested_at)
     SELECT x.id, $1, $2, x.ext, x.title, x.content, x.url, x.author, coalesce(x.dtype, 'page'),
            x.created::timestamptz, x.updated::timestamptz, coalesce(x.meta::jsonb, '{}'::jsonb), x.acl::jsonb, x.chash, x.fhash, x.model, now()
     FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[],
                 $12::text[], $13::text[], $14::text[], $15::text[], $16::text[])
       AS x(id, ext, title, content, url, author, dtype, created, updated, meta, acl, chash, fhash, model)
     ON CONFLICT (tenant_id, source_node, external_id) DO UPDATE SET
       title = excluded.title, content = excluded.content, url = excluded.url, author = excluded.author,
       document_type = excluded.document_type, created_at = excluded.created_at, updated_at = excluded.updated_at,
       metadata = excluded.metadata, acl = excluded.acl, content_hash = excluded.content_hash,
       fields_hash = excluded.fields_hash, ingested_at = now(),
       embedding_model = CASE WHEN documents.content_hash = excluded.content_hash THEN documents.embedding_model ELSE excluded.embedding_model END
     RETURNING id, external_id`,
    [
      tenantId,
      connectorId,
      col(() => newId('doc')),
      col((p) => p.input.external_id),
      col((p) => p.input.title),
      col((p) => p.input.content),
      col((p) => p.input.url ?? null),
      col((p) => p.input.author ?? null),
      col((p) => p.input.document_type ?? null),
      col((p) => p.input.created_at ?? null),
      col((p) => p.input.updated_at ?? null),
      col((p) => JSON.stringify(p.input.metadata ?? {})),
      col((p) => (p.input.acl === undefined || p.input.acl === null ? null : JSON.stringify(p.input.acl))),
      col((p) => p.contentHash),
      col((p) => p.fieldsHash),
      col(modelOf),
    ],
  );
  return r.rows;
}

/** Deletes documents by external id; their chunks and vectors go with them (ON DELETE CASCADE). */
export async function deleteDocuments(
  deps: Pick<DocumentsDeps, 'db' | 'log' | 'documentIndex' | 'config'>,
  input: { tenantId: string; connectorId: string; externalIds: readonly string[] },
): Promise<{ deleted: number }> {
  if (input.externalIds.length === 0) return { deleted: 0 };
  return deleteWhere(deps, input.tenantId, 'source_node = $2 AND external_id = ANY($3::text[])', [input.connectorId, [...input.externalIds]]);
}

/**
 * Deletes every document of a source (connector removal, full resync from scratch). `thenInTx` runs in the same transaction, under the tenant's write lock (the
 * connector's row is deleted there): a batch of that source written concurrently either lands before and is deleted
 * here, or finds the source gone (`requireSource`) and stores nothing.
 */
export async function deleteConnectorDocuments(
  deps: Pick<DocumentsDeps, 'db' | 'log' | 'documentIndex' | 'config'>,
  input: { tenantId: string; connectorId: string; thenInTx?: (tx: Queryable) => Promise<unknown> },
): Promise<{ deleted: number }> {
  return deleteWhere(deps, input.tenantId, 'source_node = $2', [input.connectorId], input.thenInTx);
}

async function deleteWhere(
  deps: Pick<DocumentsDeps, 'db' | 'log' | 'documentIndex' | 'config'>,
  tenantId: string,
  where: string,
  params: unknown[],
  thenInTx?: (tx: Queryable) => Promise<unknown>,
): Promise<{ deleted: number }> {
  const result = await deps.db.transaction(async (tx) => {
    await lockTenantStats(tx, tenantId);
    const ids = await tx.query<{ id: string }>(`SELECT id FROM documents WHERE tenant_id = $1 AND ${where}`, [tenantId, ...params]);
    const docIds = ids.rows.map((r) => r.id);
    let deleted = 0;
    let seqs: string[] = [];
    if (docIds.length > 0) {
      // Their chunks go with them (ON DELETE CASCADE); their keys leave the embedded vector index after the commit.
      if (annServes(deps)) {
        seqs = (await tx.query<{ seq: string }>('SELECT seq FROM chunks WHERE tenant_id = $1 AND document_id = ANY($2::text[])', [tenantId, docIds])).rows.map((r) => r.seq);
      }
      await removeTermStats(tx, tenantId, docIds);
      deleted = (await tx.query('DELETE FROM documents WHERE tenant_id = $1 AND id = ANY($2::text[])', [tenantId, docIds])).affectedRows;
    }
    await thenInTx?.(tx);
    return { deleted, seqs };
  });
  await annRemoveSeqs(deps, tenantId, result.seqs);
  // A deleted document had at least one chunk row; the count only paces the embedded vacuum.
  await noteChunkWrites(deps.db, result.deleted);
  return { deleted: result.deleted };
}

export async function listExternalIds(db: Queryable, tenantId: string, connectorId: string): Promise<string[]> {
  const r = await db.query<{ external_id: string }>(
    'SELECT external_id FROM documents WHERE tenant_id = $1 AND source_node = $2 ORDER BY external_id',
    [tenantId, connectorId],
  );
  return r.rows.map((row) => row.external_id);
}

/** A connector's stored documents whose external id starts with `prefix`, with their metadata (sync reconciliation). */
export async function listStoredDocuments(
  db: Queryable,
  tenantId: string,
  connectorId: string,
  prefix: string,
): Promise<{ external_id: string; metadata: Record<string, unknown> }[]> {
  const like = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const r = await db.query<{ external_id: string; metadata: Record<string, unknown> | string | null }>(
    'SELECT external_id, metadata FROM documents WHERE tenant_id = $1 AND source_node = $2 AND external_id LIKE $3 ORDER BY external_id',
    [tenantId, connectorId, like],
  );
  return r.rows.map((row) => ({
    external_id: row.external_id,
    metadata: (typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata) ?? {},
  }));
}

export async function countDocuments(db: Queryable, tenantId: string, connectorId?: string): Promise<number> {
  const r = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM documents WHERE tenant_id = $1 AND ($2::text IS NULL OR source_node = $2)',
    [tenantId, connectorId ?? null],
  );
  return Number(r.rows[0]?.n ?? 0);
}

const iso = (v: unknown): string | null => (v === null || v === undefined ? null : new Date(v as string).toISOString());

export function rowToDocument(row: Record<string, unknown>): StoredDocument {
  return {
    id: String(row.id),
    tenant_id: String(row.tenant_id),
    source_node: String(row.source_node),
    connector_type: (row.connector_type as string | null) ?? null,
    external_id: String(row.external_id),
    title: String(row.title),
    content: String(row.content),
    url: (row.url as string | null) ?? null,
    author: (row.author as string | null) ?? null,
    document_type: String(row.document_type),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    metadata: (row.metadata as Record<string, unknown> | null) ?? {},
    acl: row.acl ?? null,
    content_hash: String(row.content_hash),
    embedding_model: (row.embedding_model as string | null) ?? null,
    ingested_at: iso(row.ingested_at) ?? '',
    chunk_count: Number(row.chunk_count ?? 0),
  };
}

/**
 * One document of the tenant that `viewer` may read (default EVERYONE), or null: never another tenant's, and a
 * document hidden from the reader is as absent as one that does not exist (no 403 that would confirm it).
 */
export async function getDocument(db: Queryable, tenantId: string, documentId: string, viewer: Viewer = EVERYONE): Promise<StoredDocument | null> {
  const params: unknown[] = [tenantId, documentId];
  const acl = aclCondition(viewer, (v) => `$${params.push(v)}`);
  const r = await db.query<Record<string, unknown>>(
    `SELECT d.*, c.connector_type,
            (SELECT count(*)::int FROM chunks k WHERE k.tenant_id = d.tenant_id AND k.document_id = d.id) AS chunk_count
     FROM documents d LEFT JOIN connectors c ON c.id = d.source_node AND c.tenant_id = d.tenant_id
     WHERE d.tenant_id = $1 AND d.id = $2${acl ? ` AND ${acl}` : ''}`,
    params,
  );
  const row = r.rows[0];
  return row ? rowToDocument(row) : null;
}
