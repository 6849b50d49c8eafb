import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { VendorLimits } from '../../src/connectors/kit/contract.ts';
import { createBuckets, takeToken } from '../../src/connectors/kit/limits.ts';
import { blockConnector, takeConnectorToken } from '../../src/connectors/kit/rate-buckets.ts';
import { type DatabaseExecutor, openPostgres } from '../../src/platform/db/index.ts';
import { createWorker } from '../../src/platform/jobs/index.ts';
import { createSyncHandler, SYNC_JOB_KIND } from '../../src/sync/index.ts';
import { type FakeSlack, loadSlackExport, startFakeSlack } from '../fakes/slack.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { openTestPglite, openTestPostgres, silentLog } from '../support/db.ts';
import { connectorWorker } from './support.ts';

/**
 * The connector token bucket shared by processes through the database: the SQL answers exactly what the pure
 * reference (limits.ts) answers; two executors ("processes") on one PostgreSQL database, and two callers on one
 * PGlite, never take more than the capacity in a window; a vendor 429's block stops every process. Fake clocks
 * (explicit ms) throughout, except the two-runtime test, which asserts only generous lower bounds on real time.
 */

/** Deterministic PRNG (mulberry32), so a failing sequence can be replayed. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let seq = 0;
async function newConnector(db: DatabaseExecutor): Promise<{ tenantId: string; connectorId: string }> {
  const connectorId = `slack-rb${++seq}${Math.random().toString(36).slice(2, 8)}`;
  await db.query(`INSERT INTO tenants (id, name) VALUES ('default', 'default') ON CONFLICT DO NOTHING`);
  await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name, status) VALUES ($1, 'default', 'slack', 'rb', 'idle')`, [connectorId]);
  return { tenantId: 'default', connectorId };
}

const CONFIGS: VendorLimits[] = [{ perSecond: 3 }, { perMinute: 2, perHour: 3 }, { perSecond: 3, perMinute: 100, perHour: 5000 }, { perMinute: 50 }, { perHour: 5000 }];

function suite(name: string, open: () => Promise<{ a: DatabaseExecutor; b: DatabaseExecutor; close(): Promise<void> }>) {
  describe(`shared connector rate buckets on ${name}`, () => {
    let a: DatabaseExecutor;
    let b: DatabaseExecutor;
    let close: () => Promise<void>;
    before(async () => {
      ({ a, b, close } = await open());
    });
    after(() => close());

    it('answers exactly what the pure takeToken answers, on random request times', async () => {
      for (const [i, limits] of CONFIGS.entries()) {
        const key = await newConnector(a);
        const random = prng(1000 + i);
        let now = 1_700_000_000_000;
        const reference = createBuckets(limits, now);
        const scale = limits.perSecond ? 400 : limits.perMinute ? 20_000 : 900_000;
        for (let step = 0; step < 120; step++) {
          // Bursts (same instant), short and long gaps; alternating "processes".
          const r = random();
          now += r < 0.4 ? 0 : Math.floor(random() * scale);
          const want = takeToken(reference, now);
          const got = await takeConnectorToken(step % 2 ? a : b, key, limits, now);
          assert.equal(got.waitMs, want, `limits ${JSON.stringify(limits)} step ${step} at +${now - 1_700_000_000_000} ms`);
          assert.equal(got.blocked, false);
        }
      }
    });

    it('two processes taking at once never get more than the capacity per window', async () => {
      const key = await newConnector(a);
      const limits = { perMinute: 5, perHour: 8 };
      const t0 = 1_800_000_000_000;
      const burst = async (now: number, n: number) => {
        const takes = [];
        for (let i = 0; i < n; i++) takes.push(takeConnectorToken(i % 2 ? a : b, key, limits, now));
        return (await Promise.all(takes)).filter((r) => r.waitMs === 0).length;
      };
      assert.equal(await burst(t0, 30), 5, 'the minute window holds 5');
      assert.equal(await burst(t0 + 12_000, 20), 1, 'one token refills every 12 s');
      assert.equal(await burst(t0 + 60_000, 20), 2, 'the hour window (8) caps what the minute window refilled');
      assert.equal(await burst(t0 + 120_000, 20), 0, 'the hour window refills one token per 7.5 minutes');
      assert.equal(await burst(t0 + 3_600_000, 20), 5);
    });

    it('a vendor 429 seen by one process blocks the other until its Retry-After, then tokens flow again', async () => {
      const key = await newConnector(a);
      const limits = { perSecond: 3 };
      const t0 = 1_900_000_000_000;
      assert.equal((await takeConnectorToken(a, key, limits, t0)).waitMs, 0);
      await blockConnector(a, key, 5_000, t0);
      const waiting = await takeConnectorToken(b, key, limits, t0 + 1_000);
      assert.deepEqual(waiting, { waitMs: 4_000, blocked: true });
      // A shorter block later never shortens the longer one.
      await blockConnector(b, key, 1_000, t0 + 1_000);
      assert.deepEqual(await takeConnectorToken(a, key, limits, t0 + 2_500), { waitMs: 2_500, blocked: true });
      assert.deepEqual(await takeConnectorToken(b, key, limits, t0 + 5_000), { waitMs: 0, blocked: false });
      // A block before the connector ever took a token creates its row.
      const fresh = await newConnector(a);
      await blockConnector(b, fresh, 3_000, t0);
      assert.deepEqual(await takeConnectorToken(a, fresh, limits, t0), { waitMs: 3_000, blocked: true });
      assert.deepEqual(await takeConnectorToken(a, fresh, limits, t0 + 3_000), { waitMs: 0, blocked: false });
    });

    it('deleting the connector deletes its bucket', async () => {
      const key = await newConnector(a);
      await takeConnectorToken(a, key, { perSecond: 1 }, 1);
      await a.query('DELETE FROM connectors WHERE id = $1', [key.connectorId]);
      const r = await b.query('SELECT 1 FROM connector_rate_buckets WHERE connector_id = $1', [key.connectorId]);
      assert.equal(r.rows.length, 0);
    });
  });
}

suite('PGlite (two callers on one instance)', async () => {
  const db = await openTestPglite();
  return { a: db, b: db, close: () => db.close() };
});

suite('PostgreSQL (two executors)', async () => {
  const pg = await openTestPostgres();
  const second = await openPostgres(pg.url, silentLog);
  return {
    a: pg.db,
    b: second,
    async close() {
      await second.close();
      await pg.drop();
    },
  };
});

describe('two runtimes on one PostgreSQL share a Slack connector’s vendor limit', () => {
  let slack: FakeSlack;
  let pg: Awaited<ReturnType<typeof openTestPostgres>>;
  let one: TestApp;
  let two: TestApp;
  let id: string;
  const times: { method: string; at: number }[] = [];

  before(async () => {
    slack = await startFakeSlack(await loadSlackExport(), { pageSize: 200 });
    pg = await openTestPostgres();
    const env = { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ slack: slack.url }), ATRIUM_SYNC_SCHEDULER: 'false' };
    one = await createTestApp({ db: pg.db, env });
    two = await createTestApp({ db: await openPostgres(pg.url, silentLog), env });
    const channel = slack.channels[0]?.id as string;
    const created = await one.app.inject({
      method: 'POST',
      url: '/v1/connectors',
      headers: one.admin,
      payload: { connector_type: 'slack', display_name: 'Slack', credentials: { token: slack.token }, settings: { channels: [channel], requests_per_minute: 6 } },
    });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await connectorWorker(one).drain(); // validation (takes one token)
    // Record when each vendor request arrives.
    const calls = slack.calls;
    const push = calls.push.bind(calls);
    calls.push = (...items) => {
      for (const c of items) times.push({ method: c.method, at: Date.now() });
      return push(...items);
    };
  });
  after(async () => {
    await two?.close();
    await one?.close();
    await pg?.drop();
    await slack?.close();
  });

  it('actions from both processes together stay within requests_per_minute; a 429 seen by one pauses the other', async () => {
    const channel = slack.channels[0]?.name as string;
    const execute = (t: TestApp, n: number) =>
      t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/execute`, headers: t.admin, payload: { intent: `post to #${channel}: "shared bucket ${n}"` } });
    // 6/min with one token spent on validation: 5 now, then one every 10 s. Seven actions, four and three per process.
    const results = await Promise.all([1, 2, 3, 4, 5, 6, 7].map((n) => execute(n % 2 ? one : two, n)));
    for (const r of results) assert.equal(r.json().calls?.[0]?.status, 'succeeded', r.body);
    const posts = times.filter((c) => c.method === 'chat.postMessage').map((c) => c.at);
    assert.equal(posts.length, 7);
    // Never more than the capacity in a window: at most 5 requests before the first refill (10 s after the bucket
    // was created, which was before the first post). Generous bound: only a lower bound on real time.
    const first = Math.min(...posts);
    assert.ok(posts.filter((at) => at < first + 8_000).length <= 5, JSON.stringify(posts.map((at) => at - first)));
    assert.ok(Math.max(...posts) - first >= 8_000, 'the 6th and 7th waited for refills');

    // A 429 with Retry-After: 3 met by runtime one blocks runtime two as well.
    slack.rateLimitNext(1, 3);
    const limited = await execute(one, 8);
    assert.equal(limited.json().calls[0].status, 'failed');
    assert.match(limited.json().calls[0].error, /rate limiting/);
    const blockedAt = Date.now();
    const row = (await two.db.query<{ blocked_until_ms: number }>('SELECT blocked_until_ms FROM connector_rate_buckets WHERE connector_id = $1', [id])).rows[0];
    assert.ok(row && row.blocked_until_ms > blockedAt, 'the block is stored for every process');
    const before = times.length;
    const later = await execute(two, 9);
    assert.equal(later.json().calls?.[0]?.status, 'succeeded', later.body);
    const sent = times.slice(before).find((c) => c.method === 'chat.postMessage');
    assert.ok(sent && sent.at >= row.blocked_until_ms - 50, `runtime two called Slack ${sent ? row.blocked_until_ms - sent.at : '?'} ms before the block ended`);
  });

  it('a sync in another process waits out the block as rate_limited, then completes', async () => {
    const channel = slack.channels[0] as { id: string; name: string };
    const created = await two.app.inject({
      method: 'POST',
      url: '/v1/connectors',
      headers: two.admin,
      payload: { connector_type: 'slack', display_name: 'Slack 2', credentials: { token: slack.token }, settings: { channels: [channel.id] } },
    });
    const other = created.json().connector_id as string;
    await connectorWorker(two).drain(); // validation
    // Runtime one meets a 429 (Retry-After: 8) on an action of this connector.
    slack.rateLimitNext(1, 8);
    const limited = await one.app.inject({ method: 'POST', url: `/v1/connectors/${other}/execute`, headers: one.admin, payload: { intent: `post to #${channel.name}: "limited"` } });
    assert.equal(limited.json().calls[0].status, 'failed', limited.body);
    const row = (await one.db.query<{ blocked_until_ms: number }>('SELECT blocked_until_ms FROM connector_rate_buckets WHERE connector_id = $1', [other])).rows[0];
    assert.ok(row);
    const sync = await two.app.inject({ method: 'POST', url: `/v1/connectors/${other}/sync?full=true`, headers: two.admin });
    assert.equal(sync.statusCode, 202, sync.body);
    const before = times.length;
    const worker = connectorWorker(two);
    worker.start();
    try {
      const get = async () => (await two.app.inject({ method: 'GET', url: `/v1/connectors/${other}`, headers: two.admin })).json();
      let seen = false;
      for (let i = 0; i < 400 && !seen; i++) {
        seen = (await get()).status === 'rate_limited';
        if (!seen) await new Promise((r) => setTimeout(r, 25));
      }
      assert.ok(seen, 'status rate_limited while the sync waits for the block another process stored');
      let c = await get();
      for (let i = 0; i < 600 && c.status !== 'idle'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        c = await get();
      }
      assert.equal(c.status, 'idle', JSON.stringify(c));
      assert.equal(c.sync_runs[0].status, 'completed');
      assert.ok(c.sync_runs[0].rate_limited_waits >= 1);
      const first = Math.min(...times.slice(before).map((x) => x.at));
      assert.ok(first >= row.blocked_until_ms - 50, `the sync called Slack ${row.blocked_until_ms - first} ms before the block ended`);
    } finally {
      await worker.stop();
    }
  });
});

describe('a long block stored by another process hands the sync job back to the queue (PGlite)', () => {
  let slack: FakeSlack;
  let t: TestApp;
  before(async () => {
    slack = await startFakeSlack(await loadSlackExport(), { pageSize: 200 });
    t = await createTestApp({ env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ slack: slack.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
  });
  after(async () => {
    await t?.close();
    await slack?.close();
  });

  it('rate_limited with the job requeued for the block’s end; once the block is gone the sync completes', async () => {
    const channel = slack.channels[0] as { id: string };
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/connectors',
      headers: t.admin,
      payload: { connector_type: 'slack', display_name: 'Slack', credentials: { token: slack.token }, settings: { channels: [channel.id] } },
    });
    const id = created.json().connector_id as string;
    await connectorWorker(t).drain(); // validation
    await blockConnector(t.db, { tenantId: 'default', connectorId: id }, 120_000);
    const sync = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(sync.statusCode, 202, sync.body);
    const jobId = sync.json().job_id as string;
    const worker = createWorker({ db: t.db, log: silentLog, handlers: new Map([[SYNC_JOB_KIND, createSyncHandler(t.deps, { inlineWaitMs: 1_000 })]]), concurrency: 1, pollMs: 50 });
    const calls = slack.calls.length;
    await worker.drain();
    const job = (await t.db.query<{ status: string; wait_s: number }>('SELECT status, extract(epoch FROM run_at - now())::float8 AS wait_s FROM jobs WHERE id = $1', [jobId])).rows[0];
    assert.equal(job?.status, 'queued');
    assert.ok(job && job.wait_s > 60 && job.wait_s <= 120, `requeued for the block's end (in ${job?.wait_s} s)`);
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.status, 'rate_limited');
    assert.equal(slack.calls.length, calls, 'no vendor call while blocked');
    // The block is over (here: cleared) and the job is due.
    await t.db.query('UPDATE connector_rate_buckets SET blocked_until_ms = 0 WHERE connector_id = $1', [id]);
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [jobId]);
    await worker.drain();
    const done = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(done.status, 'idle', JSON.stringify(done));
    assert.equal(done.sync_runs[0].status, 'completed');
    assert.ok(done.document_count > 0);
  });

  it('a sync rate-limited through its last attempt fails: connector error, run failed, audited (not rate_limited for good)', async () => {
    const channel = slack.channels[0] as { id: string };
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/connectors',
      headers: t.admin,
      payload: { connector_type: 'slack', display_name: 'Slack last try', credentials: { token: slack.token }, settings: { channels: [channel.id] } },
    });
    const id = created.json().connector_id as string;
    await connectorWorker(t).drain(); // validation
    await blockConnector(t.db, { tenantId: 'default', connectorId: id }, 120_000);
    const sync = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(sync.statusCode, 202, sync.body);
    const jobId = sync.json().job_id as string;
    // Every attempt but the last was already handed back for a rate limit.
    await t.db.query('UPDATE jobs SET attempts = max_attempts - 1 WHERE id = $1', [jobId]);
    const worker = createWorker({ db: t.db, log: silentLog, handlers: new Map([[SYNC_JOB_KIND, createSyncHandler(t.deps, { inlineWaitMs: 1_000 })]]), concurrency: 1, pollMs: 50 });
    await worker.drain();
    const job = (await t.db.query<{ status: string }>('SELECT status FROM jobs WHERE id = $1', [jobId])).rows[0];
    assert.equal(job?.status, 'failed');
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.status, 'error', JSON.stringify(c));
    assert.match(c.status_reason, /kept rate-limiting/);
    assert.equal(c.sync_runs[0].status, 'failed');
    const audit = await t.db.query(`SELECT 1 FROM audit_events WHERE action = 'connector.sync_failed' AND details->>'connector_id' = $1`, [id]);
    assert.equal(audit.rows.length, 1);
    // A new sync is accepted (before, 409: "a sync is already running").
    await t.db.query('UPDATE connector_rate_buckets SET blocked_until_ms = 0 WHERE connector_id = $1', [id]);
    const again = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync`, headers: t.admin });
    assert.equal(again.statusCode, 202, again.body);
  });
});
