import type { AuditActor } from '../audit/index.ts';
import { recordAudit } from '../audit/index.ts';
import { type EmbeddingProvider, type EmbeddingRegistry, resolveModelName } from '../embeddings/index.ts';
import type { DatabaseExecutor } from '../platform/db/index.ts';
import { AppError, Errors } from '../platform/errors.ts';
import { enqueue } from '../platform/jobs/index.ts';
import { Ops } from '../platform/operations.ts';
import { dedupeTexts } from '../vec2vec/index.ts';
import type { TranslationRegistry } from './registry.ts';
import { cancelTraining, embedSecondsPerText, estimateTrainingSeconds, TRAIN_JOB, type TrainRequestConfig } from './training.ts';

/** A training request as the API takes it, already parsed. */
export interface TrainRequest {
  readonly source_model: string;
  readonly target_model: string;
  readonly parallel_texts: readonly string[];
  readonly config: TrainRequestConfig;
}

export interface TrainAccepted {
  readonly job_id: string;
  readonly status: 'training';
  readonly estimated_time_seconds: number;
  readonly usable_samples: number;
}

/** The embedding model named `name` (short name or id) among the configured ones; 404 when this server has none such. */
function embeddingProvider(embeddings: EmbeddingRegistry | undefined, name: string): EmbeddingProvider {
  const models = embeddings?.list() ?? [];
  const resolved = resolveModelName(name, models.map((x) => x.id));
  const p = models.find((x) => x.id === resolved);
  if (!p) {
    throw new AppError('not_found', 404, `embedding model '${name}' is not available on this server, so it cannot embed the parallel texts (available: ${models.map((x) => x.id).join(', ') || 'none'})`, {
      details: { kind: 'embedding model', id: name },
    });
  }
  return p;
}

/**
 * Accepts a training request: both models must be configured here and differ, enough distinct non-empty texts must
 * remain (`min_samples`), and no training of the pair (either direction) may be under way (409). Enqueues the job,
 * audits `vec2vec.train_started` and answers with the time estimate.
 */
export async function requestTraining(
  deps: { readonly db: DatabaseExecutor; readonly embeddings?: EmbeddingRegistry },
  actor: AuditActor,
  body: TrainRequest,
): Promise<TrainAccepted> {
  const source = embeddingProvider(deps.embeddings, body.source_model);
  const target = embeddingProvider(deps.embeddings, body.target_model);
  if (source.id === target.id) throw Errors.validation('source_model and target_model must differ', [{ path: 'target_model', message: 'same as source_model' }]);
  const texts = dedupeTexts(body.parallel_texts);
  if (texts.length < body.config.min_samples) {
    throw Errors.validation(
      `only ${texts.length} usable texts after removing duplicates and empty ones (of ${body.parallel_texts.length} sent); min_samples is ${body.config.min_samples}`,
      [{ path: 'parallel_texts', message: `${texts.length} usable, need ${body.config.min_samples}` }],
    );
  }
  const { job, created } = await enqueue(deps.db, TRAIN_JOB, actor.tenantId, { source_model: source.id, target_model: target.id, texts, config: body.config });
  if (!created) throw Errors.conflict(`a training job for ${source.id} ↔ ${target.id} is already ${job.status}: ${job.id}`, { job_id: job.id });
  await recordAudit(deps.db, {
    tenantId: actor.tenantId,
    action: Ops.vec2vecTrain,
    actorId: actor.id,
    userId: actor.userId,
    details: { job_id: job.id, source_model: source.id, target_model: target.id, samples: texts.length, config: body.config },
  });
  return {
    job_id: job.id,
    status: 'training',
    estimated_time_seconds: estimateTrainingSeconds(texts.length, source.dimensions, target.dimensions, body.config, embedSecondsPerText(source.id) + embedSecondsPerText(target.id)),
    usable_samples: texts.length,
  };
}

/**
 * Cancels a training job that has not finished (see `cancelTraining`): 404 when the tenant has no such job, 409 when
 * it already completed, failed or was cancelled. Audits `vec2vec.training_cancelled`.
 */
export async function cancelTrainingRequest(db: DatabaseExecutor, actor: AuditActor, jobId: string): Promise<void> {
  const r = await cancelTraining(db, actor.tenantId, jobId);
  if (r.outcome === 'not_found') throw Errors.notFound('training job', jobId);
  if (r.outcome === 'finished') throw Errors.conflict(`training job '${jobId}' is already ${r.status}`, { status: r.status });
  await recordAudit(db, { tenantId: actor.tenantId, action: Ops.vec2vecTrainingCancelled, actorId: actor.id, userId: actor.userId, details: { job_id: jobId } });
}

/** Deletes one direction of a tenant's trained translation: 404 when unknown, 409 for a shipped one. Audits `vec2vec.deleted`. */
export async function deleteTranslation(deps: { readonly db: DatabaseExecutor }, registry: TranslationRegistry, actor: AuditActor, id: string): Promise<void> {
  const outcome = await registry.delete(actor.tenantId, id);
  if (outcome === 'not_found') throw Errors.notFound('translation', id);
  if (outcome === 'builtin') throw Errors.conflict(`translation '${id}' ships with Atrium and cannot be deleted; train your own for the pair to override it`);
  await recordAudit(deps.db, { tenantId: actor.tenantId, action: Ops.vec2vecDelete, actorId: actor.id, userId: actor.userId, details: { translation_id: id } });
}
