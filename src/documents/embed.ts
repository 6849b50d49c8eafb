import { EMBEDDING_REJECTED, EMBEDDING_UNAVAILABLE, type EmbeddingProvider } from '../embeddings/provider.ts';
import { isAppError } from '../platform/errors.ts';
import { z } from 'zod';
import { defineJobKind, type JobHandler, jobHandler, NonRetriableError } from '../platform/jobs/index.ts';
import { annAddChunks, annServes } from './ann/index.ts';
import { noteChunkWrites } from './maintenance.ts';
import type { DocumentsDeps } from './types.ts';
import { ensureVectorIndex, hasVectorIndex, writeChunkVectors } from './vectors.ts';

/** The `documents.embed` job: vectors for the documents one upsert stored (all pending chunks when `documentIds` is absent). */
export const EMBED_JOB = defineJobKind({
  kind: 'documents.embed',
  payload: z.object({ documentIds: z.array(z.string()).optional(), model: z.string().nullable().default(null) }),
  maxAttempts: 10,
});
export const EMBED_JOB_KIND = EMBED_JOB.kind;

export interface EmbedProgress {
  readonly done: number;
  readonly total: number;
}

export function resolveProvider(deps: Pick<DocumentsDeps, 'embeddings'>, model?: string | null): EmbeddingProvider {
  const reg = deps.embeddings;
  if (!reg) throw new NonRetriableError('no embedding models are configured');
  const id = model ?? reg.defaultId;
  const p = reg.get(id);
  if (!p) throw new NonRetriableError(`unknown embedding model '${id}'`);
  return p;
}

/** The text a chunk is embedded from: its document title gives short passages their context. */
export function embeddingText(title: string, content: string): string {
  const t = title.trim();
  return t && !content.startsWith(t) ? `${t}\n\n${content}` : content;
}

/**
 * Embeds the tenant's chunks that have no vector yet (optionally only those of `documentIds`),
 * in batches, outside any transaction; marks each fully embedded document with the model id (also
 * those a crashed earlier run embedded). Safe to run twice: a chunk replaced meanwhile is simply not
 * found. `resumedFrom` (a resumed job's checkpoint) makes progress and the count continue from it.
 */
export async function embedPendingChunks(
  deps: DocumentsDeps,
  input: {
    tenantId: string;
    documentIds?: readonly string[];
    model?: string | null;
    batchSize?: number;
    signal?: AbortSignal;
    onProgress?: (p: EmbedProgress) => Promise<void> | void;
    resumedFrom?: EmbedProgress | null;
  },
): Promise<{ embedded: number; model: string }> {
  const { db } = deps;
  const provider = resolveProvider(deps, input.model);
  const docFilter = input.documentIds ? 'AND c.document_id = ANY($2::text[])' : '';
  const params: unknown[] = input.documentIds ? [input.tenantId, [...input.documentIds]] : [input.tenantId];
  const total = Number(
    (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM chunks c WHERE c.tenant_id = $1 AND c.embedding_model IS NULL ${docFilter}`, params))
      .rows[0]?.n ?? 0,
  );
  const batchSize = input.batchSize ?? 128;
  let after = '';
  const before = Math.max(0, input.resumedFrom?.done ?? 0);
  let done = 0;
  const touched = new Set<string>();
  for (;;) {
    input.signal?.throwIfAborted();
    const rows = await db.query<{ id: string; document_id: string; content: string; title: string }>(
      `SELECT c.id, c.document_id, coalesce(c.content, d.content) AS content, d.title FROM chunks c JOIN documents d ON d.id = c.document_id AND d.tenant_id = c.tenant_id
       WHERE c.tenant_id = $1 AND c.embedding_model IS NULL ${docFilter} AND c.id > $${params.length + 1}
       ORDER BY c.id LIMIT ${batchSize}`,
      [...params, after],
    );
    if (rows.rows.length === 0) break;
    after = rows.rows[rows.rows.length - 1]?.id ?? after;
    const vectors = await provider.embed(
      rows.rows.map((r) => embeddingText(r.title, r.content)),
      input.signal,
    );
    if (vectors.length !== rows.rows.length) throw new Error(`model ${provider.id} returned ${vectors.length} vectors for ${rows.rows.length} texts`);
    const ids = rows.rows.map((r) => r.id);
    await writeChunkVectors(db, db.hasVector, input.tenantId, provider.id, ids, vectors);
    await annAddChunks(deps, input.tenantId, provider.id, ids, vectors);
    await noteChunkWrites(db, rows.rows.length);
    for (const r of rows.rows) touched.add(r.document_id);
    done += rows.rows.length;
    await input.onProgress?.({ done: before + done, total: before + Math.max(total, done) });
  }
  // Mark the documents whose chunks all carry this model's vectors: those of this run and of the job's
  // list; a resumed run over the whole tenant looks at every unmarked document, since a crashed attempt
  // may have embedded some without getting to mark them.
  const ids = [...new Set([...touched, ...(input.documentIds ?? [])])];
  const everyUnmarked = !input.documentIds && before > 0;
  if (ids.length || everyUnmarked) {
    await db.query(
      `UPDATE documents d SET embedding_model = $2
       WHERE d.tenant_id = $1 AND ${everyUnmarked ? 'd.embedding_model IS NULL' : 'd.id = ANY($3::text[])'} AND d.embedding_model IS DISTINCT FROM $2
         AND EXISTS (SELECT 1 FROM chunks c WHERE c.tenant_id = d.tenant_id AND c.document_id = d.id)
         AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.tenant_id = d.tenant_id AND c.document_id = d.id AND c.embedding_model IS DISTINCT FROM $2)`,
      everyUnmarked ? [input.tenantId, provider.id] : [input.tenantId, provider.id, ids],
    );
  }
  if (done > 0) await maybeIndexVectors(deps, provider);
  return { embedded: before + done, model: provider.id };
}

/**
 * Below this many vectors of one model, an exact scan is fast (a few ms) and cheaper than keeping
 * an HNSW graph up to date on every write (PGlite maintains HNSW ~30× slower than native Postgres).
 */
export const HNSW_MIN_VECTORS = 20_000;

/**
 * Creates the model's HNSW index once it has enough vectors (HNSW_MIN_VECTORS). Not in embedded storage where the usearch
 * graph serves (src/documents/ann): maintaining pgvector's graph in PGlite is what capped embedded ingest.
 */
export async function maybeIndexVectors(deps: DocumentsDeps, provider: EmbeddingProvider): Promise<void> {
  if (!deps.db.hasVector || annServes(deps) || hasVectorIndex(deps.db, provider.id, provider.dimensions)) return;
  const r = await deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks WHERE embedding_model = $1', [provider.id]);
  if (Number(r.rows[0]?.n ?? 0) >= (deps.hnswMinVectors ?? HNSW_MIN_VECTORS)) await ensureVectorIndex(deps.db, provider.id, provider.dimensions);
}

/** The `documents.embed` job: vectors for the documents of one upsert, with progress and checkpoints. */
export function embedJobHandler(deps: DocumentsDeps): JobHandler {
  return jobHandler(EMBED_JOB, async ({ documentIds, model }, ctx) => {
    const cp = (ctx.job.checkpoint ?? null) as { done?: unknown; total?: unknown } | null;
    const resumedFrom = cp && typeof cp.done === 'number' && typeof cp.total === 'number' ? { done: cp.done, total: cp.total } : null;
    try {
      return await embedPendingChunks(deps, {
        tenantId: ctx.job.tenantId,
        documentIds,
        model,
        resumedFrom,
        signal: ctx.signal,
        onProgress: (p) => ctx.progress(p.total ? p.done / p.total : 1, { done: p.done, total: p.total }),
      });
    } catch (err) {
      // A rejected key, wrong dimensions or a missing package fail the job at once: retries cannot help.
      if (isAppError(err) && (err.code === EMBEDDING_REJECTED || err.code === EMBEDDING_UNAVAILABLE)) throw new NonRetriableError(err.message);
      throw err;
    }
  });
}
