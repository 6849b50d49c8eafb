import path from 'node:path';
import { issueSetupCode } from '../access/index.ts';
import type { Config } from '../config/index.ts';
import type { Logger } from '../platform/log.ts';
import { announceRunning } from '../platform/running.ts';
import { VERSION } from '../platform/version.ts';
import { startBanner } from './banner.ts';
import { createRuntime } from './runtime.ts';

/**
 * `atrium serve`: role `all` (embedded default) serves HTTP and runs the worker in one process;
 * `api` only serves; `worker` only runs jobs (production, against PostgreSQL).
 */
export async function serve(config: Config, log: Logger): Promise<void> {
  if (config.storage === 'pglite' && config.role !== 'all') {
    throw new Error(`ATRIUM_ROLE=${config.role} needs DATABASE_URL: embedded storage is one process`);
  }
  const started = Date.now();
  const rt = await createRuntime(config, log, { command: 'serve' });
  // Workers listen too, serving only /v1/health and /metrics.
  try {
    await rt.app.listen({ host: config.host, port: config.port });
  } catch (err) {
    // Releases the data folder (a port in use must not leave the folder held by a process that is exiting).
    await rt.close().catch(() => undefined);
    throw err;
  }
  // The CLI finds this service through the data folder's lock: the address it listens on, from this machine.
  const addr = rt.app.server.address();
  let localUrl = config.publicUrl;
  if (addr && typeof addr === 'object') {
    const host = addr.address === '0.0.0.0' || addr.address === '::' ? '127.0.0.1' : addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    localUrl = `http://${host}:${addr.port}`;
    await rt.deps.db.announceUrl?.(localUrl);
  }
  // And through this machine's running-services record, from any folder, with a key for the same user's CLI.
  const unannounce = rt.deps.localCliKey
    ? await announceRunning(process.env, { url: localUrl, data_dir: path.resolve(config.dataDir), version: VERSION, started_at: new Date().toISOString(), local_key: rt.deps.localCliKey }).catch(
        (err: unknown) => {
          log.warn({ err }, 'could not record this service for the CLI to find (it can still be named with --url)');
          return undefined;
        },
      )
    : undefined;
  // Only a process that serves the console offers the first-run link (in production, any API process: the code is
  // stored, so the link works on whichever one the browser reaches).
  const setup = config.role !== 'worker' ? await issueSetupCode(rt.deps.db, new Date()) : null;
  process.stderr.write(
    startBanner({ url: config.port === 0 ? localUrl : config.publicUrl, role: config.role, storage: config.storage, dataDir: config.storage === 'pglite' ? path.resolve(config.dataDir) : undefined, setup }),
  );
  if (config.role !== 'api') rt.worker.start();
  // Load the default embedding model in the background: startup does not wait for it.
  void rt.embeddings.warmUp();
  log.info(
    {
      role: config.role,
      storage: config.storage,
      url: config.publicUrl,
      dataDir: config.storage === 'pglite' ? path.resolve(config.dataDir) : undefined,
      setupRequired: setup !== null,
      startupMs: Date.now() - started,
    },
    'atrium started',
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      log.error('shutdown took longer than 20 s; exiting');
      process.exit(1);
    }, 20_000);
    force.unref();
    try {
      await unannounce?.();
      await rt.close();
      log.info('stopped cleanly');
      process.exitCode = 0;
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exitCode = 1;
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}
