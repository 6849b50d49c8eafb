import { z } from 'zod';
import { recordAudit } from '../audit/index.ts';
import { getKind } from '../connectors/catalog.ts';
import type { ConnectorDeps, DocumentStore } from '../connectors/deps.ts';
import { applyTransition, getConnector, updateConnectorFields } from '../connectors/store.ts';
import { errorSentence } from '../platform/errors.ts';
import { JobCancelledError, type JobHandler, jobHandler, NonRetriableError, RetryAfterError } from '../platform/jobs/index.ts';
import { SYNC_JOB } from '../connectors/sync-request.ts';
import { Ops } from '../platform/operations.ts';
import { abortableSleep, applySettingsPatch, buildSourceContext, credentialMasker, findVendorError, maskedError } from '../connectors/kit/context.ts';
import { rateLimitDelayMs } from '../connectors/kit/limits.ts';
import { blockConnector } from '../connectors/kit/rate-buckets.ts';
import { addRunCounts, finishRun, getRun, markSeen, type SyncRun, seenIds } from '../connectors/runs.ts';
import { nextFullAt, nextIncrementalAt, scheduleFor } from '../connectors/schedule.ts';
import { authErrorMessage, SourceSettingsError, VendorAuthError, VendorRateLimitedError } from '../connectors/kit/errors.ts';

// `done`: documents read so far (the job API's progress count; vendors rarely say how many there are in all).
const checkpointSchema = z.object({ page: z.unknown(), cursor: z.unknown(), pages: z.number().int(), done: z.number().int().optional() });

/** Waits up to this long in-process for a vendor's rate limit; longer waits hand the job back to the queue. */
export const INLINE_RATE_LIMIT_WAIT_MS = 60_000;
const DELETE_BATCH = 500;

export interface SyncEngineOptions {
  readonly random?: () => number;
  readonly inlineWaitMs?: number;
}

async function jobCancelled(deps: ConnectorDeps, jobId: string): Promise<boolean> {
  const r = await deps.db.query<{ status: string }>('SELECT status FROM jobs WHERE id = $1', [jobId]);
  return r.rows[0]?.status === 'cancelled';
}

function findRetryAfter(err: unknown): RetryAfterError | null {
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof RetryAfterError) return e;
    e = e instanceof Error ? e.cause : undefined;
  }
  return null;
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
    if (connector.status !== 'syncing' && connector.status !== 'rate_limited') {
      await finishRun(deps.db, runId, 'cancelled', deps.clock.now(), `connector is ${connector.status}`);
      throw new JobCancelledError(`connector is ${connector.status}`);
    }
    if (connector.status === 'rate_limited') await applyTransition(deps.db, tenantId, connectorId, 'rate_limit_cleared');
    const kind = getKind(connector.type);
    const sync = kind?.sync;
    if (!kind || !sync) throw new NonRetriableError(`connector kind '${connector.type}' has no sync`);

    const fail = async (message: string, event: 'credentials_invalid' | 'settings_invalid' | 'sync_failed') => {
      await finishRun(deps.db, runId, 'failed', deps.clock.now(), message);
      await applyTransition(deps.db, tenantId, connectorId, event, { reason: message, lastError: message });
      await recordAudit(deps.db, { tenantId, action: Ops.connectorSyncFailed, details: { connector_id: connectorId, run_id: runId, error: message } });
    };

    try {
      let blockedWaits = 0;
      let source = await buildSourceContext(deps, connector, kind, {
        signal: ctx.signal,
        log: ctx.log,
        acquire: {
          // Another process (a webhook, an action, another sync) met the vendor's 429: wait it out as rate_limited too.
          onBlocked: async (waitMs) => {
            const until = new Date(deps.clock.now().getTime() + waitMs);
            const moved = await applyTransition(deps.db, tenantId, connectorId, 'vendor_rate_limited', { reason: `vendor rate limit: retrying at ${until.toISOString()}`, rateLimitedUntil: until });
            if (moved.ok) blockedWaits++;
            await addRunCounts(deps.db, runId, { rateLimitedWaits: 1 });
            // A long block (e.g. an exhausted hourly quota) hands the job back to the queue instead of holding a worker.
            if (waitMs > (opts.inlineWaitMs ?? INLINE_RATE_LIMIT_WAIT_MS)) throw new RetryAfterError('vendor rate limited (blocked for every process)', waitMs);
          },
          onUnblocked: async () => {
            if (blockedWaits > 0) await applyTransition(deps.db, tenantId, connectorId, 'rate_limit_cleared', { rateLimitedUntil: null });
            blockedWaits = 0;
          },
        },
      });
      const saved = checkpointSchema.safeParse(ctx.job.checkpoint);
      let page: unknown;
      let cursor: unknown;
      let pages = 0;
      let done = 0;
      // Credentials are checked against the vendor before the first page (not again on a resumed run).
      let validateFirst = false;
      if (saved.success && saved.data.page !== undefined) {
        page = saved.data.page === null ? null : sync.pageSchema.parse(saved.data.page);
        cursor = saved.data.cursor ?? null;
        pages = saved.data.pages;
        done = saved.data.done ?? 0;
      } else {
        validateFirst = true;
        const since = payload.syncType === 'incremental' ? sync.cursorSchema.safeParse(connector.syncCursor) : null;
        cursor = since?.success ? since.data : null;
        page = sync.start(payload.syncType, since?.success ? since.data : null, source.settings);
      }
      let limitedAttempt = 0;
      /** Runs one vendor step; on a vendor rate limit waits (status rate_limited) and returns null to retry it. */
      const step = async <T>(fn: () => Promise<T>): Promise<T | null> => {
        try {
          return await fn();
        } catch (err) {
          const vendor = findVendorError(err);
          if (!(vendor instanceof VendorRateLimitedError)) throw err;
          limitedAttempt++;
          const delay = rateLimitDelayMs(limitedAttempt, vendor.retryAfterMs, opts.random);
          const until = new Date(deps.clock.now().getTime() + delay);
          // Every process using this connector waits too (webhooks, actions, other syncs): stored in its shared bucket.
          await blockConnector(deps.db, { tenantId, connectorId }, delay);
          await applyTransition(deps.db, tenantId, connectorId, 'vendor_rate_limited', { reason: `vendor rate limit: retrying at ${until.toISOString()}`, rateLimitedUntil: until });
          await addRunCounts(deps.db, runId, { rateLimitedWaits: 1 });
          ctx.log.info({ connectorId, delayMs: delay, attempt: limitedAttempt }, 'vendor rate limited; waiting');
          if (delay > (opts.inlineWaitMs ?? INLINE_RATE_LIMIT_WAIT_MS)) throw new RetryAfterError('vendor rate limited', delay);
          await abortableSleep(delay, ctx.signal);
          await applyTransition(deps.db, tenantId, connectorId, 'rate_limit_cleared', { rateLimitedUntil: null });
          return null;
        }
      };
      if (validateFirst && kind.validate) {
        const validate = kind.validate;
        let check = await step(() => validate(source));
        while (check === null) check = await step(() => validate(source));
        if (!check.ok) throw new VendorAuthError(check.message);
        source = await applySettingsPatch(deps, connector, kind, source, check.settings);
        limitedAttempt = 0;
      }
      const skipped: { external_id: string; reason: string }[] = [];
      while (page !== null) {
        if (ctx.signal.aborted) return { interrupted: true };
        if (await jobCancelled(deps, ctx.job.id)) {
          await finishRun(deps.db, runId, 'cancelled', deps.clock.now(), 'cancelled (connector paused or deleted)');
          throw new JobCancelledError('cancelled (connector paused or deleted)');
        }
        const current = page;
        const result = await step(() => sync.readPage(source, current));
        if (result === null) continue;
        // A pause or delete that landed while the page was in flight: store nothing more.
        if (await jobCancelled(deps, ctx.job.id)) {
          await finishRun(deps.db, runId, 'cancelled', deps.clock.now(), 'cancelled (connector paused or deleted)');
          throw new JobCancelledError('cancelled (connector paused or deleted)');
        }
        limitedAttempt = 0;
        const counts = { added: 0, updated: 0, unchanged: 0, deleted: 0 };
        if (result.documents.length > 0) {
          const r = await store.upsert({ tenantId, connectorId, documents: result.documents });
          counts.added = r.added;
          counts.updated = r.updated;
          counts.unchanged = r.unchanged;
          if (payload.syncType === 'full') await markSeen(deps.db, runId, result.documents.map((d) => d.external_id));
        }
        // Before the page is checkpointed, like its documents: a resumed sync does not lose a membership change.
        if (result.identities && store.identities) await store.identities({ tenantId, connectorId, identities: result.identities });
        // Usage buckets likewise, upserted by record_id: a page read again replaces its rows.
        if (result.usage && result.usage.length > 0) {
          if (!store.usage) throw new NonRetriableError('no usage store is composed: the runtime must provide connectorDocuments.usage');
          await store.usage({ tenantId, connectorId, provider: connector.type, records: result.usage });
        }
        if (result.skipped && result.skipped.length > 0) {
          skipped.push(...result.skipped);
          // Unreadable this time, not gone: the full-sync sweep below keeps their stored versions.
          if (payload.syncType === 'full') await markSeen(deps.db, runId, result.skipped.map((x) => x.external_id));
        }
        // Kept on purpose by the kind (no longer listed, still wanted): the full-sync sweep leaves them too.
        if (payload.syncType === 'full' && result.kept && result.kept.length > 0) await markSeen(deps.db, runId, result.kept);
        if (result.deleted && result.deleted.length > 0) {
          counts.deleted = await store.remove({ tenantId, connectorId, externalIds: result.deleted });
        }
        cursor = result.cursor ?? cursor;
        pages++;
        await addRunCounts(deps.db, runId, { ...counts, batches: 1 });
        done += result.documents.length + (result.skipped?.length ?? 0);
        await ctx.progress(Math.min(0.95, pages / (pages + 3)), { page: result.next, cursor, pages, done });
        page = result.next;
      }

      if (payload.syncType === 'full') {
        // Still this job's worker (a worker that lost its lease to another must not sweep: the other runs the same
        // pages and sweeps itself), and still this open run.
        await ctx.progress(0.96);
        const open = await getRun(deps.db, tenantId, runId);
        if (open?.status !== 'running') throw new JobCancelledError(`the run is ${open?.status ?? 'gone'}: not sweeping`);
        // What the source no longer has goes: everything stored that this full sync did not see.
        const seen = await seenIds(deps.db, runId);
        const vanished = (await store.listExternalIds(tenantId, connectorId)).filter((id) => !seen.has(id));
        let deleted = 0;
        for (let i = 0; i < vanished.length; i += DELETE_BATCH) {
          deleted += await store.remove({ tenantId, connectorId, externalIds: vanished.slice(i, i + DELETE_BATCH) });
        }
        if (deleted > 0) await addRunCounts(deps.db, runId, { deleted });
      }

      // AI-usage findings over what this sync stored (idempotent: a resumed run computes the same, each recorded once).
      // A failure here is logged, not the sync's: the next completed sync computes them again.
      if (kind.group === 'llm_providers' && store.usageSynced) {
        try {
          await store.usageSynced({ tenantId, connectorId });
        } catch (err) {
          ctx.log.warn({ connectorId, err: errorSentence(err) }, 'AI-usage findings not computed');
        }
      }

      const now = deps.clock.now();
      const schedule = scheduleFor(connector.settings, { intervalMinutes: deps.config.connectors.syncIntervalMinutes, fullAtUtc: deps.config.connectors.fullSyncAtUtc });
      await updateConnectorFields(deps.db, tenantId, connectorId, {
        syncCursor: cursor ?? null,
        nextIncrementalAt: nextIncrementalAt(now, schedule),
        ...(payload.syncType === 'full' ? { nextFullAt: nextFullAt(now, schedule) } : {}),
      });
      await finishRun(deps.db, runId, 'completed', now);
      await applyTransition(deps.db, tenantId, connectorId, 'sync_completed', { lastSyncAt: now, lastError: null, rateLimitedUntil: null, reason: skippedReason(skipped) });
      await recordAudit(deps.db, { tenantId, action: Ops.connectorSyncCompleted, details: { connector_id: connectorId, run_id: runId, sync_type: payload.syncType, pages } });
      return { runId, pages };
    } catch (err) {
      if (err instanceof JobCancelledError || ctx.signal.aborted) throw err;
      // Thrown inside a vendor call (the bucket's wait), an SDK may have wrapped it.
      const retryAfter = err instanceof RetryAfterError ? err : findRetryAfter(err);
      // A rate-limit hand-back counts as an attempt: after the last one the sync has failed (else the connector
      // would stay `rate_limited`, its run `running`, and every later sync refused as already running).
      if (retryAfter && ctx.job.attempts < ctx.job.maxAttempts) throw retryAfter;
      if (retryAfter) {
        const mask = await credentialMasker(deps, connector);
        const message = mask(`the vendor kept rate-limiting the sync through ${ctx.job.attempts} attempts: ${retryAfter.message}`);
        await fail(message, 'sync_failed');
        throw new NonRetriableError(message);
      }
      // Vendors echo tokens in error bodies: the run, the connector, the audit, the job and the log get masked text.
      const mask = await credentialMasker(deps, connector);
      const vendor = findVendorError(err);
      if (vendor instanceof VendorAuthError) {
        const message = mask(authErrorMessage(vendor));
        await fail(message, vendor instanceof SourceSettingsError ? 'settings_invalid' : 'credentials_invalid');
        throw new NonRetriableError(message);
      }
      // A zod error (a vendor answer that does not match its schema) says so in a sentence, not as JSON.
      const message = mask(errorSentence(err));
      if (err instanceof NonRetriableError || ctx.job.attempts >= ctx.job.maxAttempts) await fail(message, 'sync_failed');
      throw maskedError(err instanceof z.ZodError ? new Error(message) : err, mask);
    }
  });
}
