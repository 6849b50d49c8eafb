import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { isReadOnlyStatement } from '../../src/platform/db/executor.ts';
import type { DatabaseExecutor } from '../../src/platform/db/index.ts';
import { openTestPglite } from '../support/db.ts';

let db: DatabaseExecutor;
before(async () => {
  db = await openTestPglite();
});
after(async () => {
  await db.close();
});

const SQL = `SELECT $1::text AS s, $2::text[] AS arr, $3::float8[] AS nums, $4::float8 AS x, $5::int AS n,
  $6::timestamptz AS at, $7::jsonb AS j, $8::text AS missing, cardinality($2::text[]) AS len`;

test('queryPrepared returns what query returns, for awkward parameter values', async () => {
  const run = db.queryPrepared?.bind(db);
  assert.ok(run, 'the PGlite executor offers prepared statements');
  const cases: unknown[][] = [
    ["it's", ['a', "b'c", 'd"e', 'f\\g', 'h,i', '{j}', 'NULL', ''], [0.1, -2.5e-300, 1 / 3], Math.PI, 42, '2024-01-02T03:04:05.000Z', { k: "v'" }, null],
    ['\\', [], [], -0, 0, new Date('2020-02-29T12:00:00Z'), { a: [1, 'two'], b: null }, null],
    ["'; DROP TABLE chunks; --", ['x', null], [1e-9, 12345678.9], 1e308, -7, '1999-12-31T23:59:59.999Z', {}, null],
  ];
  for (const params of cases) {
    const plain = await db.query(SQL, params);
    const viaPrepared: { rows: unknown[] } = await run(SQL, params);
    assert.deepEqual(viaPrepared.rows, plain.rows);
  }
  const tables = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'chunks'`);
  assert.equal(tables.rows[0]?.n, 1);
});

test('queryPrepared prepares a statement once per SQL text and reuses it, also inside transactions', async () => {
  assert.ok(db.queryPrepared);
  const sql = 'SELECT $1::int + 1 AS v';
  const count = async () =>
    (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE '%$1::int + 1 AS v%'`)).rows[0]?.n;
  assert.equal(await count(), 0);
  assert.deepEqual((await db.queryPrepared<{ v: number }>(sql, [1])).rows, [{ v: 2 }]);
  assert.deepEqual((await db.queryPrepared<{ v: number }>(sql, [41])).rows, [{ v: 42 }]);
  const inTx = await db.transaction(async (tx) => {
    assert.ok(tx.queryPrepared);
    return (await tx.queryPrepared<{ v: number }>(sql, [9])).rows;
  });
  assert.deepEqual(inTx, [{ v: 10 }]);
  assert.equal(await count(), 1);
});

test('isReadOnlyStatement: only statements that cannot write count as reads', () => {
  for (const sql of ['SELECT 1', '  select * from chunks', 'WITH a AS (SELECT 1) SELECT * FROM a', 'SET LOCAL hnsw.ef_search = 40; SET LOCAL x = 1', 'SHOW work_mem', 'EXPLAIN SELECT 1', 'VALUES (1)']) {
    assert.equal(isReadOnlyStatement(sql), true, sql);
  }
  for (const sql of [
    'INSERT INTO t VALUES (1)',
    'update t set x = 1',
    'DELETE FROM t',
    'WITH w AS (INSERT INTO t VALUES (1) RETURNING 1) SELECT * FROM w',
    'SELECT nextval($1)',
    'SELECT pg_advisory_xact_lock(1)',
    'SELECT * FROM jobs FOR UPDATE SKIP LOCKED',
    'TRUNCATE t',
    'VACUUM (ANALYZE) chunks',
    'CREATE INDEX i ON t (x)',
    'BEGIN',
  ]) {
    assert.equal(isReadOnlyStatement(sql), false, sql);
  }
});

test('writeEpoch changes with every write sent through the executor (transactions included), never with a read', async () => {
  assert.ok(db.writeEpoch, 'the embedded executor is the database’s one client');
  await db.exec('CREATE TABLE IF NOT EXISTS epoch_probe (x int)');
  const e0 = db.writeEpoch();
  await db.query('SELECT count(*) FROM epoch_probe');
  await db.queryPrepared?.('SELECT $1::int AS v', [1]);
  await db.transaction(async (tx) => {
    await tx.exec('SET LOCAL work_mem = 65536');
    await tx.query('SELECT 1');
  });
  assert.equal(db.writeEpoch(), e0, 'reads leave the epoch alone');
  await db.query('INSERT INTO epoch_probe VALUES (1)');
  const e1 = db.writeEpoch();
  assert.notEqual(e1, e0);
  await db.transaction(async (tx) => {
    await tx.query('UPDATE epoch_probe SET x = 2');
  });
  const e2 = db.writeEpoch();
  assert.notEqual(e2, e1);
  await assert.rejects(
    db.transaction(async (tx) => {
      await tx.query('DELETE FROM epoch_probe');
      throw new Error('roll back');
    }),
  );
  assert.notEqual(db.writeEpoch(), e2, 'a rolled-back write still counts (readers refresh, nothing stale)');
});

test('concurrent first uses of one statement share its PREPARE (no "prepared statement already exists")', async () => {
  const run = db.queryPrepared?.bind(db);
  assert.ok(run);
  const sql = 'SELECT $1::int * 3 AS v';
  const rows = await Promise.all([1, 2, 3, 4].map(async (n) => (await run<{ v: number }>(sql, [n])).rows[0]?.v));
  assert.deepEqual(rows, [3, 6, 9, 12]);
});
