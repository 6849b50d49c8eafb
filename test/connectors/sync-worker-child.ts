/**
 * A worker process for the kill -9 test: runs connector jobs against DATABASE_URL with a short lease,
 * so a killed worker's job is re-leased quickly by the next process.
 */
import { createTokenBucketLimiter } from '../../src/access/index.ts';
import { loadConfig } from '../../src/config/index.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { openPostgres } from '../../src/platform/db/index.ts';
import { createWorker } from '../../src/platform/jobs/index.ts';
import { createLogger } from '../../src/platform/log.ts';
import { createSecretBox } from '../../src/platform/secrets.ts';
import { createSyncHandler, documentStoreFor, SYNC_JOB_KIND } from '../../src/sync/index.ts';

const config = loadConfig(process.env);
const log = createLogger({ level: 'warn' });
if (!config.databaseUrl || !config.secretKey) throw new Error('child needs DATABASE_URL and ATRIUM_SECRET_KEY');
const db = await openPostgres(config.databaseUrl, log);
const deps = {
  config,
  db,
  log,
  clock: systemClock,
  secrets: createSecretBox(config.secretKey),
  rateLimiter: createTokenBucketLimiter(config.rateLimit),
  connectorDocuments: documentStoreFor(() => ({ db })),
};
const worker = createWorker({ db, log, handlers: new Map([[SYNC_JOB_KIND, createSyncHandler(deps)]]), concurrency: 1, pollMs: 50, leaseMs: 1000 });
worker.start();
process.stdout.write('worker started\n');
process.once('SIGTERM', () => {
  void worker.stop().then(() => db.close()).then(() => process.exit(0));
});
