import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ACTIVITY_REFRESH_MS, createActivityLog } from '../../src/federation/activity.ts';
import { loadActivity } from '../../src/federation/store.ts';
import type { Queryable } from '../../src/platform/db/executor.ts';
import type { DatabaseExecutor } from '../../src/platform/db/index.ts';
import { openTestPglite } from '../support/db.ts';

const T0 = Date.parse('2026-06-01T12:00:00Z');
const at = (min: number) => new Date(T0 + min * 60_000);
const since = (nowMin: number) => at(nowMin - 30);

/** The in-memory activity log behind user entropy, against a real PGlite table. */
describe('activity log (memory + write-behind table)', () => {
  let db: DatabaseExecutor;
  before(async () => {
    db = await openTestPglite();
  });
  after(async () => {
    await db.close();
  });

  it('shows a query exactly what the table holds, before and after the rows are written', async () => {
    let mono = 0;
    const log = createActivityLog({ monotonicMs: () => mono });
    const terms = [['payment', 'outage'], ['deploy'], ['payment', 'refund'], ['hiring']];
    for (const [k, t] of terms.entries()) {
      const h = await log.history(db, 'default', 'u1', since(k), 100);
      // What the query saw equals what a direct read of the table gives once pending rows are in.
      await log.flush(db);
      assert.deepEqual(h.events, await loadActivity(db, 'default', 'u1', since(k), 100));
      h.done({ at: at(k), queryHash: `h${k}`, terms: t });
      mono += 1;
    }
    const seen = await log.history(db, 'default', 'u1', since(4), 100);
    seen.done(null);
    assert.deepEqual(
      seen.events.map((e) => e.terms),
      [['hiring'], ['payment', 'refund'], ['deploy'], ['payment', 'outage']],
    );
    await log.flush(db);
    assert.deepEqual(seen.events, await loadActivity(db, 'default', 'u1', since(4), 100));
    // A later window drops the old events; a smaller limit keeps the newest.
    const later = await log.history(db, 'default', 'u1', at(2), 2);
    later.done(null);
    assert.deepEqual(later.events, await loadActivity(db, 'default', 'u1', at(2), 2));
    assert.equal(later.events.length, 2);
  });

  it('on a shared store, picks up rows another process wrote after the refresh interval, not before', async () => {
    let mono = 0;
    // As on PostgreSQL, where several API processes share the table.
    const log = createActivityLog({ monotonicMs: () => mono, refreshMs: () => ACTIVITY_REFRESH_MS });
    const first = await log.history(db, 'default', 'u2', since(0), 100);
    first.done({ at: at(0), queryHash: 'mine', terms: ['ledger'] });
    await log.flush(db);
    await db.query(`INSERT INTO federation_activity (tenant_id, user_id, occurred_at, query_hash, terms) VALUES ('default', 'u2', $1, 'other', ARRAY['audit'])`, [
      at(1).toISOString(),
    ]);
    const soon = await log.history(db, 'default', 'u2', since(2), 100);
    soon.done(null);
    assert.deepEqual(
      soon.events.map((e) => e.terms),
      [['ledger']],
      'within the refresh interval: memory only',
    );
    mono += ACTIVITY_REFRESH_MS;
    const refreshed = await log.history(db, 'default', 'u2', since(2), 100);
    refreshed.done(null);
    assert.deepEqual(
      refreshed.events.map((e) => e.terms),
      [['audit'], ['ledger']],
    );
  });

  it('on an embedded store (one process), keeps the history in memory without re-reading', async () => {
    let mono = 0;
    const log = createActivityLog({ monotonicMs: () => mono });
    const first = await log.history(db, 'default', 'u4', since(0), 100);
    first.done({ at: at(0), queryHash: 'mine', terms: ['ledger'] });
    await log.flush(db);
    let reads = 0;
    const counting: Queryable & { kind: string } = {
      kind: db.kind,
      query<R>(sql: string, params?: readonly unknown[]) {
        if (sql.includes('FROM federation_activity')) reads++;
        return db.query<R>(sql, params);
      },
      exec: (sql: string) => db.exec(sql),
    };
    mono += 10 * ACTIVITY_REFRESH_MS;
    const later = await log.history(counting, 'default', 'u4', since(1), 100);
    later.done(null);
    assert.equal(reads, 0);
    assert.deepEqual(
      later.events.map((e) => e.terms),
      [['ledger']],
    );
  });

  it('re-reads the table when asked for an earlier window than it holds (a clock set back)', async () => {
    const log = createActivityLog({ monotonicMs: () => 0 });
    await db.query(`INSERT INTO federation_activity (tenant_id, user_id, occurred_at, query_hash, terms) VALUES ('default', 'u3', $1, 'old', ARRAY['old'])`, [
      at(-100).toISOString(),
    ]);
    const now = await log.history(db, 'default', 'u3', since(0), 100);
    now.done(null);
    assert.deepEqual(now.events, []);
    const back = await log.history(db, 'default', 'u3', since(-90), 100);
    back.done(null);
    assert.deepEqual(
      back.events.map((e) => e.terms),
      [['old']],
    );
  });

  it('keeps tenants and users apart', async () => {
    const log = createActivityLog();
    const a = await log.history(db, 'tenant-x', 'same', since(0), 100);
    a.done({ at: at(0), queryHash: 'x', terms: ['x'] });
    const b = await log.history(db, 'tenant-y', 'same', since(0), 100);
    b.done(null);
    assert.deepEqual(b.events, []);
  });
});
