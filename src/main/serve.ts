import path from 'node:path';
import { issueSetupCode } from '../access/index.ts';
import type { Config } from '../config/index.ts';
import type { Logger } from '../platform/log.ts';
import { announceRunning } from '../platform/running.ts';
import { CODE_FORM, VERSION } from '../platform/version.ts';
import { startBanner } from './banner.ts';
import { createRuntime, type Runtime } from './runtime.ts';

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
  // From here a SIGTERM closes the database and releases the folder, even one that comes while starting.
  let unannounce: (() => Promise<void>) | undefined;
  const stop = onShutdownSignal(log, async () => {
    await unannounce?.();
    await rt.close();
  });
  // Workers listen too, serving only /v1/health and /metrics.
  const listening = performance.now();
  try {
    await rt.app.listen({ host: config.host, port: config.port });
  } catch (err) {
    // Releases the data folder (a port in use must not leave the folder held by a process that is exiting).
    stop.cancel();
    await rt.close().catch(() => undefined);
    throw err;
  }
  const listenMs = Math.round(performance.now() - listening);
  // The default embedding model loads in the background: nothing waits for it but a query that needs a vector.
  void rt.embeddings.warmUp();
  try {
    const localUrl = await announce(config, rt, log);
    unannounce = localUrl.unannounce;
    // Only a process that serves the console offers the first-run link (in production, any API process: the code
    // is stored, so the link works on whichever one the browser reaches).
    const setup = config.role !== 'worker' ? await issueSetupCode(rt.deps.db, new Date()) : null;
    process.stderr.write(
      startBanner({ url: config.port === 0 ? localUrl.url : config.publicUrl, role: config.role, storage: config.storage, dataDir: config.storage === 'pglite' ? path.resolve(config.dataDir) : undefined, setup }),
    );
    if (config.role !== 'api') rt.worker.start();
    const cpu = process.cpuUsage();
    log.info(
      {
        role: config.role,
        storage: config.storage,
        url: config.publicUrl,
        dataDir: config.storage === 'pglite' ? path.resolve(config.dataDir) : undefined,
        setupRequired: setup !== null,
        startupMs: Date.now() - started,
        // Where a start's time went (docs/deployment.md, "What happens at start"): from process start (module
        // loading included) to here, the CPU it took, and each stage.
        sinceProcessStartMs: Math.round(performance.now()),
        cpuMs: Math.round((cpu.user + cpu.system) / 1000),
        stages: { ...rt.startup, listenMs },
        code: CODE_FORM,
      },
      'atrium started',
    );
  } catch (err) {
    // A shutdown that began meanwhile closed the database under these steps: that is not a failed start.
    if (!stop.stopping()) throw err;
  }
}

/** Where this process answers, recorded for the CLI; `unannounce` removes the running-services record. */
async function announce(config: Config, rt: Runtime, log: Logger): Promise<{ url: string; unannounce?: () => Promise<void> }> {
  // The CLI finds this service through the data folder's lock: the address it listens on, from this machine.
  const addr = rt.app.server.address();
  let url = config.publicUrl;
  if (addr && typeof addr === 'object') {
    const host = addr.address === '0.0.0.0' || addr.address === '::' ? '127.0.0.1' : addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    url = `http://${host}:${addr.port}`;
    await rt.deps.db.announceUrl?.(url);
  }
  // And through this machine's running-services record, from any folder, with a key for the same user's CLI.
  if (!rt.deps.localCliKey) return { url };
  const unannounce = await announceRunning(process.env, { url, data_dir: path.resolve(config.dataDir), version: VERSION, started_at: new Date().toISOString(), local_key: rt.deps.localCliKey }).catch(
    (err: unknown) => {
      log.warn({ err }, 'could not record this service for the CLI to find (it can still be named with --url)');
      return undefined;
    },
  );
  return { url, unannounce };
}

/** On SIGTERM or SIGINT, runs `close` once (exit code 0 when it succeeds), exiting anyway after 20 s. */
function onShutdownSignal(log: Logger, close: () => Promise<void>): { stopping(): boolean; cancel(): void } {
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
      await close();
      log.info('stopped cleanly');
      process.exitCode = 0;
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exitCode = 1;
    }
  };
  const onTerm = () => void shutdown('SIGTERM');
  const onInt = () => void shutdown('SIGINT');
  process.once('SIGTERM', onTerm);
  process.once('SIGINT', onInt);
  return {
    stopping: () => stopping,
    cancel() {
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
    },
  };
}
