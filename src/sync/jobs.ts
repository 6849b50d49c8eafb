import type { ConnectorDeps } from '../connectors/deps.ts';
import { SYNC_JOB, VALIDATE_JOB } from '../connectors/sync-request.ts';
import { createWebhookJobHandler, WEBHOOK_JOB } from '../connectors/webhooks.ts';
import { EMBED_JOB, embedJobHandler } from '../documents/embed.ts';
import type { DocumentsDeps } from '../documents/types.ts';
import type { JobHandler, JobKind } from '../platform/jobs/index.ts';
import { createTrainJobHandler, TRAIN_JOB, type TrainingDeps } from '../translations/training.ts';
import { createSyncHandler, type SyncEngineOptions } from './engine.ts';
import { createValidateHandler } from './validate.ts';

export type JobDeps = ConnectorDeps & DocumentsDeps & TrainingDeps;

interface CatalogueEntry {
  // biome-ignore lint/suspicious/noExplicitAny: the catalogue holds kinds of every payload type; each handler parses its own
  readonly job: JobKind<any>;
  readonly handler: (deps: JobDeps, opts: { readonly sync?: SyncEngineOptions }) => JobHandler;
}

/**
 * The job catalogue: every kind the worker runs. A kind's payload schema, attempts and dedupe key are its `JobKind`
 * (declared beside the code that enqueues it, with `enqueue(db, KIND, tenantId, payload)` type-checked against it);
 * its handler receives the parsed payload (`jobHandler`). Adding a kind: define it, write its handler, add it here.
 */
export const JOB_CATALOGUE: readonly CatalogueEntry[] = [
  { job: EMBED_JOB, handler: (deps) => embedJobHandler(deps) },
  { job: SYNC_JOB, handler: (deps, opts) => createSyncHandler(deps, opts.sync) },
  { job: VALIDATE_JOB, handler: (deps) => createValidateHandler(deps) },
  { job: WEBHOOK_JOB, handler: (deps) => createWebhookJobHandler(deps) },
  { job: TRAIN_JOB, handler: (deps) => createTrainJobHandler(deps) },
];

/** The worker's handler map, derived from the catalogue; `only` keeps some kinds (a test's worker). */
export function jobHandlers(
  deps: JobDeps,
  // biome-ignore lint/suspicious/noExplicitAny: any kind of the catalogue
  opts: { readonly only?: readonly JobKind<any>[]; readonly sync?: SyncEngineOptions } = {},
): Map<string, JobHandler> {
  const only = opts.only ? new Set(opts.only.map((k) => k.kind)) : null;
  return new Map(JOB_CATALOGUE.filter((e) => !only || only.has(e.job.kind)).map((e) => [e.job.kind, e.handler(deps, opts)]));
}
