import { z } from 'zod';
import type { EmbeddingProvider, EmbeddingRegistry } from '../embeddings/provider.ts';
import type { DatabaseExecutor } from '../platform/db/index.ts';
import { defineJobKind, getJob, type Job, JobCancelledError, type JobContext, type JobHandler, jobHandler, NonRetriableError } from '../platform/jobs/index.ts';
import { encodeMap, mat } from '../vec2vec/index.ts';
import { replaceTranslations } from './store.ts';
import { trainInThread } from './train-thread.ts';


/** Training settings as the API takes them; every field has a documented default. */
export const trainConfigSchema = z
  .object({
    epochs: z.number().int().min(1).max(1000).default(20).describe('neural mode: maximum epochs (early stopping may end sooner)'),
    learning_rate: z.number().positive().max(1).default(0.001).describe('neural mode: Adam learning rate'),
    use_neural: z.boolean().default(false).describe('false: linear (ridge / Procrustes); true: residual MLP on top of it'),
    min_samples: z.number().int().min(20).max(1_000_000).default(1000).describe('fewest usable (distinct, non-empty) texts accepted'),
    validation_split: z.number().min(0.02).max(0.5).default(0.1).describe('share of texts held out (by text hash) for the reported metrics'),
  })
  .strict();

export type TrainRequestConfig = z.infer<typeof trainConfigSchema>;

export const trainPayloadSchema = z.object({
  source_model: z.string(),
  target_model: z.string(),
  texts: z.array(z.string()),
  config: trainConfigSchema,
});
export type TrainPayload = z.infer<typeof trainPayloadSchema>;

/** The `vec2vec.train` job: one training per model pair at a time (either direction). */
export const TRAIN_JOB = defineJobKind({
  kind: 'vec2vec.train',
  payload: trainPayloadSchema,
  maxAttempts: 3,
  dedupeKey: (tenantId, p) => `vec2vec.train:${tenantId}:${[p.source_model, p.target_model].sort().join('|')}`,
});
export const TRAIN_JOB_KIND = TRAIN_JOB.kind;

export interface TrainResult {
  readonly forward_id: string;
  readonly backward_id: string;
  readonly accuracy: number;
  readonly cycle_loss: number;
  readonly confidence: number;
  readonly backward_confidence: number;
  readonly kind: 'linear' | 'neural';
  readonly usable_samples: number;
}

export interface TrainingDeps {
  readonly db: DatabaseExecutor;
  readonly embeddings?: EmbeddingRegistry;
}

const EMBED_BATCH = 64;

function usable(v: Float32Array | undefined, dims: number): v is Float32Array {
  if (!v || v.length !== dims) return false;
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    if (!Number.isFinite(v[i]!)) return false;
    n += v[i]! * v[i]!;
  }
  return n > 1e-12;
}

async function embedAll(p: EmbeddingProvider, texts: readonly string[], ctx: JobContext, onBatch: (done: number) => Promise<void>): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += EMBED_BATCH) {
    if (ctx.signal.aborted) throw new Error('training interrupted');
    const batch = await p.embed(texts.slice(i, i + EMBED_BATCH), ctx.signal);
    out.push(...batch);
    await onBatch(Math.min(texts.length, i + EMBED_BATCH) / texts.length);
  }
  return out;
}

/** The kept rows of both models' embeddings as two matrices, row r of each from text keep[r]. */
function pairedMatrices(xs: readonly Float32Array[], ys: readonly Float32Array[], keep: readonly number[], sourceDim: number, targetDim: number) {
  const x = mat(keep.length, sourceDim);
  const y = mat(keep.length, targetDim);
  keep.forEach((k, r) => {
    x.data.set(xs[k]!, r * sourceDim);
    y.data.set(ys[k]!, r * targetDim);
  });
  return { x, y };
}

/** The two registry rows of one training job (forward and backward), ids derived from the job id. */
function translationRows(
  job: { id: string; tenantId: string },
  models: { sourceModel: string; targetModel: string; sourceDim: number; targetDim: number },
  trained: Awaited<ReturnType<typeof trainInThread>>,
) {
  const { sourceModel, targetModel, sourceDim, targetDim } = models;
  const m = trained.metrics;
  const suffix = job.id.replace(/^job_/, '');
  const common = { tenantId: job.tenantId, sampleCount: m.sample_count, jobId: job.id };
  const shared = { cycle_loss: m.cycle_loss, held_out_count: m.held_out_count, train_count: m.train_count, selection_count: m.selection_count, train_seconds: m.train_seconds };
  const forwardRow = {
    ...common,
    id: `tr_${suffix}_fwd`,
    sourceModel,
    targetModel,
    kind: trained.forward.kind,
    sourceDim,
    targetDim,
    confidence: m.forward.confidence,
    metrics: { ...m.forward, ...shared, linear: m.linear.forward, neural: m.neural, reverse_id: `tr_${suffix}_bwd` },
    params: encodeMap(trained.forward),
  };
  const backwardRow = {
    ...common,
    id: `tr_${suffix}_bwd`,
    sourceModel: targetModel,
    targetModel: sourceModel,
    kind: trained.backward.kind,
    sourceDim: targetDim,
    targetDim: sourceDim,
    confidence: m.backward.confidence,
    metrics: { ...m.backward, ...shared, linear: m.linear.backward, neural: m.neural, reverse_id: `tr_${suffix}_fwd` },
    params: encodeMap(trained.backward),
  };
  return { forwardRow, backwardRow };
}

/**
 * The durable training job: embeds the texts with both models, fits both directions in a worker thread,
 * and writes the two registry rows in one transaction at the very end. An interrupted run (restart, lease loss) starts over
 * from the texts in its payload; the rows' ids derive from the job id, so a re-run replaces, never duplicates.
 */
export function createTrainJobHandler(deps: TrainingDeps): JobHandler {
  return jobHandler(TRAIN_JOB, async ({ source_model: sourceModel, target_model: targetModel, texts, config }, ctx) => {
    const source = deps.embeddings?.get(sourceModel);
    const target = deps.embeddings?.get(targetModel);
    if (!source || !target) throw new NonRetriableError(`embedding model '${!source ? sourceModel : targetModel}' is not available on this server`);

    let lastWrite = 0;
    let lastProgress = 0;
    /** Neural mode: each epoch's selection-split loss, in the checkpoint for the training view's chart. */
    const epochLosses: { epoch: number; loss: number }[] = [];
    const report = async (p: number, stage: string, force = false) => {
      const now = Date.now();
      lastProgress = p;
      if (!force && now - lastWrite < 250) return;
      lastWrite = now;
      await ctx.progress(p, { stage, epoch_losses: epochLosses });
    };
    await report(0, 'embedding', true);
    const xs = await embedAll(source, texts, ctx, (d) => report(0.2 * d, 'embedding'));
    const ys = await embedAll(target, texts, ctx, (d) => report(0.2 + 0.2 * d, 'embedding'));
    const keep: number[] = [];
    for (let i = 0; i < texts.length; i++) if (usable(xs[i], source.dimensions) && usable(ys[i], target.dimensions)) keep.push(i);
    if (keep.length < config.min_samples) {
      throw new NonRetriableError(
        `only ${keep.length} of ${texts.length} texts have a usable embedding in both models (min_samples is ${config.min_samples})`,
      );
    }
    const { x, y } = pairedMatrices(xs, ys, keep, source.dimensions, target.dimensions);
    await report(0.4, 'training', true);
    // The fit runs in a worker thread: the event loop stays free for HTTP, lease heartbeats and other jobs.
    // It stops at once when the worker aborts the job (stop, lease loss) or the job is cancelled meanwhile.
    const fit = new AbortController();
    const onAbort = () => fit.abort();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    let cancelled = false;
    const watch = setInterval(() => {
      getJob(deps.db, ctx.job.tenantId, ctx.job.id)
        .then((j) => {
          if (j?.status === 'cancelled') {
            cancelled = true;
            fit.abort();
          }
        })
        .catch(() => undefined);
    }, 1000);
    watch.unref();
    let trained: Awaited<ReturnType<typeof trainInThread>>;
    try {
      trained = await trainInThread(
        keep.map((k) => texts[k]!),
        x,
        y,
        { epochs: config.epochs, learningRate: config.learning_rate, useNeural: config.use_neural, validationSplit: config.validation_split },
        {
          signal: fit.signal,
          onProgress: (p) => {
            report(0.4 + 0.58 * p, 'training').catch((err: unknown) => ctx.log.warn({ err }, 'could not record training progress'));
          },
          onEpoch: (epoch, loss) => {
            epochLosses.push({ epoch, loss });
            report(lastProgress, 'training', true).catch((err: unknown) => ctx.log.warn({ err }, 'could not record training progress'));
          },
        },
      );
    } catch (err) {
      if (cancelled) throw new JobCancelledError('training cancelled');
      throw err;
    } finally {
      clearInterval(watch);
      ctx.signal.removeEventListener('abort', onAbort);
    }
    if ((await getJob(deps.db, ctx.job.tenantId, ctx.job.id))?.status === 'cancelled') throw new JobCancelledError('training cancelled');
    const m = trained.metrics;
    const { forwardRow, backwardRow } = translationRows(ctx.job, { sourceModel, targetModel, sourceDim: source.dimensions, targetDim: target.dimensions }, trained);
    if (ctx.signal.aborted) throw new Error('training interrupted');
    // The job row is locked with the write: a cancel (cancelTraining) lands before it, and then nothing is written,
    // or after it, and then it deletes what was written.
    const written = await deps.db.transaction(async (tx) => {
      const r = await tx.query<{ status: string }>('SELECT status FROM jobs WHERE id = $1 FOR UPDATE', [ctx.job.id]);
      if (r.rows[0]?.status === 'cancelled') return false;
      await replaceTranslations(tx, [forwardRow, backwardRow]);
      return true;
    });
    if (!written) throw new JobCancelledError('training cancelled');
    const result: TrainResult = {
      forward_id: forwardRow.id,
      backward_id: backwardRow.id,
      accuracy: m.forward.top1_accuracy,
      cycle_loss: m.cycle_loss,
      confidence: m.forward.confidence,
      backward_confidence: m.backward.confidence,
      kind: m.kind,
      usable_samples: keep.length,
    };
    return result;
  });
}

/**
 * Cancels a training job that has not finished: a queued one never runs, a running one stops its fit within a
 * second (the handler watches for this) and writes no translation; any row a fit finishing at that very moment
 * wrote is deleted with the cancel. `finished` (with its status) when it had already completed, failed or been
 * cancelled; `not_found` when the tenant has no such training job.
 */
export async function cancelTraining(
  db: DatabaseExecutor,
  tenantId: string,
  jobId: string,
): Promise<{ readonly outcome: 'cancelled' } | { readonly outcome: 'not_found' } | { readonly outcome: 'finished'; readonly status: string }> {
  return db.transaction(async (tx) => {
    const r = await tx.query<{ status: string }>('SELECT status FROM jobs WHERE tenant_id = $1 AND id = $2 AND kind = $3 FOR UPDATE', [tenantId, jobId, TRAIN_JOB_KIND]);
    const status = r.rows[0]?.status;
    if (status === undefined) return { outcome: 'not_found' as const };
    if (status !== 'queued' && status !== 'running') return { outcome: 'finished' as const, status };
    await tx.query(
      `UPDATE jobs SET status = 'cancelled', last_error = 'training cancelled', finished_at = now(), updated_at = now(), dedupe_key = NULL
       WHERE id = $1`,
      [jobId],
    );
    await tx.query('DELETE FROM translations WHERE tenant_id = $1 AND job_id = $2', [tenantId, jobId]);
    return { outcome: 'cancelled' as const };
  });
}

export type TrainingStatus = 'queued' | 'training' | 'completed' | 'failed' | 'cancelled';

/** The API view of a training job. */
export function trainingView(job: Job) {
  const status: TrainingStatus =
    job.status === 'running'
      ? 'training'
      : job.status === 'completed' || job.status === 'queued' || job.status === 'cancelled'
        ? job.status
        : 'failed';
  const result = (job.status === 'completed' ? job.result : null) as TrainResult | null;
  const checkpoint = job.checkpoint as { stage?: string; epoch_losses?: unknown } | null;
  const stage = checkpoint?.stage ?? null;
  const losses = Array.isArray(checkpoint?.epoch_losses) ? (checkpoint.epoch_losses as { epoch?: unknown; loss?: unknown }[]) : [];
  return {
    job_id: job.id,
    status,
    progress: status === 'completed' ? 1 : job.progress,
    stage: status === 'training' || status === 'queued' ? stage : null,
    accuracy: result?.accuracy ?? null,
    cycle_loss: result?.cycle_loss ?? null,
    epoch_losses: losses.flatMap((l) => (typeof l.epoch === 'number' && typeof l.loss === 'number' && Number.isFinite(l.loss) ? [{ epoch: l.epoch, loss: l.loss }] : [])),
    confidence: result?.confidence ?? null,
    translation_ids: result ? [result.forward_id, result.backward_id] : [],
    completed_at: job.status === 'completed' && job.finishedAt ? job.finishedAt.toISOString() : null,
    error: status === 'failed' || status === 'cancelled' ? (job.lastError ?? status) : null,
    attempts: job.attempts,
    created_at: job.createdAt.toISOString(),
  };
}

/** Seconds per text measured on a busy 2-core machine (USE-lite in 2 worker threads ≈ 9 texts/s; GloVe ≈ 2,000/s). */
export function embedSecondsPerText(modelId: string): number {
  if (modelId === 'builtin/use-lite-512d') return 0.11;
  if (modelId === 'builtin/glove-100d') return 0.0006;
  return 0.01;
}

/**
 * A rough wall-clock estimate on a 2-core machine: embedding (dominated by the slower model) plus the
 * fit (Gram matrices and solves for linear; epochs × pairs × hidden units for neural).
 */
export function estimateTrainingSeconds(n: number, dx: number, dy: number, c: Pick<TrainRequestConfig, 'use_neural' | 'epochs'>, embedSecondsPerText = 0.01): number {
  const embed = n * embedSecondsPerText;
  // SIMD kernels (docs/benchmarks.md): Gram matrices, then ~20 n³ solves (λ selection, Procrustes); neural ~2e9 multiply-adds/s.
  const linear = (n * (dx * dx + dy * dy + dx * dy)) / 3e9 + (20 * (dx ** 3 + dy ** 3)) / 5e9;
  const neural = c.use_neural ? (c.epochs * n * (dx + dy) * 128 * 4) / 2e9 : 0;
  return Math.max(1, Math.ceil(embed + linear + neural));
}
