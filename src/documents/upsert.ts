import { enqueueJob } from '../platform/jobs/index.ts';
import { EMBED_JOB_KIND, embedPendingChunks } from './embed.ts';
import { storeDocuments } from './store.ts';
import type { DocumentInput, DocumentsDeps, EmbedMode, UpsertResult } from './types.ts';

/**
 * Upserts a batch of documents of one connector, idempotent on `external_id`. Changed documents
 * are re-chunked atomically; their vectors are made by a durable `documents.embed` job (default),
 * inline (`embed: 'inline'`, the CLI and eval), or not at all. Full-text search works at once.
 */
export async function upsertDocuments(
  deps: DocumentsDeps,
  input: { tenantId: string; connectorId: string; documents: readonly DocumentInput[]; embed?: EmbedMode; model?: string },
): Promise<UpsertResult> {
  const core = await storeDocuments(deps, input);
  const mode: EmbedMode = deps.embeddings ? (input.embed ?? 'job') : 'none';
  let embedJobId: string | null = null;
  if (core.reindexed.length > 0 && mode === 'job') {
    const { job } = await enqueueJob(deps.db, {
      tenantId: input.tenantId,
      kind: EMBED_JOB_KIND,
      payload: { documentIds: core.reindexed, model: input.model ?? null },
      maxAttempts: 10,
    });
    embedJobId = job.id;
  } else if (core.reindexed.length > 0 && mode === 'inline') {
    await embedPendingChunks(deps, { tenantId: input.tenantId, documentIds: core.reindexed, model: input.model });
  }
  return {
    added: core.added,
    updated: core.updated,
    unchanged: core.unchanged,
    documents: core.documents,
    ...(deps.embeddings ? { embed_job_id: embedJobId } : {}),
  };
}
