import { z } from 'zod';
import { Errors } from '../../platform/errors.ts';
import { getJob } from '../../platform/jobs/index.ts';
import {
  cancelTrainingRequest,
  confidenceBand,
  deleteTranslation,
  IDENTITY_ID,
  resolveKnownModel,
  requestTraining,
  TRAIN_JOB_KIND,
  type TranslationRegistry,
  trainConfigSchema,
  trainingView,
  translateOne,
} from '../../translations/index.ts';
import type { App } from '../app.ts';
import { principalOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';

const MAX_DIMS = 8192;
const MAX_TEXTS = 200_000;

const modelName = z.string().trim().min(1).max(300);

const metricsSchema = z.record(z.string(), z.unknown()).describe('held-out metrics: mean_cosine, top1_accuracy, candidates, cycle_loss, loss, baseline_loss, …');

const registryEntry = z.object({
  translation_id: z.string(),
  source_model: z.string(),
  target_model: z.string(),
  confidence: z.number().describe('held-out confidence 0..1: 1 − loss(F(x), y) / loss(mean target, y)'),
  trained_at: z.string(),
  sample_count: z.number().int(),
  kind: z.enum(['linear', 'neural']),
  source_dim: z.number().int(),
  target_dim: z.number().int(),
  builtin: z.boolean().describe('shipped with Atrium, shared by every tenant; cannot be deleted'),
  metrics: metricsSchema,
});

const trainingStatus = z.object({
  job_id: z.string(),
  status: z.enum(['queued', 'training', 'completed', 'failed', 'cancelled']),
  progress: z.number(),
  stage: z.string().nullable().describe('embedding or training while the job runs'),
  accuracy: z.number().nullable().describe('top-1 retrieval accuracy of source → target on held-out pairs'),
  cycle_loss: z.number().nullable(),
  epoch_losses: z
    .array(z.object({ epoch: z.number().int(), loss: z.number() }))
    .describe('neural training: each epoch\'s loss on the selection split (mean squared error of F plus G), as it goes; empty for linear maps, solved in one step'),
  confidence: z.number().nullable(),
  translation_ids: z.array(z.string()),
  completed_at: z.string().nullable(),
  error: z.string().nullable(),
  attempts: z.number().int(),
  created_at: z.string(),
});

function registryOf(deps: AppDeps): TranslationRegistry {
  if (!deps.translations) throw Errors.unavailable('embedding translation is not configured on this server');
  return deps.translations;
}

// Registration list (issue 27 exception to the ~100-line function rule): one registration after another.
export async function vec2vecRoutes(app: App, deps: AppDeps): Promise<void> {
  app.post(
    '/v1/vec2vec/translate',
    {
      config: { permission: 'query' },
      schema: {
        summary: "Translate a vector from one embedding model's space into another's",
        tags: ['vec2vec'],
        body: z.object({
          vector: z.array(z.number()).min(1).max(MAX_DIMS),
          source_model: modelName.describe('model id or short name (glove-100d for builtin/glove-100d)'),
          target_model: modelName,
        }).strict(),
        response: {
          200: z.object({
            vector: z.array(z.number()),
            source_model: z.string(),
            target_model: z.string(),
            confidence: z.number(),
            translation_applied: z.boolean(),
            translation_id: z.string().describe(`'${IDENTITY_ID}' when source and target are the same model`),
          }),
        },
      },
    },
    async (request) => translateOne(registryOf(deps), principalOf(request).tenantId, request.body),
  );

  app.post(
    '/v1/vec2vec/train',
    {
      config: { permission: 'admin' },
      schema: {
        summary: 'Train both directions of a translation from parallel texts (the server embeds them with both models)',
        tags: ['vec2vec'],
        body: z.object({
          source_model: modelName,
          target_model: modelName,
          parallel_texts: z.array(z.string().max(100_000)).min(1).max(MAX_TEXTS),
          config: trainConfigSchema.default(trainConfigSchema.parse({})),
        }).strict(),
        response: {
          202: z.object({
            job_id: z.string(),
            status: z.string().describe("'training' once accepted, as in the spec; poll GET /v1/vec2vec/training/{job_id}"),
            estimated_time_seconds: z.number().int(),
            usable_samples: z.number().int(),
          }),
        },
      },
    },
    async (request, reply) => reply.status(202).send(await requestTraining(deps, principalOf(request), request.body)),
  );

  app.get(
    '/v1/vec2vec/training/:job_id',
    {
      config: { permission: 'query' },
      schema: {
        summary: 'Status of a translation training job',
        tags: ['vec2vec'],
        params: z.object({ job_id: z.string().min(1).max(200) }),
        response: { 200: trainingStatus },
      },
    },
    async (request) => {
      const job = await getJob(deps.db, principalOf(request).tenantId, request.params.job_id);
      if (!job || job.kind !== TRAIN_JOB_KIND) throw Errors.notFound('training job', request.params.job_id);
      return trainingView(job);
    },
  );

  app.delete(
    '/v1/vec2vec/training/:job_id',
    {
      config: { permission: 'admin' },
      schema: {
        summary: 'Cancel a training job that has not finished',
        description:
          'A queued job never runs; a running one stops its fit within about a second. No translation is written (one a fit finishing at that moment wrote is deleted). 409 when the job already completed, failed or was cancelled: delete a trained translation with DELETE /v1/vec2vec/{translation_id}.',
        tags: ['vec2vec'],
        params: z.object({ job_id: z.string().min(1).max(200) }),
        response: { 200: z.object({ job_id: z.string(), status: z.literal('cancelled') }) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const id = request.params.job_id;
      await cancelTrainingRequest(deps.db, principal, id);
      return { job_id: id, status: 'cancelled' as const };
    },
  );

  app.get(
    '/v1/vec2vec/registry',
    {
      config: { permission: 'query' },
      schema: {
        summary: 'Translations this tenant can use: shipped built-ins and its own trained ones',
        tags: ['vec2vec'],
        response: { 200: z.object({ translations: z.array(registryEntry) }) },
      },
    },
    async (request) => ({ translations: await registryOf(deps).list(principalOf(request).tenantId) }),
  );

  app.get(
    '/v1/vec2vec/confidence',
    {
      config: { permission: 'query' },
      schema: {
        summary: "A directional pair's confidence and its interpretation band",
        tags: ['vec2vec'],
        querystring: z.object({ source: modelName.describe('short name (glove-100d) or full id'), target: modelName }),
        response: {
          200: z.object({
            source_model: z.string(),
            target_model: z.string(),
            confidence: z.number(),
            band: z.enum(['excellent', 'good', 'fair', 'poor']),
            interpretation: z.string(),
            translation_id: z.string(),
            kind: z.enum(['identity', 'linear', 'neural']),
            metrics: metricsSchema,
          }),
        },
      },
    },
    async (request) => {
      const registry = registryOf(deps);
      const tenantId = principalOf(request).tenantId;
      const source = await resolveKnownModel(registry, tenantId, request.query.source);
      const target = await resolveKnownModel(registry, tenantId, request.query.target);
      if (source.id === target.id) {
        return { source_model: source.id, target_model: target.id, confidence: 1, ...confidenceBand(1), translation_id: IDENTITY_ID, kind: 'identity' as const, metrics: {} };
      }
      const t = await registry.findTranslation(tenantId, source.id, target.id);
      if (!t) throw Errors.notFound('translation', `${source.id} → ${target.id}`);
      return {
        source_model: source.id,
        target_model: target.id,
        confidence: t.confidence,
        ...confidenceBand(t.confidence),
        translation_id: t.id,
        kind: t.record.kind,
        metrics: t.record.metrics,
      };
    },
  );

  app.delete(
    '/v1/vec2vec/:translation_id',
    {
      config: { permission: 'admin' },
      schema: {
        summary: 'Delete one direction of a trained translation',
        tags: ['vec2vec'],
        params: z.object({ translation_id: z.string().min(1).max(200) }),
        response: { 200: z.object({ translation_id: z.string(), deleted: z.literal(true) }) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const id = request.params.translation_id;
      await deleteTranslation(deps, registryOf(deps), principal, id);
      return { translation_id: id, deleted: true as const };
    },
  );
}
