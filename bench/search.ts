// `npm run bench -- search`: ingest throughput of ~1 KB documents with the fast built-in model, and
// retrieval latency (lexical, vector, hybrid; query embedding excluded) on an embedded corpus.
// Corpus size: BENCH_SEARCH_CHUNKS (default 20000). Text is real (sentences of the shared datasets),
// recombined deterministically into ~1 KB documents.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config/index.ts';
import { embedPendingChunks, searchPassages, upsertDocuments } from '../src/documents/index.ts';
import { HNSW_MIN_VECTORS } from '../src/documents/embed.ts';
import { loadBeir } from '../src/documents/eval/beir.ts';
import { percentile } from '../src/documents/eval/metrics.ts';
import { createEmbeddingRegistry } from '../src/embeddings/index.ts';
import { migrate, openPglite } from '../src/platform/db/index.ts';
import { createLogger } from '../src/platform/log.ts';
import { machineLine, writeBenchSection } from './report.ts';

const DATA = new URL('../../shared/data/', import.meta.url).pathname;
const SIZE = Number(process.env.BENCH_SEARCH_CHUNKS ?? 20_000);
const INGEST_DOCS = Number(process.env.BENCH_SEARCH_INGEST_DOCS ?? 2000);
const QUERIES = 200;

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const log = createLogger({ level: 'warn' });
const config = loadConfig({ ...process.env, LOG_LEVEL: 'warn' });
const registry = createEmbeddingRegistry(config, log);
const model = 'builtin/glove-100d';
const provider = registry.get(model);
if (!provider) throw new Error(`${model} is not available`);
await provider.embed(['warm up']);

const sentences: string[] = [];
const queries: string[] = [];
for (const d of ['cranfield', 'coffee-stackexchange']) {
  const b = await loadBeir(`${DATA}${d}`);
  for (const doc of b.docs) for (const s of doc.text.split(/(?<=[.!?])\s+/)) if (s.length > 30) sentences.push(s);
  queries.push(...b.queries.map((q) => q.text));
}
const rand = rng(42);
const makeDoc = (i: number) => {
  let text = '';
  while (text.length < 900) text += `${sentences[Math.floor(rand() * sentences.length)]} `;
  return { external_id: `d${i}`, title: `Document ${i}`, content: text.trim().slice(0, 990) };
};

async function freshDb() {
  const db = await openPglite('memory://');
  await migrate(db, log);
  await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ('api-bench', 'default', 'api', 'bench')`);
  return db;
}

// 1. Ingest throughput: store (chunk + full-text + BM25 stats) and embed, measured apart.
const ingestDb = await freshDb();
const deps1 = { db: ingestDb, log, embeddings: registry };
const ingestDocs = Array.from({ length: INGEST_DOCS }, (_, i) => makeDoc(i));
let t = performance.now();
let cpu = process.cpuUsage();
const cpuS = () => {
  const c = process.cpuUsage(cpu);
  cpu = process.cpuUsage();
  return (c.user + c.system) / 1e6;
};
for (let i = 0; i < ingestDocs.length; i += 500) {
  await upsertDocuments(deps1, { tenantId: 'default', connectorId: 'api-bench', documents: ingestDocs.slice(i, i + 500), embed: 'none' });
}
const storeS = (performance.now() - t) / 1000;
const storeCpu = cpuS();
t = performance.now();
const emb = await embedPendingChunks(deps1, { tenantId: 'default', model, batchSize: 256 });
const embedS = (performance.now() - t) / 1000;
const embedCpu = cpuS();
await ingestDb.close();

// 2. Retrieval latency at SIZE chunks.
const db = await freshDb();
const deps = { db, log, embeddings: registry, hnswMinVectors: Number.POSITIVE_INFINITY };
t = performance.now();
let n = 0;
while (n < SIZE) {
  const batch = Array.from({ length: Math.min(1000, SIZE - n) }, (_, i) => makeDoc(n + i));
  await upsertDocuments(deps, { tenantId: 'default', connectorId: 'api-bench', documents: batch, embed: 'none' });
  n += batch.length;
  await embedPendingChunks(deps, { tenantId: 'default', model, batchSize: 500 });
  process.stderr.write(`\rbuilt ${n}/${SIZE} documents`);
}
process.stderr.write('\n');
const buildS = (performance.now() - t) / 1000;
const chunks = Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks')).rows[0]?.n);
t = performance.now();
const { ensureVectorIndex } = await import('../src/documents/vectors.ts');
await ensureVectorIndex(db, model, provider.dimensions);
const hnswS = (performance.now() - t) / 1000;
await db.exec('ANALYZE');

const qs = queries.slice(0, QUERIES);
const qvecs = await provider.embed(qs);
const lat: Record<string, number[]> = { lexical: [], vector: [], hybrid: [] };
const cpuPerQuery: Record<string, number> = {};
for (const mode of ['lexical', 'vector', 'hybrid'] as const) {
  cpuS();
  for (const [i, q] of qs.entries()) {
    const s = performance.now();
    await searchPassages(deps, { tenantId: 'default', query: q, queryVector: qvecs[i], queryModel: model, limit: 10, mode });
    lat[mode]?.push(performance.now() - s);
  }
  cpuPerQuery[mode] = (cpuS() * 1000) / qs.length;
}
t = performance.now();
for (let i = 0; i < 200; i++) await provider.embed([qs[i % qs.length] ?? 'q']);
const qEmbedMs = (performance.now() - t) / 200;
await db.close();
await registry.close();

const row = (m: string) =>
  `| ${m} | ${percentile(lat[m] ?? [], 50).toFixed(1)} | ${percentile(lat[m] ?? [], 99).toFixed(1)} | ${(cpuPerQuery[m] ?? 0).toFixed(1)} |`;
const md = `## Search (documents: ingest and retrieval)

${machineLine()}
Command: \`BENCH_SEARCH_CHUNKS=${SIZE} npm run bench -- search\`. Load average at the end: ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} (the machine is shared; wall times include waiting for CPU).

**Ingest** of ${INGEST_DOCS} documents of ~1 KB (real sentences), PGlite in memory, model \`${model}\` loaded beforehand:

| step | wall s | docs/s (wall) | CPU s | docs/s per CPU-second |
|---|---|---|---|---|
| store (chunk, full-text, BM25 statistics) | ${storeS.toFixed(2)} | ${(INGEST_DOCS / storeS).toFixed(0)} | ${storeCpu.toFixed(2)} | ${(INGEST_DOCS / storeCpu).toFixed(0)} |
| embed ${emb.embedded} chunks and write vectors | ${embedS.toFixed(2)} | ${(INGEST_DOCS / embedS).toFixed(0)} | ${embedCpu.toFixed(2)} | ${(INGEST_DOCS / embedCpu).toFixed(0)} |
| total | ${(storeS + embedS).toFixed(2)} | ${(INGEST_DOCS / (storeS + embedS)).toFixed(0)} | ${(storeCpu + embedCpu).toFixed(2)} | ${(INGEST_DOCS / (storeCpu + embedCpu)).toFixed(0)} |

**Retrieval** over ${chunks} chunks (${SIZE} documents; built in ${buildS.toFixed(0)} s, HNSW index for the model built afterwards in ${hnswS.toFixed(0)} s; default threshold ${HNSW_MIN_VECTORS} vectors), top 10, ${qs.length} dataset queries, query vector precomputed (query embedding alone: ${qEmbedMs.toFixed(2)} ms):

| mode | p50 ms (wall) | p99 ms (wall) | mean CPU ms/query |
|---|---|---|---|
${row('lexical')}
${row('vector')}
${row('hybrid')}
`;
await writeBenchSection('search', md);
process.stdout.write(md);
