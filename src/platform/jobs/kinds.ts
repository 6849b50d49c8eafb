import type { z } from 'zod';
import type { Queryable } from '../db/executor.ts';
import { type Job, enqueueJob } from './queue.ts';
import { type JobContext, type JobHandler, NonRetriableError } from './worker.ts';

/**
 * A job kind: its name, the zod schema of its payload, how often it is attempted and, where a second request must
 * join the first, its dedupe key. Declared once beside the code that enqueues it; the catalogue (sync/jobs.ts)
 * binds each kind to its handler.
 */
export interface JobKind<P> {
  readonly kind: string;
  readonly payload: z.ZodType<P>;
  readonly maxAttempts: number;
  /** At most one queued or running job per key: enqueueing again returns the waiting job (`created: false`). */
  readonly dedupeKey?: (tenantId: string, payload: P) => string;
}

export function defineJobKind<P>(def: JobKind<P>): JobKind<P> {
  return def;
}

/** Enqueues a job of `job`'s kind; the payload is type-checked here and parsed before it is stored. */
export async function enqueue<P>(
  db: Queryable,
  job: JobKind<P>,
  tenantId: string,
  payload: NoInfer<P>,
  opts: { readonly id?: string; readonly runAt?: Date; readonly priority?: number } = {},
): Promise<{ job: Job; created: boolean }> {
  const parsed = job.payload.parse(payload);
  return enqueueJob(db, {
    ...opts,
    tenantId,
    kind: job.kind,
    payload: parsed as Record<string, unknown>,
    maxAttempts: job.maxAttempts,
    ...(job.dedupeKey ? { dedupeKey: job.dedupeKey(tenantId, parsed) } : {}),
  });
}

/** A handler that receives its kind's parsed payload. */
export type TypedJobHandler<P> = (payload: P, ctx: JobContext) => Promise<unknown>;

/** The worker's handler for `job`: a payload that does not match the kind's schema fails the job at once (retrying cannot fix it). */
export function jobHandler<P>(job: JobKind<P>, run: TypedJobHandler<P>): JobHandler {
  return async (ctx) => {
    const parsed = job.payload.safeParse(ctx.job.payload);
    if (!parsed.success) throw new NonRetriableError(`invalid ${job.kind} job payload: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ')}`);
    return run(parsed.data, ctx);
  };
}

/** Of `values`, those that a queued or running job of `job`'s kind names in its payload's array `field` (e.g. the documents an embed job will still cover). */
export async function namedByActiveJobs<P, K extends keyof P & string>(
  db: Queryable,
  job: JobKind<P>,
  tenantId: string,
  field: P[K] extends readonly string[] | null | undefined ? K : never,
  values: readonly string[],
): Promise<Set<string>> {
  if (values.length === 0) return new Set();
  const r = await db.query<{ v: string }>(
    `SELECT v FROM unnest($3::text[]) AS v
     WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.tenant_id = $1 AND j.kind = $2 AND j.status IN ('queued', 'running') AND j.payload->$4 @> to_jsonb(ARRAY[v]))`,
    [tenantId, job.kind, [...values], field],
  );
  return new Set(r.rows.map((x) => x.v));
}
