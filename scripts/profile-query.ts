// `node --import tsx scripts/profile-query.ts <bench|peers> <chunks> [queries] [--explain] [--views]`: where a
// top-10 query's time goes at scale in embedded mode (issue 29). Opens a cached corpus read-only in-process:
// `bench` = scripts/bench-corpus.ts (short synthetic documents, the ACL and search benchmarks' corpus), `peers` =
// bench/peers/corpus.ts's ~1 KB documents of real sentences (the peers benchmark's), stored once under
// .cache/query-profile/peers-<N> through upsertDocuments with their GloVe vectors and HNSW index. Per mode
// (lexical, vector, hybrid; query vectors precomputed) it prints p50/p99 wall, CPU per query, and the SQL time per
// statement kind (the rest of the wall time is JS: planning, row parsing, fusion); `--explain` adds EXPLAIN ANALYZE
// of the main statement of the first query per mode. Not a benchmark (no report section).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadCorpus } from '../bench/peers/corpus.ts';
import { loadConfig } from '../src/config/index.ts';
import { loadBeir } from '../src/documents/eval/beir.ts';
import { percentile } from '../src/documents/eval/metrics.ts';
import { searchPassages, upsertDocuments } from '../src/documents/index.ts';
import { planStatement } from '../src/documents/search/retrieve.ts';
import { ensureVectorIndex } from '../src/documents/vectors.ts';
import { createEmbeddingRegistry } from '../src/embeddings/index.ts';
import { type DatabaseExecutor, migrate, openPglite, type Queryable } from '../src/platform/db/index.ts';
import { createLogger } from '../src/platform/log.ts';
import { BENCH_MODEL, openBenchCorpus } from './bench-corpus.ts';

const [kind = 'peers', nArg = '100000', qArg = '100'] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const N = Number(nArg);
const Q = Number(qArg);
const EXPLAIN = process.argv.includes('--explain');
const log = createLogger({ level: 'warn' });
const ROOT = path.resolve(import.meta.dirname, '..');
const DATA = path.resolve(ROOT, '../shared/data');

/** The peers corpus as an embedded data folder (built once, through the real ingestion path). */
async function peersDir(n: number): Promise<string> {
  const dir = path.join(ROOT, `.cache/query-profile/peers-${n}`);
  if (fs.existsSync(path.join(dir, 'built'))) return dir;
  fs.mkdirSync(dir, { recursive: true });
  const registry = createEmbeddingRegistry(loadConfig({ ...process.env, LOG_LEVEL: 'warn' }), log);
  const { docs } = await loadCorpus(n);
  const db = await openPglite(dir);
  try {
    await migrate(db, log);
    await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ('api-p', 'default', 'api', 'p') ON CONFLICT DO NOTHING`);
    const have = Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents')).rows[0]?.n ?? 0);
    const t0 = performance.now();
    for (let i = have - (have % 1000); i < n; i += 1000) {
      const batch = docs.slice(i, i + 1000).map((d) => ({ external_id: d.id, title: d.title, content: d.content }));
      await upsertDocuments({ db, log, embeddings: registry, hnswMinVectors: Number.POSITIVE_INFINITY }, { tenantId: 'default', connectorId: 'api-p', documents: batch, embed: 'inline', model: BENCH_MODEL });
      process.stderr.write(`\rpeers corpus: ${i + batch.length}/${n} (${((performance.now() - t0) / 1000).toFixed(0)} s)   `);
    }
    await db.exec(`SET maintenance_work_mem = '768MB'`);
    await ensureVectorIndex(db, BENCH_MODEL, 100);
    await db.exec('VACUUM ANALYZE');
  } finally {
    await db.close();
    await registry.close();
  }
  fs.writeFileSync(path.join(dir, 'built'), new Date().toISOString());
  return dir;
}

async function open(): Promise<{ raw: DatabaseExecutor; close(): Promise<void> }> {
  if (kind === 'bench') {
    const c = await openBenchCorpus({ chunks: N, sources: 5, log });
    return { raw: c.db, close: () => c.close() };
  }
  const raw = await openPglite(await peersDir(N));
  await migrate(raw, log);
  return { raw, close: () => raw.close() };
}

const { raw, close } = await open();
const times = new Map<string, { ms: number; n: number }>();
const key = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 60);
const time = async <T>(sql: string, f: () => Promise<T>): Promise<T> => {
  const s = performance.now();
  try {
    return await f();
  } finally {
    const e = times.get(key(sql)) ?? { ms: 0, n: 0 };
    e.ms += performance.now() - s;
    e.n++;
    times.set(key(sql), e);
  }
};
const timed = (q: Queryable): Queryable => ({
  query: (sql, params) => time(sql, () => q.query(sql, params)),
  exec: (sql) => time(sql, () => q.exec(sql)),
  ...(q.queryPrepared ? { queryPrepared: (sql: string, params?: readonly unknown[]) => time(sql, () => (q.queryPrepared as NonNullable<Queryable['queryPrepared']>)(sql, params)) } : {}),
});
const db = Object.assign(Object.create(raw), timed(raw), {
  transaction: (f: (tx: Queryable) => Promise<unknown>) => raw.transaction((tx) => f(timed(tx))),
}) as DatabaseExecutor;
const registry = createEmbeddingRegistry(loadConfig({ ...process.env, LOG_LEVEL: 'warn' }), log);
const deps = { db, log, embeddings: registry };
const provider = registry.get(BENCH_MODEL);
if (!provider) throw new Error(`${BENCH_MODEL} is not available`);

const queries: string[] = [];
for (const d of ['cranfield', 'coffee-stackexchange']) queries.push(...(await loadBeir(path.join(DATA, d))).queries.map((q) => q.text));
const qs = queries.slice(0, Q);
const qvecs = await provider.embed(qs);
const chunks = (await raw.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks')).rows[0]?.n;
console.log(`${kind} corpus, ${chunks} chunks, ${qs.length} queries, load ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')}`);

for (const mode of ['lexical', 'vector', 'hybrid'] as const) {
  const req = (i: number) => ({ tenantId: 'default', query: qs[i] ?? '', queryVector: qvecs[i], queryModel: BENCH_MODEL, limit: 10, mode });
  for (let i = 0; i < Math.min(10, qs.length); i++) await searchPassages(deps, req(i));
  times.clear();
  const lat: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < qs.length; i++) {
    const s = performance.now();
    await searchPassages(deps, req(i));
    lat.push(performance.now() - s);
  }
  const cpu = process.cpuUsage(cpu0);
  const wall = lat.reduce((a, b) => a + b, 0);
  const sql = [...times.values()].reduce((a, b) => a + b.ms, 0);
  console.log(
    `\n${mode}: p50 ${percentile(lat, 50).toFixed(1)} p99 ${percentile(lat, 99).toFixed(1)} ms wall; CPU ${((cpu.user + cpu.system) / 1000 / qs.length).toFixed(1)} ms/query; SQL ${(sql / qs.length).toFixed(1)} ms/query, rest ${((wall - sql) / qs.length).toFixed(1)} ms/query`,
  );
  for (const [k, v] of [...times.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 6)) console.log(`  ${(v.ms / qs.length).toFixed(2).padStart(7)} ms/q  ×${(v.n / qs.length).toFixed(1)}  ${k}`);
  if (EXPLAIN) {
    const st = await planStatement(deps, req(0));
    if (st) {
      const params = st.params.map((p) => (p instanceof Float32Array ? Array.from(p) : p));
      const plan = await raw.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${st.sql}`, params);
      console.log(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
    }
  }
}
await registry.close();
await close();
