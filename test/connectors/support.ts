import { WEBHOOK_JOB } from '../../src/connectors/index.ts';
import type { App, AppDeps } from '../../src/http/index.ts';
import type { DatabaseExecutor } from '../../src/platform/db/index.ts';
import { createWorker, type Worker } from '../../src/platform/jobs/index.ts';
import { jobHandlers, SYNC_JOB, VALIDATE_JOB } from '../../src/sync/index.ts';
import type { Response as InjectResponse } from 'light-my-request';
import type { Clock } from '../../src/platform/clock.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { silentLog } from '../support/db.ts';

/**
 * A worker that runs only the connector jobs (validation, sync, deferred webhook deliveries): embedding jobs queued by the
 * documents module are not the connector suites' concern, and a real-model embed would slow them down.
 */
export function connectorWorker(t: { db: DatabaseExecutor; deps: AppDeps }, opts: { pollMs?: number } = {}): Worker {
  return createWorker({
    db: t.db,
    log: silentLog,
    handlers: jobHandlers(t.deps, { only: [SYNC_JOB, VALIDATE_JOB, WEBHOOK_JOB] }),
    concurrency: 1,
    pollMs: opts.pollMs ?? 50,
  });
}

/** Requests a sync over HTTP (202 expected), runs the worker until the queue is empty, and returns the connector record. */
export async function syncConnector(
  t: { app: App; admin: { authorization: string } },
  worker: Worker,
  connectorId: string,
  full: boolean,
) {
  const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${connectorId}/sync?full=${full}`, headers: t.admin });
  if (r.statusCode !== 202) throw new Error(`sync request answered ${r.statusCode}: ${r.body}`);
  await worker.drain();
  return (await t.app.inject({ method: 'GET', url: `/v1/connectors/${connectorId}`, headers: t.admin })).json();
}

/**
 * Requests a sync of `connectorId` over HTTP, runs it to the end with `worker`, and returns how long it
 * took and its recorded run (counts). Throws unless the request was accepted and the run completed.
 */
export async function timedSync(
  t: { app: App; admin: { authorization: string } },
  worker: Worker,
  connectorId: string,
  full: boolean,
): Promise<{ ms: number; run: Record<string, number> }> {
  const start = performance.now();
  const c = await syncConnector(t, worker, connectorId, full);
  const ms = performance.now() - start;
  if (c.sync_runs[0].status !== 'completed') throw new Error(JSON.stringify(c.sync_runs[0]));
  return { ms, run: c.sync_runs[0] };
}

/** The external ids a connector has stored, sorted: what a sync test compares with the vendor fake's data. */
export async function storedIds(db: DatabaseExecutor, connectorId: string): Promise<string[]> {
  return (await db.query<{ external_id: string }>('SELECT external_id FROM documents WHERE source_node = $1 ORDER BY 1', [connectorId])).rows.map((r) => r.external_id);
}

/** One stored document row of a connector (undefined when it has none with that external id). */
export async function storedDocument(db: DatabaseExecutor, connectorId: string, externalId: string): Promise<Record<string, unknown> | undefined> {
  return (await db.query<Record<string, unknown>>('SELECT * FROM documents WHERE source_node = $1 AND external_id = $2', [connectorId, externalId])).rows[0];
}

/**
 * One kind's test setup: a test app whose `ATRIUM_CONNECTOR_API_URLS[kind]` points at the kind's fake (plus any
 * OAuth client), the scheduler off, a connector worker, and the helpers every kind test uses. New kind tests start
 * here instead of repeating the setup.
 */
/** The connector record as GET /v1/connectors/{id} answers it (the fields kind tests read). */
export interface ConnectorView {
  readonly connector_id: string;
  readonly status: string;
  readonly status_reason: string | null;
  readonly settings: Record<string, unknown>;
  readonly sync_runs: readonly Record<string, unknown>[];
  readonly [field: string]: unknown;
}

export interface KindHarness {
  readonly t: TestApp;
  readonly worker: Worker;
  /** POST /v1/connectors for this kind (display name defaulted), as the admin key. */
  create(payload: Record<string, unknown>): Promise<InjectResponse>;
  /** GET /v1/connectors/{id} as the admin key. */
  get(connectorId: string): Promise<ConnectorView>;
  sync(connectorId: string, full: boolean): Promise<ConnectorView>;
  stored(connectorId: string): Promise<string[]>;
  doc(connectorId: string, externalId: string): Promise<Record<string, unknown> | undefined>;
  close(): Promise<void>;
}

export async function kindHarness(
  kind: string,
  apiUrl: string,
  opts: { env?: Record<string, string>; clock?: Clock; oauthClient?: Record<string, string> } = {},
): Promise<KindHarness> {
  const t = await createTestApp({
    clock: opts.clock,
    env: {
      ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ [kind]: apiUrl }),
      ATRIUM_SYNC_SCHEDULER: 'false',
      ATRIUM_PUBLIC_URL: 'https://atrium.example.com',
      ...(opts.oauthClient ? { ATRIUM_OAUTH_CLIENTS: JSON.stringify({ [kind]: opts.oauthClient }) } : {}),
      ...opts.env,
    },
  });
  const worker = connectorWorker(t);
  return {
    t,
    worker,
    create: (payload) => t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: kind, display_name: kind, ...payload } }),
    get: async (connectorId) => (await t.app.inject({ method: 'GET', url: `/v1/connectors/${connectorId}`, headers: t.admin })).json(),
    sync: (connectorId, full) => syncConnector(t, worker, connectorId, full),
    stored: (connectorId) => storedIds(t.db, connectorId),
    doc: (connectorId, externalId) => storedDocument(t.db, connectorId, externalId),
    close: () => t.close(),
  };
}
