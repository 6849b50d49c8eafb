import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authenticateKey, BOOTSTRAP_PREFIX_LENGTH, createApiKey, KEY_USE_WRITE_INTERVAL_MS, upsertBootstrapKey } from '../../src/access/index.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Queryable } from '../../src/platform/db/executor.ts';
import { type DatabaseExecutor, migrate } from '../../src/platform/db/index.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from '../support/app.ts';
import { openTestPglite, openTestPostgres, silentLog } from '../support/db.ts';

/** The bootstrap key's listed prefix and `last_used_at` (security audit findings). */
describe('API keys over HTTP: bootstrap prefix and last use', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { ATRIUM_RATE_LIMIT_BURST: '1000' } });
  });
  after(() => t.close());
  const list = async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/api-keys', headers: t.admin });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().api_keys as { id: string; key_prefix: string; last_used_at: string | null }[];
  };

  it('lists the bootstrap key with at most 4 characters of it, never 10', async () => {
    const boot = (await list()).find((k) => k.id === 'key_bootstrap');
    assert.equal(boot?.key_prefix, 'atr_');
    assert.ok(ADMIN_KEY.startsWith(boot.key_prefix));
  });

  it('cuts a long prefix stored by an earlier version on the next start', async () => {
    await t.db.query("UPDATE api_keys SET key_prefix = $1 WHERE id = 'key_bootstrap'", [ADMIN_KEY.slice(0, 10)]);
    await upsertBootstrapKey(t.db, ADMIN_KEY);
    assert.equal((await list()).find((k) => k.id === 'key_bootstrap')?.key_prefix, 'atr_');
  });

  it('records when a key was used, for a fresh verification and from the verification cache', async () => {
    const k = await t.keyWith(['query']);
    assert.equal((await list()).find((x) => x.id === k.id)?.last_used_at, null, 'never used yet');
    const before = Date.now();
    const me = await t.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: k.authorization } });
    assert.equal(me.statusCode, 200);
    const used = (await list()).find((x) => x.id === k.id)?.last_used_at;
    assert.ok(used, 'last_used_at is set after a request');
    const at = new Date(used).getTime();
    // The column has microseconds; Date.now() milliseconds.
    assert.ok(at >= before - 1 && at <= Date.now() + 1, `${used} is the time of the request`);
    // The admin key that lists keys is used too.
    assert.ok((await list()).find((x) => x.id === 'key_bootstrap')?.last_used_at);
  });

  it('writes a busy key at most once a minute: further requests within it send no UPDATE', async () => {
    const k = await t.keyWith(['query']);
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: k.authorization } })).statusCode, 200);
    const sentinel = '2001-01-01T00:00:00.000Z';
    await t.db.query('UPDATE api_keys SET last_used_at = $2 WHERE id = $1', [k.id, sentinel]);
    for (let i = 0; i < 5; i++) {
      assert.equal((await t.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: k.authorization } })).statusCode, 200);
    }
    assert.equal((await list()).find((x) => x.id === k.id)?.last_used_at, sentinel, 'no write within the minute');
  });
});

/** Counts (and lets the test await) the `last_used_at` writes sent through it: the throttle is per executor. */
function counting(db: Queryable): Queryable & { writes: number; settle(): Promise<unknown> } {
  const pending: Promise<unknown>[] = [];
  const wrapper = {
    writes: 0,
    query<R>(sql: string, params?: readonly unknown[]) {
      const p = db.query<R>(sql, params);
      if (/^UPDATE api_keys SET last_used_at/.test(sql)) {
        wrapper.writes++;
        pending.push(p);
      }
      return p;
    },
    exec: (sql: string) => db.exec(sql),
    settle: () => Promise.all(pending),
  };
  return wrapper;
}

function keyUseSuite(name: string, open: () => Promise<{ db: DatabaseExecutor; close(): Promise<void> }>) {
  describe(`API key last use on ${name}`, () => {
    let handle: { db: DatabaseExecutor; close(): Promise<void> };
    before(async () => {
      handle = await open();
    });
    after(() => handle.close());
    const lastUsed = async (id: string) =>
      (await handle.db.query<{ last_used_at: Date | string | null }>('SELECT last_used_at FROM api_keys WHERE id = $1', [id])).rows[0]?.last_used_at ?? null;

    it('writes the clock time once per minute per key, cached verifications included', async () => {
      const db = counting(handle.db);
      const clock = fixedClock('2030-05-01T10:00:00Z');
      const key = await createApiKey(handle.db, { tenantId: 'default', name: 'busy', permissions: ['query'] });
      const other = await createApiKey(handle.db, { tenantId: 'default', name: 'other', permissions: ['query'] });
      assert.ok(await authenticateKey(db, key.key, { clock, log: silentLog }));
      await db.settle();
      assert.equal(db.writes, 1);
      assert.equal(new Date((await lastUsed(key.id)) as string).toISOString(), '2030-05-01T10:00:00.000Z');
      clock.advance(KEY_USE_WRITE_INTERVAL_MS - 1);
      // Within the 2-s verification cache and within the minute: no statement at all.
      assert.ok(await authenticateKey(db, key.key, { clock, log: silentLog }));
      assert.equal(db.writes, 1);
      assert.ok(await authenticateKey(db, other.key, { clock, log: silentLog }), 'another key has its own minute');
      assert.equal(db.writes, 2);
      clock.advance(1);
      // Still a cache hit (the cache's TTL runs on the process's monotonic time): the use counts.
      assert.ok(await authenticateKey(db, key.key, { clock, log: silentLog }));
      await db.settle();
      assert.equal(db.writes, 3);
      assert.equal(new Date((await lastUsed(key.id)) as string).toISOString(), '2030-05-01T10:01:00.000Z');
    });

    it('never moves the time back (a process whose clock is behind), and a failed write does not fail the request', async () => {
      const key = await createApiKey(handle.db, { tenantId: 'default', name: 'skew', permissions: ['query'] });
      const ahead = counting(handle.db);
      const behind = counting(handle.db);
      assert.ok(await authenticateKey(ahead, key.key, { clock: fixedClock('2030-06-01T12:00:00Z'), log: silentLog }));
      await ahead.settle();
      assert.ok(await authenticateKey(behind, key.key, { clock: fixedClock('2030-06-01T11:59:00Z'), log: silentLog }));
      await behind.settle();
      assert.equal(new Date((await lastUsed(key.id)) as string).toISOString(), '2030-06-01T12:00:00.000Z');

      const warnings: unknown[] = [];
      const log = { ...silentLog, warn: (obj: unknown) => warnings.push(obj) } as unknown as typeof silentLog;
      const failing: Queryable = {
        query: (sql, params) => (sql.startsWith('UPDATE api_keys') ? Promise.reject(new Error('disk full')) : handle.db.query(sql, params)),
        exec: (sql) => handle.db.exec(sql),
      };
      assert.equal((await authenticateKey(failing, key.key, { log }))?.id, key.id);
      await new Promise((r) => setImmediate(r));
      assert.equal(warnings.length, 1, 'the failure is logged');
    });
  });
}

keyUseSuite('PGlite', async () => {
  const db = await openTestPglite();
  return { db, close: () => db.close() };
});
keyUseSuite('PostgreSQL', async () => {
  const pg = await openTestPostgres();
  return { db: pg.db, close: () => pg.drop() };
});

describe('bootstrap key prefix in storage', () => {
  let db: DatabaseExecutor;
  before(async () => {
    db = await openTestPglite();
  });
  after(() => db.close());
  const prefix = async () => (await db.query<{ key_prefix: string }>("SELECT key_prefix FROM api_keys WHERE id = 'key_bootstrap'")).rows[0]?.key_prefix;

  it('stores at most 4 characters of a key in another format', async () => {
    await upsertBootstrapKey(db, 'correcthorsebatterystaple');
    assert.equal(await prefix(), 'corr');
    assert.equal(BOOTSTRAP_PREFIX_LENGTH, 4);
  });

  it('the migration cuts a long stored prefix even when ATRIUM_ADMIN_API_KEY is no longer set', async () => {
    await db.query("UPDATE api_keys SET key_prefix = 'correcthor' WHERE id = 'key_bootstrap'");
    await db.query("DELETE FROM schema_migrations WHERE name = '053_bootstrap_key_prefix'");
    assert.deepEqual(await migrate(db, silentLog), ['053_bootstrap_key_prefix']);
    assert.equal(await prefix(), 'corr');
  });
});
