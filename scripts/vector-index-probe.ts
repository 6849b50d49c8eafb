// Issue 29 probe: cost of keeping a pgvector index up to date in PGlite, HNSW vs IVFFlat, and IVFFlat's recall.
import { performance } from 'node:perf_hooks';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { loadCorpus, vectorOf } from '../bench/peers/corpus.ts';

const N = Number(process.argv[2] ?? 20000);
const kind = process.argv[3] ?? 'ivfflat';
const { vectors } = await loadCorpus(N);
const lit = (i: number) => `[${Array.from(vectorOf(vectors, i)).join(',')}]`;
const pg = await PGlite.create('memory://', { extensions: { vector } });
await pg.exec('CREATE EXTENSION vector; CREATE TABLE t (id int primary key, v vector)');
const insert = async (from: number, to: number) => {
  for (let i = from; i < to; i += 1000) {
    const ids = []; const vs = [];
    for (let j = i; j < Math.min(to, i + 1000); j++) { ids.push(j); vs.push(lit(j)); }
    await pg.query('INSERT INTO t SELECT * FROM unnest($1::int[], $2::text[]::vector[])', [ids, vs]);
  }
};
const half = Math.floor(N / 2);
await insert(0, half);
let cpu = process.cpuUsage();
const cpuS = () => { const c = process.cpuUsage(cpu); cpu = process.cpuUsage(); return (c.user + c.system) / 1e6; };
const lists = Math.max(10, Math.round(Math.sqrt(half)));
await pg.exec(`SET maintenance_work_mem = '512MB'`);
cpuS();
const [, m, efc] = kind.split(':');
if (kind.startsWith('hnsw')) await pg.exec(`CREATE INDEX ON t USING hnsw ((v::vector(100)) vector_cosine_ops)${m ? ` WITH (m = ${m}, ef_construction = ${efc})` : ''}`);
else await pg.exec(`CREATE INDEX ON t USING ivfflat ((v::vector(100)) vector_cosine_ops) WITH (lists = ${lists})`);
console.log(`${kind}: build at ${half}: ${cpuS().toFixed(1)} s CPU (lists ${lists})`);
await insert(half, N);
console.log(`${kind}: ${N - half} inserts after: ${((cpuS() * 1000) / (N - half)).toFixed(2)} ms CPU per row`);
const Q = 50;
for (const probes of kind.startsWith('hnsw') ? [0] : [1, 3, 5, 10]) {
  if (probes) await pg.exec(`SET ivfflat.probes = ${probes}`);
  else await pg.exec('SET hnsw.ef_search = 60');
  let hit = 0;
  let ms = 0;
  for (let q = 0; q < Q; q++) {
    const v = lit((q * 7919) % N);
    const s = performance.now();
    const a = await pg.query<{ id: number }>(`SELECT id FROM t ORDER BY v::vector(100) <=> $1::vector LIMIT 30`, [v]);
    ms += performance.now() - s;
    await pg.exec('SET enable_indexscan = off');
    const b = await pg.query<{ id: number }>(`SELECT id FROM t ORDER BY v::vector(100) <=> $1::vector LIMIT 30`, [v]);
    await pg.exec('SET enable_indexscan = on');
    const exact = new Set(b.rows.map((r) => r.id));
    hit += a.rows.filter((r) => exact.has(r.id)).length / 30;
  }
  console.log(`${kind} probes=${probes}: recall@30 ${(hit / Q).toFixed(3)}, ${(ms / Q).toFixed(1)} ms per query (wall)`);
}
