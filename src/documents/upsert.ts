import { enqueueJob } from '../platform/jobs/index.ts';
import { EMBED_JOB_KIND, embedPendingChunks, maybeIndexVectors } from './embed.ts';
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
  input: { tenantId: string; connectorId: string; documents: readonly DocumentInput[]; embed?: EmbedMode; model?: string },
): Promise<UpsertResult> {
  const mode: EmbedMode = deps.embeddings ? (input.embed ?? 'job') : 'none';
  // An unknown model is left to the job/inline path, which reports it.
  const provider = mode === 'none' ? undefined : deps.embeddings?.get(input.model ?? deps.embeddings.defaultId);
  const embedder = provider?.inline ? provider : undefined;
  const core = await storeDocuments(deps, { ...input, embedder });
  if (embedder && core.embedded > 0) await maybeIndexVectors(deps, embedder);
  // Documents still without vectors (none when the embedder wrote them with the chunks).
  const pending = embedder ? [] : core.reindexed;
  let embedJobId: string | null = null;
  if (pending.length > 0 && mode === 'job') {
    const { job } = await enqueueJob(deps.db, {
      tenantId: input.tenantId,
      kind: EMBED_JOB_KIND,
      payload: { documentIds: pending, model: input.model ?? null },
      maxAttempts: 10,
    });
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
