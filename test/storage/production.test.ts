import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { TEST_PG_URL } from '../support/db.ts';
import { spawnServer } from '../support/spawn.ts';

describe('production mode on PostgreSQL with several processes', () => {
  it('starts two API processes and a worker against one database; migrations apply once; keys work on both', async () => {
    const name = `atrium_prod_${process.pid}`;
    const admin = new pg.Client({ connectionString: TEST_PG_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(TEST_PG_URL);
    url.pathname = `/${name}`;
    const env = {
      DATABASE_URL: url.toString(),
      ATRIUM_ADMIN_API_KEY: 'atr_prod_admin_key_0123456789abcdef',
      ATRIUM_SECRET_KEY: 'prod-secret',
      ATRIUM_DATA_DIR: '/tmp/atrium-prod-unused',
    };
    const procs: Awaited<ReturnType<typeof spawnServer>>[] = [];
    try {
      for (const role of ['api', 'api', 'worker']) procs.push(await spawnServer({ ...env, ATRIUM_ROLE: role }));
      const workerApi = await fetch(`${procs[2]!.url}/v1/connectors`, { headers: { authorization: `Bearer ${env.ATRIUM_ADMIN_API_KEY}` } });
      assert.equal(workerApi.status, 404, 'a worker serves only health and metrics');
      const [a, b] = procs;
      const health = (await fetch(`${a!.url}/v1/health`).then((r) => r.json())) as { storage: string };
      assert.equal(health.storage, 'postgres');
      const created = (await fetch(`${a!.url}/v1/api-keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.ATRIUM_ADMIN_API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'shared', permissions: ['connector:read'] }),
      }).then((r) => r.json())) as { key: string };
      const viaB = await fetch(`${b!.url}/v1/connectors`, { headers: { authorization: `Bearer ${created.key}` } });
      assert.equal(viaB.status, 200, 'a key minted on one API process works on another');
      const m = await admin.query(`SELECT count(*)::int AS n FROM pg_database WHERE datname = $1`, [name]);
      assert.equal(m.rows[0].n, 1);
      const c = new pg.Client({ connectionString: url.toString() });
      await c.connect();
      const applied = await c.query('SELECT name, count(*)::int AS n FROM schema_migrations GROUP BY name');
      await c.end();
      assert.ok(applied.rows.length >= 1);
      assert.ok(applied.rows.every((r: { n: number }) => r.n === 1));
      const codes = await Promise.all(procs.map((p) => p.stop()));
      assert.deepEqual(codes, [0, 0, 0]);
    } finally {
      await Promise.all(procs.map((p) => p.stop()));
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });

  it('refuses api/worker roles without DATABASE_URL', async () => {
    await assert.rejects(spawnServer({ ATRIUM_ROLE: 'api', ATRIUM_DATA_DIR: '/tmp/atrium-role-test' }, 15_000), /needs DATABASE_URL/);
  });
});
