import { createApiKey, type Permission } from '../../src/access/index.ts';
import { type Config, loadConfig } from '../../src/config/index.ts';
import type { App, AppDeps } from '../../src/http/index.ts';
import { createRuntime, type Runtime } from '../../src/main/runtime.ts';
import { type Clock, systemClock } from '../../src/platform/clock.ts';
import type { DatabaseExecutor } from '../../src/platform/db/index.ts';
import type { Logger } from '../../src/platform/log.ts';
import { openTestPglite, silentLog } from './db.ts';

export const ADMIN_KEY = 'atr_test_bootstrap_admin_key_0123456789';

export interface TestApp {
  readonly app: App;
  readonly deps: AppDeps;
  readonly db: DatabaseExecutor;
  readonly runtime: Runtime;
  readonly config: Config;
  /** `Authorization` header for the bootstrap admin key. */
  readonly admin: { authorization: string };
  /** Creates a key with these permissions in `tenant` (default `default`) and returns its headers. */
  keyWith(permissions: Permission[], tenant?: string): Promise<{ authorization: string; id: string }>;
  close(): Promise<void>;
}

/** The whole runtime on a fresh in-memory PGlite, driven with `app.inject()`. */
export async function createTestApp(opts: { env?: Record<string, string>; clock?: Clock; db?: DatabaseExecutor; log?: Logger } = {}): Promise<TestApp> {
  const db = opts.db ?? (await openTestPglite());
  const config = loadConfig({
    ATRIUM_DATA_DIR: '/tmp/atrium-test-unused',
    ATRIUM_ADMIN_API_KEY: ADMIN_KEY,
    ATRIUM_SECRET_KEY: 'test-secret-key',
    LOG_LEVEL: 'silent',
    ...opts.env,
  });
  const runtime = await createRuntime(config, opts.log ?? silentLog, { db, clock: opts.clock ?? systemClock });
  await runtime.app.ready();
  return {
    app: runtime.app,
    deps: runtime.deps,
    db,
    runtime,
    config,
    admin: { authorization: `Bearer ${ADMIN_KEY}` },
    async keyWith(permissions, tenant = 'default') {
      await db.query('INSERT INTO tenants (id, name) VALUES ($1, $1) ON CONFLICT DO NOTHING', [tenant]);
      const k = await createApiKey(db, { tenantId: tenant, name: `test-${permissions.join('+')}`, permissions });
      return { authorization: `Bearer ${k.key}`, id: k.id };
    },
    close: () => runtime.close(),
  };
}
