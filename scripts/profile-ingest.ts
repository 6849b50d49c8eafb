// `node --import tsx scripts/profile-ingest.ts <docs> [hnswMin]`: ingests the peers corpus (bench/peers/corpus.ts)
// into an embedded PGlite folder in-process through upsertDocuments, in batches of 1,000, and prints where
// the time goes and where the bytes go. Used for issue 29's profile; not a benchmark (no report section).
// - CPU per SQL statement kind (process.cpuUsage around each call: PGlite runs in this thread, so this is the
//   statement's CPU, whatever the machine's load), per fifth of the corpus;
// - CPU per JS stage of the push path, measured on the same batches beside the store: the HTTP body's
//   JSON.parse, its zod validation (the route's schema), hashing, chunking, embedding (GloVe);
// - docs/s (wall and CPU) per batch, the first and the last;
// - bytes per relation (heap + TOAST + indexes) and of the WAL.
// Pass a large hnswMin (1e9) to leave the pgvector HNSW index out and isolate the rest of the write path.
// Then vector-only and hybrid search CPU, and the first vector query after reopening the folder.
// ATRIUM_EMBEDDED_VECTOR_INDEX=pgvector profiles the earlier design (pgvector's HNSW inside PGlite, built at
// `hnswMin` vectors); the default is the usearch graph (src/documents/ann).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { diskBytes, latencyQueries, loadCorpus } from '../bench/peers/corpus.ts';
import { loadConfig } from '../src/config/index.ts';
import { chunkDocument, contentHash, documentInputSchema, searchPassages, upsertDocuments } from '../src/documents/index.ts';
import { embeddingText } from '../src/documents/embed.ts';
import { fieldsHash } from '../src/documents/hash.ts';
import { createEmbeddingRegistry } from '../src/embeddings/index.ts';
import { type DatabaseExecutor, migrate, openPglite, type Queryable } from '../src/platform/db/index.ts';
import { createLogger } from '../src/platform/log.ts';

const N = Number(process.argv[2] ?? 20_000);
const HNSW_MIN = process.argv[3] ? Number(process.argv[3]) : undefined;
const BATCH = 1000;
const VECTOR_INDEX = process.env.ATRIUM_EMBEDDED_VECTOR_INDEX === 'pgvector' ? 'pgvector' : 'usearch';
const log = createLogger({ level: 'warn' });
const registry = createEmbeddingRegistry(loadConfig({ ...process.env, LOG_LEVEL: 'warn' }), log);
const glove = registry.get(registry.defaultId);
const { docs } = await loadCorpus(N);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'profile-ingest-'));
const raw = await openPglite(dir);
await migrate(raw, log);
await raw.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ('api-p', 'default', 'api', 'p')`);

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const sqlCpu = new Map<string, number>();
const key = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 70);
const timed = (q: Queryable): Queryable => {
  const wrap = <A extends unknown[], R>(f: (sql: string, ...a: A) => Promise<R>) => async (sql: string, ...a: A): Promise<R> => {
    const s = cpuMs();
    try {
      return await f(sql, ...a);
    } finally {
      sqlCpu.set(key(sql), (sqlCpu.get(key(sql)) ?? 0) + cpuMs() - s);
    }
  };
  return { ...q, query: wrap(q.query.bind(q)), exec: wrap(q.exec.bind(q)) } as Queryable;
};
const db = Object.assign(Object.create(raw), timed(raw), {
  transaction: (f: (tx: Queryable) => Promise<unknown>) => raw.transaction((tx) => f(timed(tx))),
}) as DatabaseExecutor;

// The push route's body schema (src/http/routes/documents.ts).
const bodySchema = z.object({ documents: z.array(documentInputSchema.strict()).min(1) }).strict();
const jsCpu = { 'JSON.parse body': 0, 'zod body': 0, 'hash (content + fields)': 0, chunk: 0, 'embed (GloVe)': 0 };
async function stage(name: keyof typeof jsCpu, f: () => unknown): Promise<void> {
  const s = cpuMs();
  await f();
  jsCpu[name] += cpuMs() - s;
}

const deps = {
  db,
  log,
  embeddings: registry,
  documentIndex: { embeddedVectorIndex: VECTOR_INDEX },
  ...(HNSW_MIN !== undefined ? { hnswMinVectors: HNSW_MIN } : {}),
} as const;
console.log(`vector index: ${VECTOR_INDEX}; ${N} documents; load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
const t0 = performance.now();
const c0 = cpuMs();
let fifth = { wall: performance.now(), cpu: cpuMs() };
const batches: { at: number; wall: number; cpu: number }[] = [];
for (let i = 0; i < N; i += BATCH) {
  const body = JSON.stringify({ documents: docs.slice(i, i + BATCH).map((d) => ({ external_id: d.id, title: d.title, content: d.content })) });
  // The JS stages, measured on the batch beside the store (their CPU is not in the batch's docs/s below).
  let input: z.infer<typeof bodySchema> = { documents: [] };
  await stage('JSON.parse body', () => JSON.parse(body));
  await stage('zod body', () => (input = bodySchema.parse(JSON.parse(body))));
  await stage('hash (content + fields)', () => input.documents.map((d) => [contentHash(d), fieldsHash(d)]));
  await stage('chunk', () => input.documents.map((d) => chunkDocument(d, { maxChars: 1200, overlapChars: 150 })));
  await stage('embed (GloVe)', () => glove?.embed(input.documents.map((d) => embeddingText(d.title, d.content))));
  const s = { wall: performance.now(), cpu: cpuMs() };
  await upsertDocuments(deps, { tenantId: 'default', connectorId: 'api-p', documents: input.documents });
  batches.push({ at: i, wall: performance.now() - s.wall, cpu: cpuMs() - s.cpu });
  const b = batches[batches.length - 1];
  if (b && ((i / BATCH) % Math.max(1, Math.floor(N / 10 / BATCH)) === 0 || i + BATCH >= N)) {
    console.log(`batch at ${i}: ${(BATCH / (b.wall / 1000)).toFixed(0)} docs/s wall, ${(BATCH / (b.cpu / 1000)).toFixed(0)} docs/s CPU; load ${os.loadavg()[0]?.toFixed(1)}`);
  }
  if ((i + BATCH) % Math.max(BATCH, N / 5) === 0) {
    const top = [...sqlCpu.entries()].sort((a, b) => b[1] - a[1]).slice(0, 9);
    const docsIn = Math.max(BATCH, N / 5);
    console.log(`-- up to ${i + BATCH}: ${((performance.now() - fifth.wall) / 1000).toFixed(1)} s wall, ${((cpuMs() - fifth.cpu) / 1000).toFixed(1)} s CPU; SQL CPU µs per document:`);
    for (const [k, v] of top) console.log(`   ${((v * 1000) / docsIn).toFixed(0).padStart(7)}  ${k}`);
    sqlCpu.clear();
    fifth = { wall: performance.now(), cpu: cpuMs() };
  }
}
const wall = (performance.now() - t0) / 1000;
const cpu = (cpuMs() - c0) / 1000 - Object.values(jsCpu).reduce((a, b) => a + b, 0) / 1000;
console.log(`total ${wall.toFixed(1)} s wall, ${cpu.toFixed(1)} s CPU of the store: ${(N / wall).toFixed(0)} docs/s wall, ${(N / cpu).toFixed(0)} docs/s CPU; load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
const first = batches[0];
const last = batches[batches.length - 1];
if (first && last) console.log(`first batch ${first.cpu.toFixed(0)} ms CPU, last ${last.cpu.toFixed(0)} ms CPU (${(last.cpu / first.cpu).toFixed(2)}×)`);
console.log('JS stages of the push path, CPU µs per document:');
for (const [k, v] of Object.entries(jsCpu)) console.log(`   ${((v * 1000) / N).toFixed(0).padStart(7)}  ${k}`);

// Searches: vector-only and hybrid, the shared sets' queries (200 each, after 10 to warm up).
for (const mode of ['vector', 'hybrid'] as const) {
  const queries = await latencyQueries(200);
  for (const q of queries.slice(0, 10)) await searchPassages(deps, { tenantId: 'default', query: q, limit: 10, mode });
  const wall: number[] = [];
  const c = cpuMs();
  for (const q of queries) {
    const s = performance.now();
    await searchPassages(deps, { tenantId: 'default', query: q, limit: 10, mode });
    wall.push(performance.now() - s);
  }
  wall.sort((a, b) => a - b);
  const pct = (p: number) => wall[Math.min(wall.length - 1, Math.floor(p * wall.length))]?.toFixed(1);
  console.log(`${mode}: ${((cpuMs() - c) / queries.length).toFixed(2)} ms CPU per query; wall p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms; load ${os.loadavg()[0]?.toFixed(1)}`);
}

// Bytes: each table with its TOAST and its indexes.
const sizes = await raw.query<{ name: string; heap: number; toast: number; idx: number }>(
  `SELECT c.relname AS name, pg_relation_size(c.oid)::bigint AS heap,
          coalesce(pg_relation_size(nullif(c.reltoastrelid, 0)), 0)::bigint AS toast, pg_indexes_size(c.oid)::bigint AS idx
   FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema') ORDER BY pg_total_relation_size(c.oid) DESC LIMIT 5`,
);
const kb = (b: number) => ((Number(b) / N / 1024).toFixed(2)).padStart(6);
console.log('KB per document: heap, TOAST, indexes');
for (const r of sizes.rows) console.log(`   ${kb(r.heap)} ${kb(r.toast)} ${kb(r.idx)}  ${r.name}`);
const idx = await raw.query<{ name: string; bytes: number }>(
  `SELECT c.relname AS name, pg_relation_size(c.oid)::bigint AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE c.relkind = 'i' AND n.nspname = 'public' ORDER BY 2 DESC LIMIT 8`,
);
console.log('largest indexes, KB per document:');
for (const r of idx.rows) console.log(`   ${kb(r.bytes)}  ${r.name}`);
await raw.close();
// Cold open: the folder opened again, the first vector query (usearch: read and verify the graph file, reconcile).
{
  const again = await openPglite(dir);
  const d2 = { ...deps, db: again };
  const [q] = await latencyQueries(1);
  const c = cpuMs();
  const s = performance.now();
  await searchPassages(d2, { tenantId: 'default', query: q ?? 'query', limit: 10, mode: 'vector' });
  const first = { cpu: cpuMs() - c, wall: performance.now() - s };
  const c2 = cpuMs();
  await searchPassages(d2, { tenantId: 'default', query: q ?? 'query', limit: 10, mode: 'vector' });
  console.log(`reopened: first vector query ${first.cpu.toFixed(0)} ms CPU (${first.wall.toFixed(0)} ms wall), the next ${(cpuMs() - c2).toFixed(1)} ms CPU`);
  await again.close();
}
await registry.close();
console.log(
  `folder ${(diskBytes(dir) / 2 ** 20).toFixed(0)} MB (pg_wal ${(diskBytes(path.join(dir, 'pg_wal')) / 2 ** 20).toFixed(0)} MB, vectors ${(diskBytes(path.join(dir, 'vectors')) / 2 ** 20).toFixed(1)} MB), ${(diskBytes(dir) / N / 1024).toFixed(1)} KB per document`,
);
fs.rmSync(dir, { recursive: true, force: true });
