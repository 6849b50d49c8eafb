import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { authenticateKey, createApiKey, ensureTenant, listApiKeys, revokeApiKey } from '../../src/access/index.ts';
import { queryAudit, recordAudit } from '../../src/audit/index.ts';
import { type DatabaseExecutor, migrate, openPostgres } from '../../src/platform/db/index.ts';
import { createWorker, enqueueJob, getJob, type JobHandler, NonRetriableError } from '../../src/platform/jobs/index.ts';
import { openTestPglite, openTestPostgres, silentLog } from '../support/db.ts';

/** The same storage suite on embedded PGlite and on the machine's PostgreSQL. */
function storageSuite(name: string, open: () => Promise<{ db: DatabaseExecutor; close(): Promise<void> }>) {
  describe(`storage on ${name}`, () => {
    let handle: { db: DatabaseExecutor; close(): Promise<void> };
    let db: DatabaseExecutor;
    after(async () => handle?.close());

    it('migrates, and migrating again applies nothing', async () => {
      handle = await open();
      db = handle.db;
      assert.deepEqual(await migrate(db, silentLog), []);
      const t = await db.query<{ id: string }>("SELECT id FROM tenants WHERE id = 'default'");
      assert.equal(t.rows.length, 1);
    });

    it('keeps API keys per tenant and stores only hashes', async () => {
      await ensureTenant(db, 'acme');
      const a = await createApiKey(db, { tenantId: 'default', name: 'a', permissions: ['query'] });
      const b = await createApiKey(db, { tenantId: 'acme', name: 'b', permissions: ['admin'] });
      const stored = await db.query('SELECT * FROM api_keys');
      assert.ok(!JSON.stringify(stored.rows).includes(a.key));
      assert.ok(!JSON.stringify(stored.rows).includes(b.key));
      assert.deepEqual((await listApiKeys(db, 'acme')).map((k) => k.name), ['b']);
      const p = await authenticateKey(db, b.key);
      assert.equal(p?.tenantId, 'acme');
      assert.equal(await revokeApiKey(db, 'default', b.id), null, 'another tenant cannot revoke it');
      assert.ok(await revokeApiKey(db, 'acme', b.id));
      assert.equal(await authenticateKey(db, b.key), null);
    });

    it('filters audit by tenant, exact action and prefix, newest first, paged', async () => {
      for (const action of ['auth.sso.login_succeeded', 'auth.sso.config_changed', 'apikey.created', 'auth.ssox']) {
        await recordAudit(db, { tenantId: 'acme', action, actorId: 'x', details: { n: action } });
      }
      await recordAudit(db, { tenantId: 'default', action: 'auth.sso.login_failed' });
      const sso = await queryAudit(db, { tenantId: 'acme', action: 'auth.sso.*', limit: 10 });
      assert.deepEqual(sso.events.map((e) => e.action), ['auth.sso.config_changed', 'auth.sso.login_succeeded']);
      const page1 = await queryAudit(db, { tenantId: 'acme', action: 'auth.sso*', limit: 2 });
      assert.equal(page1.events.length, 2);
      assert.ok(page1.next_cursor);
      const page2 = await queryAudit(db, { tenantId: 'acme', action: 'auth.sso*', limit: 2, cursor: page1.next_cursor ?? undefined });
      assert.deepEqual(page2.events.map((e) => e.action), ['auth.sso.login_succeeded']);
      const like = await queryAudit(db, { tenantId: 'acme', action: 'auth_sso*', limit: 10 });
      assert.equal(like.events.length, 0, '_ is not a wildcard');
    });

    it('runs jobs once, retries failures with backoff and stops on NonRetriableError', async () => {
      const seen: string[] = [];
      let flaky = 0;
      const handlers = new Map<string, JobHandler>([
        ['ok', async ({ job, progress }) => { seen.push(job.id); await progress(0.5, { at: 1 }); return { done: true }; }],
        ['flaky', async () => { flaky++; if (flaky < 2) throw new Error('transient'); return 'fine'; }],
        ['fatal', async () => { throw new NonRetriableError('bad credentials'); }],
      ]);
      const worker = createWorker({ db, log: silentLog, handlers, concurrency: 1, pollMs: 10, backoffBaseMs: 1 });
      const ok = await enqueueJob(db, { tenantId: 'default', kind: 'ok', dedupeKey: 'ok-1' });
      const dup = await enqueueJob(db, { tenantId: 'default', kind: 'ok', dedupeKey: 'ok-1' });
      assert.equal(dup.created, false);
      assert.equal(dup.job.id, ok.job.id);
      const flakyJob = await enqueueJob(db, { tenantId: 'default', kind: 'flaky' });
      const fatal = await enqueueJob(db, { tenantId: 'default', kind: 'fatal' });
      await worker.drain();
      await new Promise((r) => setTimeout(r, 20));
      await worker.drain();
      assert.deepEqual(seen, [ok.job.id]);
      const okDone = await getJob(db, 'default', ok.job.id);
      assert.equal(okDone?.status, 'completed');
      assert.equal(okDone?.progress, 1);
      assert.deepEqual(okDone?.result, { done: true });
      assert.equal((await getJob(db, 'default', flakyJob.job.id))?.status, 'completed');
      const fatalDone = await getJob(db, 'default', fatal.job.id);
      assert.equal(fatalDone?.status, 'failed');
      assert.equal(fatalDone?.lastError, 'bad credentials');
      assert.equal(await getJob(db, 'acme', ok.job.id), null, 'jobs are tenant-scoped');
    });

    it('reclaims a job whose worker died (lease expired) and hands it its checkpoint', async () => {
      const job = await enqueueJob(db, { tenantId: 'default', kind: 'resume' });
      // Simulate a worker that claimed the job, checkpointed, then died: lease already expired.
      await db.query(
        `UPDATE jobs SET status = 'running', attempts = 1, lease_owner = 'dead', lease_expires_at = now() - interval '1 second',
         checkpoint = '{"cursor": 42}'::jsonb WHERE id = $1`,
        [job.job.id],
      );
      let resumedFrom: unknown;
      const worker = createWorker({
        db,
        log: silentLog,
        concurrency: 1,
        pollMs: 10,
        handlers: new Map([['resume', async ({ job: j }) => { resumedFrom = j.checkpoint; }]]),
      });
      assert.equal(await worker.drain(), 1);
      assert.deepEqual(resumedFrom, { cursor: 42 });
      assert.equal((await getJob(db, 'default', job.job.id))?.status, 'completed');
    });
  });
}

storageSuite('PGlite', async () => {
  const db = await openTestPglite();
  return { db, close: () => db.close() };
});

storageSuite('PostgreSQL', async () => {
  const pg = await openTestPostgres();
  return { db: pg.db, close: pg.drop };
});

describe('migrations from several processes at once on PostgreSQL', () => {
  it('applies each migration exactly once when three executors migrate concurrently', async () => {
    const pgdb = await openTestPostgres();
    try {
      await pgdb.db.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
      const others = await Promise.all([openPostgres(pgdb.url, silentLog), openPostgres(pgdb.url, silentLog)]);
      const results = await Promise.all([pgdb.db, ...others].map((db) => migrate(db, silentLog)));
      const all = results.flat();
      assert.equal(all.length, new Set(all).size, 'no migration applied twice');
      assert.ok(all.includes('001_foundation'));
      await Promise.all(others.map((db) => db.close()));
    } finally {
      await pgdb.drop();
    }
  });
});

describe('job leasing across workers on PostgreSQL', () => {
  it('never runs one job twice with several workers polling concurrently', async () => {
    const pg = await openTestPostgres();
    try {
      const N = 40;
      for (let i = 0; i < N; i++) await enqueueJob(pg.db, { tenantId: 'default', kind: 'count' });
      const runs: string[] = [];
      const handlers = new Map<string, JobHandler>([
        ['count', async ({ job }) => { runs.push(job.id); await new Promise((r) => setTimeout(r, 2)); }],
      ]);
      const workers = Array.from({ length: 4 }, () => createWorker({ db: pg.db, log: silentLog, handlers, concurrency: 3, pollMs: 5 }));
      await Promise.all(workers.map((w) => w.drain()));
      assert.equal(runs.length, N);
      assert.equal(new Set(runs).size, N);
    } finally {
      await pg.drop();
    }
  });
});
