// `npm run bench -- search`: ingest throughput of ~1 KB documents with the fast built-in model, and
// retrieval latency (lexical, vector, hybrid; query embedding excluded) on an embedded corpus.
// Ingest text is real (sentences of the shared datasets recombined into ~1 KB documents); retrieval
// runs on the shared cached corpus of scripts/bench-corpus.ts with BENCH_SEARCH_CHUNKS (default 20000).
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { openBenchCorpus } from '../scripts/bench-corpus.ts';
import { loadConfig } from '../src/config/index.ts';
import { loadBeir } from '../src/documents/eval/beir.ts';
import { percentile } from '../src/documents/eval/metrics.ts';
import { searchPassages, upsertDocuments } from '../src/documents/index.ts';
import { defaultDepths, retrieveCandidates } from '../src/documents/search/index.ts';
import { createEmbeddingRegistry } from '../src/embeddings/index.ts';
import { type DatabaseExecutor, migrate, openPglite } from '../src/platform/db/index.ts';
import { createLogger } from '../src/platform/log.ts';
import { openTestPostgres } from '../test/support/db.ts';
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

async function freshPglite() {
  const db = await openPglite('memory://');
  await migrate(db, log);
  return { db, drop: () => db.close() };
}

/** A fresh database on the machine's PostgreSQL (production mode, no pgvector), or null if none answers. */
async function freshPostgres() {
  try {
    return await openTestPostgres();
  } catch (err) {
    log.warn({ err }, 'no PostgreSQL for the ingest benchmark');
    return null;
  }
}

interface IngestRun {
  readonly label: string;
  readonly wallS: number;
  readonly cpuS: number;
  readonly chunks: number;
}

/**
 * Ingest throughput through upsertDocuments in batches of 500: `embed` = the default path (GloVe
 * vectors written with the chunks in one transaction), or `none` (store only: chunk, full-text,
 * BM25 statistics) to show what the vectors cost. CPU is this process's (PGlite runs in it).
 */
async function ingestRun(label: string, open: () => Promise<{ db: DatabaseExecutor; drop(): Promise<void> } | null>, embed: boolean): Promise<IngestRun | null> {
  const fresh = await open();
  if (!fresh) return null;
  const { db } = fresh;
  await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ('api-bench', 'default', 'api', 'bench')`);
  const deps = { db, log, embeddings: registry };
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < ingestDocs.length; i += 500) {
    const r = await upsertDocuments(deps, { tenantId: 'default', connectorId: 'api-bench', documents: ingestDocs.slice(i, i + 500), ...(embed ? {} : { embed: 'none' as const }) });
    if (embed && r.embed_job_id !== null) throw new Error('expected the vectors to be written with the chunks');
  }
  const wallS = (performance.now() - started) / 1000;
  const c = process.cpuUsage(cpu0);
  const n = await db.query<{ n: number; v: number }>('SELECT count(*)::int AS n, count(embedding_model)::int AS v FROM chunks');
  if (embed && n.rows[0]?.n !== n.rows[0]?.v) throw new Error('chunks without vectors');
  await fresh.drop();
  return { label, wallS, cpuS: (c.user + c.system) / 1e6, chunks: Number(n.rows[0]?.n ?? 0) };
}

// 1. Ingest throughput, embedded (PGlite) and production mode (PostgreSQL), with and without vectors.
const ingestDocs = Array.from({ length: INGEST_DOCS }, (_, i) => makeDoc(i));
const ingestRuns: IngestRun[] = [];
for (const [label, open, embed] of [
  ['embedded (PGlite in memory): store + GloVe vectors, one transaction per batch', freshPglite, true],
  ['embedded (PGlite in memory): store only (`embed: none`)', freshPglite, false],
  ['PostgreSQL 15 (production mode, vectors as real[]): store + GloVe vectors', freshPostgres, true],
  ['PostgreSQL 15: store only', freshPostgres, false],
] as const) {
  const r = await ingestRun(label, open, embed);
  if (r) ingestRuns.push(r);
}
let cpu = process.cpuUsage();
const cpuS = () => {
  const c = process.cpuUsage(cpu);
  cpu = process.cpuUsage();
  return (c.user + c.system) / 1e6;
};

// 2. Retrieval latency at SIZE chunks: the shared synthetic corpus (scripts/bench-corpus.ts, built
// once through the real ingestion path and cached; the federation benchmark uses the same one).
const corpus = await openBenchCorpus({ chunks: SIZE, sources: 5, log });
const db = corpus.db;
const deps = { ...corpus.deps, embeddings: registry };
const chunks = corpus.chunkCount;
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
// How good the impact-list lexical path is: proven-exact rate over all queries, and agreement with
// the exhaustive reference (every matching chunk scored) on the first EXACT_CHECK queries.
const EXACT_CHECK = Number(process.env.BENCH_SEARCH_EXACT_CHECK ?? 20);
let proven = 0;
let same10 = 0;
let overlap10 = 0;
let exhaustiveCpu = 0;
for (const [i, q] of qs.entries()) {
  const fast = await retrieveCandidates(deps, { tenantId: 'default', query: q, limit: 10, mode: 'lexical' });
  if (fast.lexicalExact) proven++;
  if (i >= EXACT_CHECK) continue;
  cpuS();
  const ref = await retrieveCandidates(deps, { tenantId: 'default', query: q, limit: 10, mode: 'lexical', lexicalPath: 'exhaustive' });
  exhaustiveCpu += cpuS();
  const top = (r: typeof fast) => r.candidates.slice().sort((a, b) => (b.lexical ?? 0) - (a.lexical ?? 0) || a.id.localeCompare(b.id)).slice(0, 10);
  const a = top(fast).map((c) => (c.lexical ?? 0).toFixed(9));
  const b = top(ref).map((c) => (c.lexical ?? 0).toFixed(9));
  if (a.join() === b.join()) same10++;
  const ids = new Set(top(ref).map((c) => c.id));
  overlap10 += top(fast).filter((c) => ids.has(c.id)).length / Math.max(1, ids.size);
}
const checked = Math.min(EXACT_CHECK, qs.length);
const te = performance.now();
for (let i = 0; i < 200; i++) await provider.embed([qs[i % qs.length] ?? 'q']);
const qEmbedMs = (performance.now() - te) / 200;
await corpus.close();
await registry.close();

const row = (m: string) =>
  `| ${m} | ${percentile(lat[m] ?? [], 50).toFixed(1)} | ${percentile(lat[m] ?? [], 99).toFixed(1)} | ${(cpuPerQuery[m] ?? 0).toFixed(1)} |`;
const md = `## Search (documents: ingest and retrieval)

${machineLine()}
Command: \`BENCH_SEARCH_CHUNKS=${SIZE} npm run bench -- search\`. Load average at the end: ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} (the machine is shared; wall times include waiting for CPU).

**Ingest** of ${INGEST_DOCS} documents of ~1 KB (real sentences) through \`upsertDocuments\` in batches of 500, model \`${model}\` loaded beforehand (CPU = this process; PostgreSQL's own CPU is not in it):

| backend and path | chunks | wall s | docs/s (wall) | CPU s | docs per CPU-second |
|---|---|---|---|---|---|
${ingestRuns.map((r) => `| ${r.label} | ${r.chunks} | ${r.wallS.toFixed(2)} | ${(INGEST_DOCS / r.wallS).toFixed(0)} | ${r.cpuS.toFixed(2)} | ${(INGEST_DOCS / r.cpuS).toFixed(0)} |`).join('\n')}

**Retrieval** over ${chunks} chunks: the shared synthetic corpus of \`scripts/bench-corpus.ts\` (${SIZE} one-chunk documents across 5 sources, GloVe vocabulary drawn with Zipf's law, GloVe vectors with their HNSW index; ${corpus.buildNote}), embedded PGlite on disk, top 10 at the default candidate depths (lexical ${defaultDepths(10).lexical}; vector ${defaultDepths(10).lexical} alone, ${defaultDepths(10).vector} in hybrid), ${qs.length} dataset queries (cranfield, coffee), query vector precomputed (query embedding alone: ${qEmbedMs.toFixed(2)} ms):

| mode | p50 ms (wall) | p99 ms (wall) | mean CPU ms/query |
|---|---|---|---|
${row('lexical')}
${row('vector')}
${row('hybrid')}

Lexical top-k from the impact lists (docs/retrieval.md): ${proven}/${qs.length} queries proven exact by the bound; on the first ${checked}
queries the top 10 has the same BM25 scores as the exhaustive reference in ${same10}/${checked} (same chunks: ${((100 * overlap10) / Math.max(1, checked)).toFixed(1)}% on average);
the exhaustive reference costs ${((exhaustiveCpu * 1000) / Math.max(1, checked)).toFixed(0)} ms CPU per query here.
`;
await writeBenchSection('search', md);
process.stdout.write(md);
