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
    assert.equal(await noteChunkWrites(db, 1, 100), 'all', 'the 100th write vacuums (the tables too: never vacuumed yet)');
    assert.equal(await noteChunkWrites(db, 99, 100), false, 'the count starts over after a vacuum');
    assert.equal(await noteChunkWrites(db, 0, 100), false);
  });

  test('vacuums chunks and documents once the writes reach a fifth of their rows, the term statistics every threshold', async () => {
    await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ('api-m', 'default', 'api', 'm')`);
    await db.query(
      `INSERT INTO documents (id, tenant_id, source_node, external_id, content_hash, fields_hash)
       SELECT 'doc_m' || g, 'default', 'api-m', 'm' || g, 'h', 'h' FROM generate_series(1, 1000) g`,
    );
    await db.query(`INSERT INTO chunks (id, tenant_id, document_id, ordinal, terms, tfs, length) SELECT 'chk_m' || g, 'default', 'doc_m' || g, 0, '{x}', '{1}', 1 FROM generate_series(1, 1000) g`);
    await noteChunkWrites(db, 1000, 1000);
    const reltuples = async () => Number((await db.query<{ n: number }>(`SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'chunks'::regclass`)).rows[0]?.n);
    assert.equal(await reltuples(), 1000, 'the first pass analyzed chunks');
    assert.equal(await noteChunkWrites(db, 10, 10), 'stats', '10 writes of 1,000 rows: only the term statistics');
    assert.equal(await noteChunkWrites(db, 180, 10), 'stats', '190 writes since the tables were vacuumed');
    assert.equal(await noteChunkWrites(db, 10, 10), 'all', '200 writes: a fifth of the rows');
    await db.query(`DELETE FROM documents WHERE source_node = 'api-m'`);
  });

  test('rewritten impact lists reuse their space once vacuumed instead of growing without bound', async () => {
    await churn(db, 1);
    assert.ok(await noteChunkWrites(db, 1, 1));
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
