import { enqueue, namedByActiveJobs } from '../platform/jobs/index.ts';
import { EMBED_JOB, embedPendingChunks, maybeIndexVectors } from './embed.ts';
import { storeDocuments } from './store.ts';
import type { DocumentInput, DocumentsDeps, EmbedMode, UpsertResult } from './types.ts';

/**
 * Upserts a batch of documents of one connector, idempotent on `external_id`. Changed documents
 * are re-chunked atomically. Their vectors: with a model cheap enough for the request path
 * (`provider.inline`: GloVe), written with the chunks in the same transaction;
 * otherwise made by a durable `documents.embed` job (default), after the store (`embed: 'inline'`,
 * the CLI and eval), or not at all (`embed: 'none'`). Full-text search works at once.
 */
export async function upsertDocuments(
  deps: DocumentsDeps,
  input: { tenantId: string; connectorId: string; documents: readonly DocumentInput[]; embed?: EmbedMode; model?: string; requireSource?: boolean; onlyNewer?: boolean },
): Promise<UpsertResult> {
  const mode: EmbedMode = deps.embeddings ? (input.embed ?? 'job') : 'none';
  // An unknown model is left to the job/inline path, which reports it.
  const provider = mode === 'none' ? undefined : deps.embeddings?.get(input.model ?? deps.embeddings.defaultId);
  const embedder = provider?.inline ? provider : undefined;
  const core = await storeDocuments(deps, { ...input, embedder });
  if (embedder && core.embedded > 0) await maybeIndexVectors(deps, embedder);
  // Documents still without vectors (none when the embedder wrote them with the chunks), and documents
  // of this batch that were already stored without them and that no queued or running job will embed
  // (a job that failed for good, a CLI ingest with --no-embed): re-pushing them is how they get vectors.
  const reindexed = new Set(core.reindexed);
  const stuck = mode === 'none' ? [] : await stuckDocuments(deps, input.tenantId, core.documents.map((d) => d.id).filter((id) => !reindexed.has(id)));
  if (embedder && stuck.length) await embedPendingChunks(deps, { tenantId: input.tenantId, documentIds: stuck, model: embedder.id });
  const pending = embedder ? [] : [...core.reindexed, ...stuck];
  let embedJobId: string | null = null;
  if (pending.length > 0 && mode === 'job') {
    const { job } = await enqueue(deps.db, EMBED_JOB, input.tenantId, { documentIds: pending, model: input.model ?? null });
    embedJobId = job.id;
  } else if (pending.length > 0 && mode === 'inline') {
    await embedPendingChunks(deps, { tenantId: input.tenantId, documentIds: pending, model: input.model });
  }
  return {
    added: core.added,
    updated: core.updated,
    unchanged: core.unchanged,
    documents: core.documents,
    ...(deps.embeddings ? { embed_job_id: embedJobId } : {}),
  };
}

/** Of `documentIds`, those with chunks that have no vector and no queued or running embed job naming them. */
async function stuckDocuments(deps: DocumentsDeps, tenantId: string, documentIds: readonly string[]): Promise<string[]> {
  if (documentIds.length === 0) return [];
  const r = await deps.db.query<{ document_id: string }>(
    'SELECT DISTINCT document_id FROM chunks WHERE tenant_id = $1 AND document_id = ANY($2::text[]) AND embedding_model IS NULL',
    [tenantId, [...documentIds]],
  );
  const unembedded = r.rows.map((x) => x.document_id);
  const queued = await namedByActiveJobs(deps.db, EMBED_JOB, tenantId, 'documentIds', unembedded);
  return unembedded.filter((id) => !queued.has(id));
}
