import { z } from 'zod';
import { VERSION } from '../../platform/version.ts';
import type { App } from '../app.ts';
import { principalOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';

const statusResponse = z.object({
  version: z.string(),
  role: z.string().describe('all (API and worker in one process), api or worker'),
  uptime_seconds: z.number().describe('since this process started'),
  storage: z.object({
    mode: z.enum(['pglite', 'postgres']).describe('pglite: the embedded database in the data folder; postgres: an external server'),
    data_dir: z.string().nullable().describe('the embedded data folder (absolute); null with PostgreSQL'),
    size_bytes: z.number().nullable().describe('the database size as PostgreSQL counts it (pg_database_size); null when it cannot be read'),
  }),
  queue: z.object({
    queued: z.number().int().describe("the tenant's jobs waiting to run (run_at reached or not)"),
    running: z.number().int(),
    failed_last_24h: z.number().int(),
    oldest_queued_at: z.string().nullable(),
    by_kind: z.array(z.object({ kind: z.string(), queued: z.number().int(), running: z.number().int() })),
  }),
  workers: z.object({
    in_this_process: z.boolean().describe('whether this process runs jobs (role all or worker)'),
    concurrency: z.number().int().describe('jobs one worker process runs at once (ATRIUM_WORKER_CONCURRENCY)'),
    active: z.number().int().describe('worker processes holding a live job lease now, of any tenant'),
  }),
  last_syncs: z.array(
    z.object({
      connector_id: z.string(),
      display_name: z.string(),
      connector_type: z.string(),
      status: z.string().describe('the sync run: running, completed, failed or cancelled'),
      started_at: z.string(),
      finished_at: z.string().nullable(),
      added: z.number().int(),
      updated: z.number().int(),
      deleted: z.number().int(),
      error: z.string().nullable(),
    }),
  ),
  models: z.array(
    z.object({
      model: z.string(),
      dimensions: z.number().int(),
      default: z.boolean(),
      loaded: z.boolean(),
      load_ms: z.number().nullable().describe('how long loading took; null until it has loaded (models load on first use, the default one at start)'),
    }),
  ),
});

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v === null || v === undefined ? null : new Date(String(v)).toISOString());

async function databaseSize(deps: AppDeps): Promise<number | null> {
  try {
    const r = await deps.db.query<{ size: string | number }>('SELECT pg_database_size(current_database()) AS size');
    const n = Number(r.rows[0]?.size);
    return Number.isFinite(n) ? n : null;
  } catch {
    return null;
  }
}

async function queueOf(deps: AppDeps, tenantId: string) {
  const r = await deps.db.query<{ kind: string; status: string; n: number; oldest: Date | null }>(
    `SELECT kind, status, count(*)::int AS n, min(created_at) AS oldest FROM jobs
     WHERE tenant_id = $1 AND (status IN ('queued', 'running') OR (status = 'failed' AND finished_at > now() - interval '24 hours'))
     GROUP BY kind, status ORDER BY kind`,
    [tenantId],
  );
  const kinds = new Map<string, { kind: string; queued: number; running: number }>();
  let failed = 0;
  let oldest: Date | null = null;
  for (const row of r.rows) {
    if (row.status === 'failed') {
      failed += row.n;
      continue;
    }
    const k = kinds.get(row.kind) ?? { kind: row.kind, queued: 0, running: 0 };
    if (row.status === 'queued') {
      k.queued += row.n;
      const at = row.oldest ? new Date(row.oldest) : null;
      if (at && (!oldest || at < oldest)) oldest = at;
    } else k.running += row.n;
    kinds.set(row.kind, k);
  }
  const byKind = [...kinds.values()];
  return {
    queued: byKind.reduce((a, k) => a + k.queued, 0),
    running: byKind.reduce((a, k) => a + k.running, 0),
    failed_last_24h: failed,
    oldest_queued_at: oldest ? oldest.toISOString() : null,
    by_kind: byKind,
  };
}

async function lastSyncs(deps: AppDeps, tenantId: string) {
  const r = await deps.db.query<Record<string, unknown>>(
    `SELECT DISTINCT ON (r.connector_id) r.connector_id, c.display_name, c.connector_type, r.status, r.started_at, r.finished_at, r.added, r.updated, r.deleted, r.error
     FROM connector_sync_runs r JOIN connectors c ON c.tenant_id = r.tenant_id AND c.id = r.connector_id
     WHERE r.tenant_id = $1 ORDER BY r.connector_id, r.started_at DESC`,
    [tenantId],
  );
  return r.rows
    .map((row) => ({
      connector_id: String(row.connector_id),
      display_name: String(row.display_name),
      connector_type: String(row.connector_type),
      status: String(row.status),
      started_at: iso(row.started_at) ?? '',
      finished_at: iso(row.finished_at),
      added: Number(row.added),
      updated: Number(row.updated),
      deleted: Number(row.deleted),
      error: row.error === null || row.error === undefined ? null : String(row.error),
    }))
    .sort((a, b) => b.started_at.localeCompare(a.started_at))
    .slice(0, 20);
}

const startedAt = Date.now();

export async function statusRoutes(app: App, deps: AppDeps): Promise<void> {
  app.get(
    '/v1/status',
    {
      config: { permission: 'admin' },
      schema: {
        summary: 'What this instance is doing: storage mode and size, job queue, workers, last syncs, embedding model load times',
        description:
          "Admin only. The queue and the last syncs are the caller's tenant's; storage, workers and models describe the instance. The console's Status page shows it.",
        tags: ['system'],
        response: { 200: statusResponse },
      },
    },
    async (request) => {
      const { tenantId } = principalOf(request);
      const [size, queue, syncs, active] = await Promise.all([
        databaseSize(deps),
        queueOf(deps, tenantId),
        lastSyncs(deps, tenantId),
        deps.db.query<{ n: number }>("SELECT count(DISTINCT lease_owner)::int AS n FROM jobs WHERE status = 'running' AND lease_expires_at > now()"),
      ]);
      const times = deps.embeddings?.loadTimes?.() ?? new Map<string, number>();
      return {
        version: VERSION,
        role: deps.config.role,
        uptime_seconds: Math.round((Date.now() - startedAt) / 1000),
        storage: { mode: deps.db.kind, data_dir: deps.db.kind === 'pglite' ? deps.config.dataDir : null, size_bytes: size },
        queue,
        workers: { in_this_process: deps.config.role !== 'api', concurrency: deps.config.worker.concurrency, active: active.rows[0]?.n ?? 0 },
        last_syncs: syncs,
        models: (deps.embeddings?.list() ?? []).map((p) => ({
          model: p.id,
          dimensions: p.dimensions,
          default: p.id === deps.embeddings?.defaultId,
          loaded: times.has(p.id),
          load_ms: times.has(p.id) ? Math.round(times.get(p.id) ?? 0) : null,
        })),
      };
    },
  );
}
