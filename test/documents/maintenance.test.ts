import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { noteChunkWrites } from '../../src/documents/maintenance.ts';
import type { DatabaseExecutor } from '../../src/platform/db/index.ts';
import { openTestPglite, openTestPostgres } from '../support/db.ts';

/** Rewrites every impact list of the tenant once (what ingestion batches do to popular terms). */
async function churn(db: DatabaseExecutor, round: number): Promise<void> {
  await db.query(
    `UPDATE chunk_term_stats SET top_seqs = array_fill($1::bigint, ARRAY[800]), top_impacts = array_fill(0.5::real, ARRAY[800]) WHERE tenant_id = 'default'`,
    [round],
  );
}

const size = async (db: DatabaseExecutor) =>
  Number((await db.query<{ n: string }>(`SELECT pg_total_relation_size('chunk_term_stats') AS n`)).rows[0]?.n);

describe('embedded vacuum (PGlite has no autovacuum)', () => {
  let db: DatabaseExecutor;
  before(async () => {
    db = await openTestPglite();
    await db.query(
      `INSERT INTO chunk_term_stats (tenant_id, term, df, top_seqs, top_impacts)
       SELECT 'default', 'term' || g, 1, '{}', '{}' FROM generate_series(1, 300) g`,
    );
  });
  after(() => db.close());

  test('counts chunk writes and vacuums only past the threshold', async () => {
    assert.equal(await noteChunkWrites(db, 40, 100), false);
    assert.equal(await noteChunkWrites(db, 59, 100), false);
    assert.equal(await noteChunkWrites(db, 1, 100), true, 'the 100th write vacuums');
    assert.equal(await noteChunkWrites(db, 99, 100), false, 'the count starts over after a vacuum');
    assert.equal(await noteChunkWrites(db, 0, 100), false);
  });

  test('rewritten impact lists reuse their space once vacuumed instead of growing without bound', async () => {
    await churn(db, 1);
    assert.equal(await noteChunkWrites(db, 1, 1), true);
    const settled = await size(db);
    for (let round = 2; round < 8; round++) {
      await churn(db, round);
      await noteChunkWrites(db, 1, 1);
    }
    const vacuumed = await size(db);
    for (let round = 8; round < 14; round++) await churn(db, round);
    const unvacuumed = await size(db);
    assert.ok(vacuumed <= settled * 2.5, `with vacuum the table stays near its size (${settled} → ${vacuumed} bytes)`);
    assert.ok(unvacuumed > vacuumed * 2, `without vacuum every rewrite adds dead TOAST (${vacuumed} → ${unvacuumed} bytes)`);
  });
});

describe('embedded vacuum on PostgreSQL', () => {
  test('is left to autovacuum', async () => {
    const pg = await openTestPostgres();
    try {
      assert.equal(await noteChunkWrites(pg.db, 1_000_000, 1), false);
    } finally {
      await pg.drop();
    }
  });
});
