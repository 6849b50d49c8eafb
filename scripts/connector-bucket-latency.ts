/**
 * Cost of the shared connector token bucket (src/sync/rate-buckets.ts): one statement per vendor request.
 * Times N sequential takes on PGlite (in process) and PostgreSQL (ATRIUM_TEST_DATABASE_URL or local `test`),
 * wall and this process's CPU per take, with the load average. Run: npx tsx scripts/connector-bucket-latency.ts
 */
import os from 'node:os';
import { type DatabaseExecutor, openPostgres } from '../src/platform/db/index.ts';
import { takeConnectorToken } from '../src/connectors/kit/rate-buckets.ts';
import { openTestPglite, openTestPostgres, silentLog } from '../test/support/db.ts';

const N = Number(process.env.N ?? 2000);

async function measure(name: string, dbs: DatabaseExecutor[]): Promise<void> {
  const db = dbs[0] as DatabaseExecutor;
  await db.query(`INSERT INTO tenants (id, name) VALUES ('default', 'default') ON CONFLICT DO NOTHING`);
  await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ('slack-bench', 'default', 'slack', 'b') ON CONFLICT DO NOTHING`);
  const key = { tenantId: 'default', connectorId: 'slack-bench' };
  const limits = { perSecond: 1e9, perMinute: 1e9, perHour: 1e9 };
  for (let i = 0; i < 50; i++) await takeConnectorToken(db, key, limits);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    dbs.map(async (d) => {
      for (let i = 0; i < N / dbs.length; i++) await takeConnectorToken(d, key, limits);
    }),
  );
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  console.log(
    `${name}: ${N} takes, ${(wall / N).toFixed(3)} ms wall/take, ${((cpu.user + cpu.system) / 1000 / N).toFixed(3)} ms client CPU/take, load ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} cores`,
  );
}

const lite = await openTestPglite();
await measure('PGlite (in process, one caller)', [lite]);
await lite.close();
const pg = await openTestPostgres();
await measure('PostgreSQL (one executor, sequential)', [pg.db]);
const second = await openPostgres(pg.url, silentLog);
await measure('PostgreSQL (two executors, one connector row, concurrent)', [pg.db, second]);
await second.close();
await pg.drop();
