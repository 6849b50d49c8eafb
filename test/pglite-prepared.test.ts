import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { DatabaseExecutor } from '../src/platform/db/index.ts';
import { openTestPglite } from './support/db.ts';

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
