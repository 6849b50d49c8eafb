import type { Logger } from 'pino';
import type { DatabaseExecutor } from '../db/executor.ts';
import { randomSuffix } from '../ids.ts';
import { backoffMs } from '../retry.ts';
import { type Job, rowToJob } from './queue.ts';

/** Thrown by a handler when retrying cannot help (bad credentials, invalid input). */
export class NonRetriableError extends Error {
  override readonly name = 'NonRetriableError';
}

/**
 * Thrown by a handler that stopped because its work was cancelled (e.g. its connector was paused or
 * deleted mid-run): the job ends as `cancelled`, not `completed` or `failed`, and is not retried.
 */
export class JobCancelledError extends Error {
  override readonly name = 'JobCancelledError';
}

/** Thrown by a handler to be retried after a known delay (a vendor's Retry-After). */
export class RetryAfterError extends Error {
  override readonly name = 'RetryAfterError';
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

export interface JobContext {
  readonly job: Job;
  readonly signal: AbortSignal;
  readonly log: Logger;
  /** Records progress (0..1) and an optional checkpoint that a resumed run receives as `job.checkpoint`. */
  progress(progress: number, checkpoint?: unknown): Promise<void>;
}

export type JobHandler = (ctx: JobContext) => Promise<unknown>;

export interface WorkerOptions {
  readonly db: DatabaseExecutor;
  readonly log: Logger;
  readonly handlers: ReadonlyMap<string, JobHandler>;
  readonly concurrency: number;
  readonly pollMs: number;
  readonly leaseMs?: number;
  readonly backoffBaseMs?: number;
}

export interface Worker {
  readonly id: string;
  start(): void;
  /** Stops claiming, aborts running handlers and hands their jobs back to the queue. */
  stop(): Promise<void>;
  /** Runs claim-and-execute until no job is ready (tests and `atrium sync --wait`). */
  drain(): Promise<number>;
}

/** A failed job waits at most this long before its next attempt. */
export const JOB_BACKOFF_CAP_MS = 600_000;

/** Leases the next due job of `kinds` (or one whose lease expired) for worker `id`. */
async function claimJob(db: WorkerOptions['db'], id: string, leaseMs: number, kinds: string[]): Promise<Job | null> {
  const r = await db.query(
    `UPDATE jobs SET status = 'running', attempts = attempts + 1, lease_owner = $1,
       lease_expires_at = now() + ($2::int * interval '1 millisecond'), updated_at = now()
     WHERE id = (
       SELECT id FROM jobs
       WHERE kind = ANY($3::text[])
         AND ((status = 'queued' AND run_at <= now()) OR (status = 'running' AND lease_expires_at < now()))
       ORDER BY priority DESC, run_at, created_at
       LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING *`,
    [id, leaseMs, kinds],
  );
  return r.rows[0] ? rowToJob(r.rows[0]) : null;
}

/** Runs one leased job's handler under a heartbeat and records how it ended (completed, cancelled, failed, retry). */
async function executeJob(opts: WorkerOptions, id: string, leaseMs: number, job: Job, controller = new AbortController()): Promise<void> {
  const log = opts.log.child({ jobId: job.id, jobKind: job.kind, tenantId: job.tenantId });
  const handler = opts.handlers.get(job.kind);
  // Another worker re-leases a job whose lease expired (this process paused past it: a long GC, a frozen VM, a
  // network partition). Then this handler must stop writing: both would run the same pages, and the first to
  // finish would close the run under the other. A heartbeat or progress write that finds the lease gone aborts it.
  const leaseLost = () => {
    if (controller.signal.aborted) return;
    log.warn('job lease lost to another worker: stopping');
    controller.abort(new Error('lease lost'));
  };
  const heartbeat = setInterval(() => {
    opts.db
      .query(
        `UPDATE jobs SET lease_expires_at = now() + ($2::int * interval '1 millisecond') WHERE id = $1 AND lease_owner = $3`,
        [job.id, leaseMs, id],
      )
      .then((r) => {
        if (r.affectedRows === 0) leaseLost();
      })
      .catch((err) => log.warn({ err }, 'job heartbeat failed'));
  }, Math.max(50, Math.floor(leaseMs / 3)));
  heartbeat.unref();
  try {
    if (!handler) throw new NonRetriableError(`no handler for job kind ${job.kind}`);
    const result = await handler({
      job,
      signal: controller.signal,
      log,
      progress: async (progress, checkpoint) => {
        const r = await opts.db.query(
          `UPDATE jobs SET progress = $2, checkpoint = COALESCE($3::jsonb, checkpoint), updated_at = now()
           WHERE id = $1 AND lease_owner = $4`,
          [job.id, Math.max(0, Math.min(1, progress)), checkpoint === undefined ? null : JSON.stringify(checkpoint), id],
        );
        if (r.affectedRows === 0) {
          leaseLost();
          throw new Error('lease lost: another worker holds this job');
        }
      },
    });
    if (controller.signal.aborted) return;
    // `status = 'running'`: a job cancelled while its handler ran (cancelJobs) stays cancelled.
    await opts.db.query(
      `UPDATE jobs SET status = 'completed', progress = 1, result = $2, finished_at = now(), updated_at = now(),
         lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $3 AND status = 'running'`,
      [job.id, JSON.stringify(result ?? null), id],
    );
    log.info({ attempts: job.attempts }, 'job completed');
  } catch (err) {
    if (controller.signal.aborted) return;
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof JobCancelledError) {
      await opts.db.query(
        `UPDATE jobs SET status = 'cancelled', last_error = $2, finished_at = now(), updated_at = now(), dedupe_key = NULL,
           lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $3 AND status IN ('running', 'cancelled')`,
        [job.id, message, id],
      );
      log.info({ reason: message }, 'job cancelled');
      return;
    }
    const final = err instanceof NonRetriableError || job.attempts >= job.maxAttempts;
    if (final) {
      await opts.db.query(
        `UPDATE jobs SET status = 'failed', last_error = $2, finished_at = now(), updated_at = now(),
           lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $3 AND status = 'running'`,
        [job.id, message, id],
      );
      log.warn({ err: message, attempts: job.attempts }, 'job failed');
    } else {
      const delay = err instanceof RetryAfterError ? err.delayMs : backoffMs(job.attempts, { baseMs: opts.backoffBaseMs ?? 1000, capMs: JOB_BACKOFF_CAP_MS });
      await opts.db.query(
        `UPDATE jobs SET status = 'queued', last_error = $2, run_at = now() + ($3::int * interval '1 millisecond'),
           updated_at = now(), lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $4 AND status = 'running'`,
        [job.id, message, delay, id],
      );
      log.info({ err: message, attempts: job.attempts, retryInMs: delay }, 'job will retry');
    }
  } finally {
    clearInterval(heartbeat);
  }
}

/**
 * Leases jobs with `FOR UPDATE SKIP LOCKED`, so several workers (processes) never run one job twice.
 * A job whose worker died is reclaimed when its lease expires; handlers resume from `job.checkpoint`.
 */
export function createWorker(opts: WorkerOptions): Worker {
  const id = `worker-${randomSuffix(8)}`;
  const leaseMs = opts.leaseMs ?? 30_000;
  const kinds = [...opts.handlers.keys()];
  const running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  let polling = false;

  const claim = () => claimJob(opts.db, id, leaseMs, kinds);
  const execute = (job: Job, controller?: AbortController) => executeJob(opts, id, leaseMs, job, controller);

  function launch(job: Job): void {
    const controller = new AbortController();
    const done = execute(job, controller)
      .catch((err) => opts.log.error({ err, jobId: job.id }, 'job bookkeeping failed'))
      .finally(() => running.delete(job.id));
    running.set(job.id, { controller, done });
  }

  async function poll(): Promise<void> {
    if (polling || stopped) return;
    polling = true;
    try {
      while (!stopped && running.size < opts.concurrency) {
        const job = await claim();
        if (!job) break;
        launch(job);
      }
    } catch (err) {
      opts.log.error({ err }, 'job poll failed');
    } finally {
      polling = false;
    }
  }

  return {
    id,
    start() {
      if (!stopped || kinds.length === 0) return;
      stopped = false;
      timer = setInterval(() => void poll(), opts.pollMs);
      timer.unref();
      void poll();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      const inFlight = [...running.entries()];
      for (const [, r] of inFlight) r.controller.abort();
      await Promise.allSettled(inFlight.map(([, r]) => r.done));
      // Hand interrupted jobs back so the next start resumes them from their checkpoint.
      for (const [jobId] of inFlight) {
        await opts.db
          .query(
            `UPDATE jobs SET status = 'queued', attempts = GREATEST(attempts - 1, 0), lease_owner = NULL,
               lease_expires_at = NULL, run_at = now(), updated_at = now()
             WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
            [jobId, id],
          )
          .catch(() => undefined);
      }
    },
    async drain() {
      let count = 0;
      for (;;) {
        const job = await claim();
        if (!job) break;
        count++;
        await execute(job);
      }
      return count;
    },
  };
}
