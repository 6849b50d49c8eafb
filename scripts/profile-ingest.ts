// `node --import tsx scripts/profile-ingest.ts <docs> [hnswMin]`: ingests the peers corpus (bench/peers/corpus.ts)
// into an embedded PGlite folder in-process through upsertDocuments, in batches of 1,000, and prints where
// the time goes (SQL time per statement kind, per tenth of the corpus; process CPU per document, first and last
// batch), where the bytes go (relation and index sizes, WAL, the vector index files), then the CPU and wall time
// of vector-only and hybrid searches (the shared sets' queries). ATRIUM_EMBEDDED_VECTOR_INDEX=pgvector profiles
// the earlier design (pgvector's HNSW inside PGlite, built at `hnswMin` vectors); the default is the usearch graph.
// Used for issue 29's profile; not a benchmark (no report section).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { latencyQueries, loadCorpus } from '../bench/peers/corpus.ts';
import { diskBytes } from '../bench/peers/corpus.ts';
import { loadConfig } from '../src/config/index.ts';
import { searchPassages, upsertDocuments } from '../src/documents/index.ts';
import { createEmbeddingRegistry } from '../src/embeddings/index.ts';
import { type DatabaseExecutor, migrate, openPglite, type Queryable } from '../src/platform/db/index.ts';
import { createLogger } from '../src/platform/log.ts';

const N = Number(process.argv[2] ?? 20_000);
const HNSW_MIN = process.argv[3] ? Number(process.argv[3]) : undefined;
const VECTOR_INDEX = process.env.ATRIUM_EMBEDDED_VECTOR_INDEX === 'pgvector' ? 'pgvector' : 'usearch';
const log = createLogger({ level: 'warn' });
const registry = createEmbeddingRegistry(loadConfig({ ...process.env, LOG_LEVEL: 'warn' }), log);
const { docs } = await loadCorpus(N);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'profile-ingest-'));
const raw = await openPglite(dir);
await migrate(raw, log);
await raw.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ('api-p', 'default', 'api', 'p')`);

const times = new Map<string, number>();
const key = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 70);
const timed = (q: Queryable): Queryable => ({
  ...q,
  query: async (sql: string, params?: unknown[]) => {
    const s = performance.now();
    try {
      return await q.query(sql, params as never);
    } finally {
      times.set(key(sql), (times.get(key(sql)) ?? 0) + performance.now() - s);
    }
  },
  exec: async (sql: string) => {
    const s = performance.now();
    try {
      return await q.exec(sql);
    } finally {
      times.set(key(sql), (times.get(key(sql)) ?? 0) + performance.now() - s);
    }
  },
}) as Queryable;
const db = Object.assign(Object.create(raw), timed(raw), {
  transaction: (f: (tx: Queryable) => Promise<unknown>) => raw.transaction((tx) => f(timed(tx))),
}) as DatabaseExecutor;

const deps = {
  db,
  log,
  embeddings: registry,
  documentIndex: { embeddedVectorIndex: VECTOR_INDEX },
  ...(HNSW_MIN !== undefined ? { hnswMinVectors: HNSW_MIN } : {}),
} as const;
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
console.log(`vector index: ${VECTOR_INDEX}; ${N} documents; load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
const t0 = performance.now();
const cpu0 = process.cpuUsage();
let tenth = performance.now();
const batchCpu: number[] = [];
for (let i = 0; i < N; i += 1000) {
  const s = performance.now();
  const c = process.cpuUsage();
  await upsertDocuments(deps, { tenantId: 'default', connectorId: 'api-p', documents: docs.slice(i, i + 1000).map((d) => ({ external_id: d.id, title: d.title, content: d.content })) });
  const batchS = (performance.now() - s) / 1000;
  batchCpu.push(cpuMs(process.cpuUsage(c)) / 1000);
  if ((i / 1000) % Math.max(1, Math.floor(N / 10000)) === 0) console.log(`batch at ${i}: ${(1000 / batchS).toFixed(0)} docs/s wall, ${batchCpu.at(-1)?.toFixed(2)} ms CPU per document`);
  if ((i + 1000) % Math.max(1000, N / 5) === 0) {
    const top = [...times.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8);
    console.log(`-- up to ${i + 1000}: ${((performance.now() - tenth) / 1000).toFixed(1)} s; SQL ms by statement:`);
    for (const [k, v] of top) console.log(`   ${v.toFixed(0).padStart(7)}  ${k}`);
    times.clear();
    tenth = performance.now();
  }
}
console.log(`total ${((performance.now() - t0) / 1000).toFixed(1)} s, ${(N / ((performance.now() - t0) / 1000)).toFixed(0)} docs/s; load ${os.loadavg()[0]?.toFixed(1)}`);
const perDoc = cpuMs(process.cpuUsage(cpu0)) / N;
console.log(
  `CPU per document: ${perDoc.toFixed(2)} ms overall (${(1000 / perDoc).toFixed(0)} docs/s per core); first batch ${batchCpu[0]?.toFixed(2)} ms, last ${batchCpu.at(-1)?.toFixed(2)} ms`,
);
// Searches: vector-only and hybrid, the shared sets' queries (200 each, after 10 to warm up).
for (const mode of ['vector', 'hybrid'] as const) {
  const queries = await latencyQueries(200);
  for (const q of queries.slice(0, 10)) await searchPassages(deps, { tenantId: 'default', query: q, limit: 10, mode });
  const wall: number[] = [];
  const c = process.cpuUsage();
  for (const q of queries) {
    const s = performance.now();
    await searchPassages(deps, { tenantId: 'default', query: q, limit: 10, mode });
    wall.push(performance.now() - s);
  }
  wall.sort((a, b) => a - b);
  const pct = (p: number) => wall[Math.min(wall.length - 1, Math.floor(p * wall.length))]?.toFixed(1);
  console.log(`${mode}: ${(cpuMs(process.cpuUsage(c)) / queries.length).toFixed(2)} ms CPU per query; wall p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms; load ${os.loadavg()[0]?.toFixed(1)}`);
}
const sizes = await raw.query<{ name: string; bytes: number }>(
  `SELECT c.relname AS name, pg_relation_size(c.oid)::bigint AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') OR c.relname LIKE 'pg_toast%' ORDER BY 2 DESC LIMIT 16`,
);
for (const r of sizes.rows) console.log(`${String((Number(r.bytes) / 2 ** 20).toFixed(1)).padStart(8)} MB  ${r.name}`);
await raw.close();
// Cold open: the folder opened again, the first vector query (usearch: read and verify the graph file, reconcile).
{
  const again = await openPglite(dir);
  const d2 = { ...deps, db: again };
  const [q] = await latencyQueries(1);
  const c = process.cpuUsage();
  const s = performance.now();
  await searchPassages(d2, { tenantId: 'default', query: q ?? 'query', limit: 10, mode: 'vector' });
  const first = { cpu: cpuMs(process.cpuUsage(c)), wall: performance.now() - s };
  const c2 = process.cpuUsage();
  await searchPassages(d2, { tenantId: 'default', query: q ?? 'query', limit: 10, mode: 'vector' });
  console.log(`reopened: first vector query ${first.cpu.toFixed(0)} ms CPU (${first.wall.toFixed(0)} ms wall), the next ${cpuMs(process.cpuUsage(c2)).toFixed(1)} ms CPU`);
  await again.close();
}
await registry.close();
console.log(
  `folder ${(diskBytes(dir) / 2 ** 20).toFixed(0)} MB (pg_wal ${(diskBytes(path.join(dir, 'pg_wal')) / 2 ** 20).toFixed(0)} MB, vectors ${(diskBytes(path.join(dir, 'vectors')) / 2 ** 20).toFixed(1)} MB), ${(diskBytes(dir) / N / 1024).toFixed(1)} KB per document`,
);
fs.rmSync(dir, { recursive: true, force: true });
