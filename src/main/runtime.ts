import { randomBytes } from 'node:crypto';
import { acceptBootstrapKey, createFailureThrottle, createTokenBucketLimiter, upsertBootstrapKey } from '../access/index.ts';
import { createSessionAuthenticator } from '../auth/index.ts';
import type { Config } from '../config/index.ts';
import { setFilesystemRoots } from '../connectors/index.ts';
import { createEmbeddingRegistry, type ManagedEmbeddingRegistry } from '../embeddings/index.ts';
import { createFederationService } from '../federation/index.ts';
import { type App, type AppDeps, buildApp, createMetrics } from '../http/index.ts';
import { type Clock, systemClock } from '../platform/clock.ts';
import { type DatabaseExecutor, migrate, openPglite, openPostgres } from '../platform/db/index.ts';
import { createWorker, type Worker } from '../platform/jobs/index.ts';
import type { Logger } from '../platform/log.ts';
import { createSecretBox, resolveSecretKey } from '../platform/secrets.ts';
import { documentStoreFor, jobHandlers, withScheduler } from '../sync/index.ts';
import { createTranslationRegistry } from '../translations/index.ts';

/** Opens the configured storage; an embedded folder under its lock, naming `command` as its holder. */
export async function openDatabase(config: Config, log: Logger, command = 'open'): Promise<DatabaseExecutor> {
  if (config.databaseUrl) return openPostgres(config.databaseUrl, log);
  return openPglite(config.dataDir, { command });
}

export interface Runtime {
  readonly deps: AppDeps;
  readonly app: App;
  readonly worker: Worker;
  readonly embeddings: ManagedEmbeddingRegistry;
  /** Milliseconds each start-up stage took: open storage, migrations check, composing the app. */
  readonly startup: { readonly openMs: number; readonly migrateMs: number; readonly composeMs: number };
  close(): Promise<void>;
}

/** Opens storage, migrates, composes every capability, and returns the un-listened app and the worker. */
export async function createRuntime(config: Config, log: Logger, opts: { clock?: Clock; db?: DatabaseExecutor; command?: string } = {}): Promise<Runtime> {
  const t0 = performance.now();
  const db = opts.db ?? (await openDatabase(config, log, opts.command));
  const t1 = performance.now();
  try {
    await migrate(db, log);
    const t2 = performance.now();
    if (config.adminApiKey) await upsertBootstrapKey(db, config.adminApiKey);
    acceptBootstrapKey(db, Boolean(config.adminApiKey));
    const secretKey = await resolveSecretKey(config.secretKey, config.dataDir);
    const embeddings = createEmbeddingRegistry(config, log.child({ component: 'embeddings' }));
    const deps: AppDeps = {
      config,
      db,
      log,
      clock: opts.clock ?? systemClock,
      secrets: createSecretBox(secretKey),
      rateLimiter: createTokenBucketLimiter(config.rateLimit),
      ...(config.authFailuresPerMinute > 0 ? { authFailures: createFailureThrottle({ perMinute: config.authFailuresPerMinute }) } : {}),
      // `atrium serve` on embedded storage: a key for this machine's CLI (see src/platform/running.ts).
      ...(opts.command === 'serve' && config.storage === 'pglite' ? { localCliKey: `atr_local_${randomBytes(24).toString('base64url')}` } : {}),
      authenticators: [createSessionAuthenticator({ db, clock: opts.clock ?? systemClock })],
      embeddings,
      connectorDocuments: documentStoreFor(() => deps),
      translations: createTranslationRegistry({ db, embeddings: () => deps.embeddings }),
      federation: createFederationService(config, { log: log.child({ component: 'federation' }) }),
    };
    const metrics = createMetrics({ defaultMetrics: true });
    const app = await buildApp(deps, { metrics, systemOnly: config.role === 'worker' });
    setFilesystemRoots(config.connectors.filesystemRoots);
    const baseWorker = createWorker({ db, log: log.child({ component: 'worker' }), handlers: jobHandlers(deps), ...config.worker });
    const worker = config.connectors.scheduler ? withScheduler(baseWorker, deps) : baseWorker;
    metrics.gauge('atrium_connectors', 'Connectors by kind and state', ['connector_type', 'status'], async (g) => {
      g.reset();
      const r = await db.query<{ connector_type: string; status: string; n: number }>('SELECT connector_type, status, count(*)::int AS n FROM connectors GROUP BY 1, 2');
      for (const row of r.rows) g.set({ connector_type: row.connector_type, status: row.status }, row.n);
    });
    metrics.gauge('atrium_sync_runs', 'Connector sync runs by type and status', ['sync_type', 'status'], async (g) => {
      g.reset();
      const r = await db.query<{ sync_type: string; status: string; n: number }>('SELECT sync_type, status, count(*)::int AS n FROM connector_sync_runs GROUP BY 1, 2');
      for (const row of r.rows) g.set({ sync_type: row.sync_type, status: row.status }, row.n);
    });
    metrics.gauge('atrium_jobs', 'Jobs by kind and status', ['kind', 'status'], async (g) => {
      g.reset();
      const r = await db.query<{ kind: string; status: string; n: number }>(
        'SELECT kind, status, count(*)::int AS n FROM jobs GROUP BY kind, status',
      );
      for (const row of r.rows) g.set({ kind: row.kind, status: row.status }, row.n);
    });
    let closed = false;
    return {
      deps,
      app,
      worker,
      embeddings,
      startup: { openMs: Math.round(t1 - t0), migrateMs: Math.round(t2 - t1), composeMs: Math.round(performance.now() - t2) },
      async close() {
        if (closed) return;
        closed = true;
        await worker.stop();
        await app.close();
        await embeddings.close();
        await db.close();
      },
    };
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}
