import { z } from 'zod';
import { getKind } from '../connectors/catalog.ts';
import type { ConnectorDeps, DocumentStore } from '../connectors/deps.ts';
import type { AnyKind, Page, SourceContext } from '../connectors/kit/contract.ts';
import { applyTransition, type ConnectorRecord, getConnector } from '../connectors/store.ts';
import { errorSentence } from '../platform/errors.ts';
import { JobCancelledError, type JobContext, type JobHandler, jobHandler, NonRetriableError, RetryAfterError } from '../platform/jobs/index.ts';
import { SYNC_JOB } from '../connectors/sync-request.ts';
import { abortableSleep, applySettingsPatch, buildSourceContext, credentialMasker, findVendorError, maskedError } from '../connectors/kit/context.ts';
import { rateLimitDelayMs } from '../connectors/kit/limits.ts';
import { blockConnector } from '../connectors/kit/rate-buckets.ts';
import { addRunCounts, getRun, markSeen, type SyncRun, seenIds } from '../connectors/runs.ts';
import { authErrorMessage, SourceSettingsError, VendorAuthError, VendorRateLimitedError } from '../connectors/kit/errors.ts';
import { type RunLifecycle, runLifecycle } from './run-lifecycle.ts';

// `done`: documents read so far (the job API's progress count; vendors rarely say how many there are in all).
const checkpointSchema = z.object({ page: z.unknown(), cursor: z.unknown(), pages: z.number().int(), done: z.number().int().optional() });

/** Waits up to this long in-process for a vendor's rate limit; longer waits hand the job back to the queue. */
export const INLINE_RATE_LIMIT_WAIT_MS = 60_000;
const DELETE_BATCH = 500;

export interface SyncEngineOptions {
  readonly random?: () => number;
  readonly inlineWaitMs?: number;
}

function findRetryAfter(err: unknown): RetryAfterError | null {
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof RetryAfterError) return e;
    e = e instanceof Error ? e.cause : undefined;
  }
  return null;
}

/** The completed sync's `status_reason`: the kind's notices (what it could not mirror), then the skipped items. */
function completedReason(skipped: readonly { external_id: string; reason: string }[], notices: ReadonlySet<string>): string | undefined {
  const parts = [...notices, skippedReason(skipped)].filter((x): x is string => !!x);
  return parts.length > 0 ? parts.join(' ') : undefined;
}

/** The completed sync's `status_reason` when the source could not read some items: how many, and the first few. */
function skippedReason(skipped: readonly { external_id: string; reason: string }[]): string | undefined {
  if (skipped.length === 0) return undefined;
  const first = skipped.slice(0, 5).map((x) => `${x.external_id} (${x.reason})`);
  return `${skipped.length} skipped, stored versions kept: ${first.join('; ')}${skipped.length > first.length ? '; …' : ''}`;
}

function requireStore(deps: ConnectorDeps): DocumentStore {
  if (!deps.connectorDocuments) throw new NonRetriableError('no document store is composed: the runtime must provide connectorDocuments');
  return deps.connectorDocuments;
}

/**
 * The connector's side of a run that was already closed when its job resumed (the worker died between closing the
 * run and moving the connector): the transition the run's outcome calls for, nothing else.
 */
async function finishClosedRun(deps: ConnectorDeps, tenantId: string, connectorId: string, run: SyncRun): Promise<unknown> {
  if (run.status === 'completed') {
    await applyTransition(deps.db, tenantId, connectorId, 'sync_completed', {
      lastSyncAt: new Date(run.finished_at ?? deps.clock.now().toISOString()),
      lastError: null,
      rateLimitedUntil: null,
    });
  } else if (run.status === 'failed') {
    await applyTransition(deps.db, tenantId, connectorId, 'sync_failed', { reason: run.error ?? 'the sync failed', lastError: run.error ?? 'the sync failed' });
  }
  return { runId: run.run_id, resumed: `run already ${run.status}` };
}

type Source = SourceContext<unknown, unknown>;
type SyncPayload = { readonly connectorId: string; readonly syncType: 'incremental' | 'full'; readonly runId: string };

/** What one run works with, passed to each of its stages. */
interface RunState {
  readonly deps: ConnectorDeps;
  readonly opts: SyncEngineOptions;
  readonly ctx: JobContext;
  readonly payload: SyncPayload;
  readonly connector: ConnectorRecord;
  readonly kind: AnyKind;
  readonly sync: NonNullable<AnyKind['sync']>;
  readonly store: DocumentStore;
  readonly life: RunLifecycle;
}

/**
 * The `connector.sync` job. Reads the kind's pages one at a time; after each page's documents are
 * committed (idempotent upserts on external_id), records the ids seen and checkpoints the next page and
 * cursor on the job. A killed worker's job is re-leased and resumes from the last checkpoint: the page in
 * flight is read again and its upserts change nothing, so nothing is lost and nothing is duplicated.
 */
export function createSyncHandler(deps: ConnectorDeps, opts: SyncEngineOptions = {}): JobHandler {
  return jobHandler(SYNC_JOB, async (payload, ctx) => {
    const { connectorId, runId } = payload;
    const tenantId = ctx.job.tenantId;
    const store = requireStore(deps);
    const connector = await getConnector(deps.db, tenantId, connectorId);
    if (!connector) return { skipped: 'connector deleted' };
    // A worker killed after the run was closed (its seen ids are gone with it): finish the connector's side only.
    // Running the pages' loop or the full-sync sweep again would sweep against an empty seen set and delete
    // every stored document.
    const run = await getRun(deps.db, tenantId, runId);
    if (run && run.status !== 'running') return finishClosedRun(deps, tenantId, connectorId, run);
    const life = runLifecycle(deps, { tenantId, connector, runId, jobId: ctx.job.id, syncType: payload.syncType });
    if (connector.status !== 'syncing' && connector.status !== 'rate_limited') await life.cancel(`connector is ${connector.status}`);
    await life.begin();
    const kind = getKind(connector.type);
    const sync = kind?.sync;
    if (!kind || !sync) throw new NonRetriableError(`connector kind '${connector.type}' has no sync`);
    const state: RunState = { deps, opts, ctx, payload, connector, kind, sync, store, life };
    try {
      const read = await readAllPages(state);
      if (read === 'interrupted') return { interrupted: true };
      if (payload.syncType === 'full') await sweep(state);
      await usageFindings(state);
      await life.complete(read.cursor, { pages: read.pages, skippedReason: completedReason(read.skipped, read.notices) });
      return { runId, pages: read.pages };
    } catch (err) {
      throw await syncFailure(state, err);
    }
  });
}

/** The kind's source context; a vendor block met by another process (a webhook, an action, another sync) is waited out as `rate_limited` too. */
async function openSource({ deps, opts, ctx, connector, kind, life }: RunState): Promise<Source> {
  let blockedWaits = 0;
  return buildSourceContext(deps, connector, kind, {
    signal: ctx.signal,
    log: ctx.log,
    acquire: {
      onBlocked: async (waitMs) => {
        if (await life.rateLimited(new Date(deps.clock.now().getTime() + waitMs))) blockedWaits++;
        // A long block (e.g. an exhausted hourly quota) hands the job back to the queue instead of holding a worker.
        if (waitMs > (opts.inlineWaitMs ?? INLINE_RATE_LIMIT_WAIT_MS)) throw new RetryAfterError('vendor rate limited (blocked for every process)', waitMs);
      },
      onUnblocked: async () => {
        if (blockedWaits > 0) await life.cleared();
        blockedWaits = 0;
      },
    },
  });
}

/** Runs vendor steps; on a vendor rate limit waits (status rate_limited) and answers null so the step is run again. */
function rateLimitedSteps({ deps, opts, ctx, connector, life }: RunState) {
  let attempt = 0;
  return {
    reset: () => {
      attempt = 0;
    },
    async run<T>(fn: () => Promise<T>): Promise<T | null> {
      try {
        return await fn();
      } catch (err) {
        const vendor = findVendorError(err);
        if (!(vendor instanceof VendorRateLimitedError)) throw err;
        attempt++;
        const delay = rateLimitDelayMs(attempt, vendor.retryAfterMs, opts.random);
        // Every process using this connector waits too (webhooks, actions, other syncs): stored in its shared bucket.
        await blockConnector(deps.db, { tenantId: connector.tenantId, connectorId: connector.id }, delay);
        await life.rateLimited(new Date(deps.clock.now().getTime() + delay));
        ctx.log.info({ connectorId: connector.id, delayMs: delay, attempt }, 'vendor rate limited; waiting');
        if (delay > (opts.inlineWaitMs ?? INLINE_RATE_LIMIT_WAIT_MS)) throw new RetryAfterError('vendor rate limited', delay);
        await abortableSleep(delay, ctx.signal);
        await life.cleared();
        return null;
      }
    },
  };
}

/** Where the run starts: the job's checkpoint when it resumes, else the kind's first page (credentials checked first). */
function startingPoint({ ctx, payload, connector, sync }: RunState, source: Source) {
  const saved = checkpointSchema.safeParse(ctx.job.checkpoint);
  if (saved.success && saved.data.page !== undefined) {
    const page = saved.data.page === null ? null : sync.pageSchema.parse(saved.data.page);
    return { page, cursor: saved.data.cursor ?? null, pages: saved.data.pages, done: saved.data.done ?? 0, validateFirst: false };
  }
  const since = payload.syncType === 'incremental' ? sync.cursorSchema.safeParse(connector.syncCursor) : null;
  const cursor = since?.success ? since.data : null;
  return { page: sync.start(payload.syncType, cursor, source.settings), cursor, pages: 0, done: 0, validateFirst: true };
}

/** Reads every page from the starting point, storing and checkpointing each; 'interrupted' when the worker stops. */
async function readAllPages(state: RunState): Promise<'interrupted' | { cursor: unknown; pages: number; skipped: SkippedItem[]; notices: Set<string> }> {
  const { deps, ctx, connector, kind, sync, life } = state;
  let source = await openSource(state);
  let { page, cursor, pages, done, validateFirst } = startingPoint(state, source);
  const steps = rateLimitedSteps(state);
  // Credentials are checked against the vendor before the first page (not again on a resumed run).
  if (validateFirst && kind.validate) {
    const validate = kind.validate;
    let check = await steps.run(() => validate(source));
    while (check === null) check = await steps.run(() => validate(source));
    if (!check.ok) throw new VendorAuthError(check.message);
    source = await applySettingsPatch(deps, connector, kind, source, check.settings);
    steps.reset();
  }
  const skipped: SkippedItem[] = [];
  const notices = new Set<string>();
  while (page !== null) {
    if (ctx.signal.aborted) return 'interrupted';
    await life.stopIfCancelled();
    const current = page;
    const result = await steps.run(() => sync.readPage(source, current));
    if (result === null) continue;
    // A pause or delete that landed while the page was in flight: store nothing more.
    await life.stopIfCancelled();
    steps.reset();
    await storePage(state, result);
    skipped.push(...(result.skipped ?? []));
    for (const n of result.notices ?? []) notices.add(n);
    cursor = result.cursor ?? cursor;
    pages++;
    done += result.documents.length + (result.skipped?.length ?? 0);
    await ctx.progress(Math.min(0.95, pages / (pages + 3)), { page: result.next, cursor, pages, done });
    page = result.next;
  }
  return { cursor, pages, skipped, notices };
}

type SkippedItem = { external_id: string; reason: string };

/** One page's documents, identities, usage and deletions, committed before the page is checkpointed. */
async function storePage({ deps, payload, connector, store }: RunState, result: Page<unknown, unknown>): Promise<void> {
  const { runId, syncType } = payload;
  const target = { tenantId: connector.tenantId, connectorId: connector.id };
  const counts = { added: 0, updated: 0, unchanged: 0, deleted: 0 };
  if (result.documents.length > 0) {
    const r = await store.upsert({ ...target, documents: result.documents });
    counts.added = r.added;
    counts.updated = r.updated;
    counts.unchanged = r.unchanged;
    if (syncType === 'full') await markSeen(deps.db, runId, result.documents.map((d) => d.external_id));
  }
  // Before the page is checkpointed, like its documents: a resumed sync does not lose a membership change.
  if (result.identities && store.identities) await store.identities({ ...target, identities: result.identities });
  // Usage buckets likewise, upserted by record_id: a page read again replaces its rows.
  if (result.usage && result.usage.length > 0) {
    if (!store.usage) throw new NonRetriableError('no usage store is composed: the runtime must provide connectorDocuments.usage');
    await store.usage({ ...target, provider: connector.type, records: result.usage });
  }
  // Unreadable this time, not gone: the full-sync sweep keeps their stored versions.
  if (syncType === 'full' && result.skipped && result.skipped.length > 0) await markSeen(deps.db, runId, result.skipped.map((x) => x.external_id));
  // Kept on purpose by the kind (no longer listed, still wanted): the full-sync sweep leaves them too.
  if (syncType === 'full' && result.kept && result.kept.length > 0) await markSeen(deps.db, runId, result.kept);
  if (result.deleted && result.deleted.length > 0) counts.deleted = await store.remove({ ...target, externalIds: result.deleted });
  await addRunCounts(deps.db, runId, { ...counts, batches: 1 });
}

/** After a full sync: what the source no longer has goes (everything stored that this run did not see). */
async function sweep({ deps, ctx, payload, connector, store, life }: RunState): Promise<void> {
  const { runId } = payload;
  const target = { tenantId: connector.tenantId, connectorId: connector.id };
  // Still this job's worker (a worker that lost its lease to another must not sweep: the other runs the same
  // pages and sweeps itself), and still this open run.
  await ctx.progress(0.96);
  const open = await getRun(deps.db, connector.tenantId, runId);
  if (open?.status !== 'running') await life.cancel(`the run is ${open?.status ?? 'gone'}: not sweeping`);
  const seen = await seenIds(deps.db, runId);
  const vanished = (await store.listExternalIds(target.tenantId, target.connectorId)).filter((id) => !seen.has(id));
  let deleted = 0;
  for (let i = 0; i < vanished.length; i += DELETE_BATCH) deleted += await store.remove({ ...target, externalIds: vanished.slice(i, i + DELETE_BATCH) });
  if (deleted > 0) await addRunCounts(deps.db, runId, { deleted });
}

/**
 * AI-usage findings over what this sync stored (idempotent: a resumed run computes the same, each recorded once).
 * A failure here is logged, not the sync's: the next completed sync computes them again.
 */
async function usageFindings({ ctx, connector, kind, store }: RunState): Promise<void> {
  if (kind.group !== 'llm_providers' || !store.usageSynced) return;
  try {
    await store.usageSynced({ tenantId: connector.tenantId, connectorId: connector.id });
  } catch (err) {
    ctx.log.warn({ connectorId: connector.id, err: errorSentence(err) }, 'AI-usage findings not computed');
  }
}

/** What the handler throws for `err`: retried, or failed for good (the run and the connector then say why, masked). */
async function syncFailure({ deps, ctx, connector, life }: RunState, err: unknown): Promise<unknown> {
  if (err instanceof JobCancelledError || ctx.signal.aborted) return err;
  // Thrown inside a vendor call (the bucket's wait), an SDK may have wrapped it.
  const retryAfter = err instanceof RetryAfterError ? err : findRetryAfter(err);
  // A rate-limit hand-back counts as an attempt: after the last one the sync has failed (else the connector
  // would stay `rate_limited`, its run `running`, and every later sync refused as already running).
  if (retryAfter && ctx.job.attempts < ctx.job.maxAttempts) return retryAfter;
  // Vendors echo tokens in error bodies: the run, the connector, the audit, the job and the log get masked text.
  const mask = await credentialMasker(deps, connector);
  if (retryAfter) {
    const message = mask(`the vendor kept rate-limiting the sync through ${ctx.job.attempts} attempts: ${retryAfter.message}`);
    await life.fail('sync_failed', message);
    return new NonRetriableError(message);
  }
  const vendor = findVendorError(err);
  if (vendor instanceof VendorAuthError) {
    const message = mask(authErrorMessage(vendor));
    await life.fail(vendor instanceof SourceSettingsError ? 'settings_invalid' : 'credentials_invalid', message);
    return new NonRetriableError(message);
  }
  // A zod error (a vendor answer that does not match its schema) says so in a sentence, not as JSON.
  const message = mask(errorSentence(err));
  if (err instanceof NonRetriableError || ctx.job.attempts >= ctx.job.maxAttempts) await life.fail('sync_failed', message);
  return maskedError(err instanceof z.ZodError ? new Error(message) : err, mask);
}
