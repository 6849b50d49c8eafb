import type { Queryable } from '../db/executor.ts';
import { newId } from '../ids.ts';

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface Job {
  readonly id: string;
  readonly tenantId: string;
  readonly kind: string;
  /** Parse it with its kind's schema (`jobHandler`, `JobKind.payload`); never cast it. */
  readonly payload: unknown;
  readonly status: JobStatus;
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly progress: number;
  readonly checkpoint: unknown;
  readonly result: unknown;
  readonly lastError: string | null;
  readonly runAt: Date;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly finishedAt: Date | null;
  readonly dedupeKey: string | null;
}

export function rowToJob(r: Record<string, unknown>): Job {
  return {
    id: String(r.id),
    tenantId: String(r.tenant_id),
    kind: String(r.kind),
    payload: r.payload ?? {},
    status: r.status as JobStatus,
    attempts: Number(r.attempts),
    maxAttempts: Number(r.max_attempts),
    progress: Number(r.progress),
    checkpoint: r.checkpoint ?? null,
    result: r.result ?? null,
    lastError: (r.last_error as string | null) ?? null,
    runAt: new Date(r.run_at as string),
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
    finishedAt: r.finished_at ? new Date(r.finished_at as string) : null,
    dedupeKey: (r.dedupe_key as string | null) ?? null,
  };
}

export interface EnqueueInput {
  readonly tenantId: string;
  readonly kind: string;
  readonly payload?: Record<string, unknown>;
  readonly runAt?: Date;
  readonly priority?: number;
  readonly maxAttempts?: number;
  /** At most one queued or running job per key; enqueueing a duplicate returns the existing job. */
  readonly dedupeKey?: string;
  readonly id?: string;
}

/** Inserts a job; with a `dedupeKey` that is already queued or running, returns that job with `created: false`. */
export async function enqueueJob(db: Queryable, input: EnqueueInput): Promise<{ job: Job; created: boolean }> {
  const id = input.id ?? newId('job');
  const r = await db.query(
    `INSERT INTO jobs (id, tenant_id, kind, payload, run_at, priority, max_attempts, dedupe_key)
     VALUES ($1, $2, $3, $4, COALESCE($5::timestamptz, now()), $6, $7, $8)
     ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL AND status IN ('queued', 'running') DO NOTHING
     RETURNING *`,
    [
      id,
      input.tenantId,
      input.kind,
      JSON.stringify(input.payload ?? {}),
      input.runAt?.toISOString() ?? null,
      input.priority ?? 0,
      input.maxAttempts ?? 5,
      input.dedupeKey ?? null,
    ],
  );
  if (r.rows[0]) return { job: rowToJob(r.rows[0]), created: true };
  const existing = await db.query(`SELECT * FROM jobs WHERE dedupe_key = $1 AND status IN ('queued', 'running') LIMIT 1`, [
    input.dedupeKey,
  ]);
  if (!existing.rows[0]) throw new Error(`job with dedupe key ${input.dedupeKey} vanished while enqueueing`);
  return { job: rowToJob(existing.rows[0]), created: false };
}

export async function getJob(db: Queryable, tenantId: string, id: string): Promise<Job | null> {
  const r = await db.query('SELECT * FROM jobs WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
  return r.rows[0] ? rowToJob(r.rows[0]) : null;
}

/** Cancels queued jobs matching a dedupe key prefix or kind+payload field (e.g. when a connector is deleted). */
export async function cancelJobs(db: Queryable, tenantId: string, dedupeKeyPrefix: string): Promise<number> {
  const r = await db.query(
    `UPDATE jobs SET status = 'cancelled', finished_at = now(), updated_at = now(), dedupe_key = NULL
     WHERE tenant_id = $1 AND status IN ('queued', 'running') AND dedupe_key LIKE $2`,
    [tenantId, `${dedupeKeyPrefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`],
  );
  return r.affectedRows;
}
