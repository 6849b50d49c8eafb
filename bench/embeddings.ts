// Embedding benchmarks: model load time, throughput on ~1 KB documents (docs/s), the worker-thread
// speed-up of the transformer, and dense-only retrieval quality (nDCG@10, cosine over all documents)
// on the shared BEIR-layout sets, to choose the default model. `npm run bench -- embeddings`
// (`EMB_BENCH_QUICK=1` skips the slow transformer quality runs, `EMB_BENCH_FULL=1` runs them on every set).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config/index.ts';
import { averageWordVectors, indexWordVectors } from '../src/embeddings/glove/average.ts';
import { ensureGloveCache } from '../src/embeddings/glove/cache.ts';
import { decodeWordVectors } from '../src/embeddings/glove/format.ts';
import { createDistilledUseProvider, createGloveProvider, createUseProvider, type EmbeddingProvider } from '../src/embeddings/index.ts';
import { machineLine, writeBenchSection } from './report.ts';

const DATA = path.resolve(import.meta.dirname, '../../shared/data');
const quick = Boolean(process.env.EMB_BENCH_QUICK);
const cacheDir = loadConfig({}).embeddings.cacheDir;
const cores = os.availableParallelism();
const lines: string[] = [];
const log = (s: string) => {
  console.error(s);
  lines.push(s);
};

interface Dataset {
  readonly name: string;
  readonly docs: { id: string; text: string }[];
  readonly queries: { id: string; text: string }[];
  readonly qrels: Map<string, Map<string, number>>;
}

function readJsonl(file: string): Record<string, unknown>[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

function loadDataset(name: string): Dataset | undefined {
  const dir = path.join(DATA, name);
  if (!fs.existsSync(dir)) return undefined;
  const docs = readJsonl(path.join(dir, 'corpus.jsonl')).map((d) => ({ id: String(d._id), text: `${String(d.title ?? '')}\n${String(d.text ?? '')}`.trim() }));
  const queries = readJsonl(path.join(dir, 'queries.jsonl')).map((q) => ({ id: String(q._id), text: String(q.text) }));
  const qrels = new Map<string, Map<string, number>>();
  for (const line of fs.readFileSync(path.join(dir, 'qrels.tsv'), 'utf8').split('\n').slice(1)) {
    const [q, d, s] = line.split('\t');
    if (!q || !d || !s) continue;
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)!.set(d, Number(s));
  }
  return { name, docs, queries: queries.filter((q) => qrels.has(q.id)), qrels };
}

/** nDCG@10 with linear gains (as pytrec_eval / BEIR), averaged over judged queries. */
function ndcgAt10(ranked: string[], rels: Map<string, number>): number {
  let dcg = 0;
  ranked.slice(0, 10).forEach((id, i) => {
    dcg += (rels.get(id) ?? 0) / Math.log2(i + 2);
  });
  const ideal = [...rels.values()].sort((a, b) => b - a).slice(0, 10);
  const idcg = ideal.reduce((s, r, i) => s + r / Math.log2(i + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}

async function denseNdcg(ds: Dataset, embed: (texts: string[]) => Promise<Float32Array[]>): Promise<number> {
  const docVecs = await embed(ds.docs.map((d) => d.text));
  const qVecs = await embed(ds.queries.map((q) => q.text));
  let total = 0;
  ds.queries.forEach((q, qi) => {
    const qv = qVecs[qi]!;
    const scored = docVecs.map((dv, di) => {
      let dot = 0;
      for (let k = 0; k < qv.length; k++) dot += qv[k]! * dv[k]!;
      return { id: ds.docs[di]!.id, dot };
    });
    scored.sort((a, b) => b.dot - a.dot);
    total += ndcgAt10(scored.map((s) => s.id), ds.qrels.get(q.id)!);
  });
  return total / ds.queries.length;
}

/** ~1 KB documents of real prose (the shared corpora), or generated text when they are absent. */
function kilobyteDocs(n: number, datasets: Dataset[]): string[] {
  const pool = datasets.flatMap((d) => d.docs.map((x) => x.text));
  const source = pool.length > 0 ? pool : ['the quick brown fox jumps over the lazy dog while engineers measure throughput'];
  const out: string[] = [];
  let i = 0;
  while (out.length < n) {
    let text = '';
    while (text.length < 1000) text += `${source[i++ % source.length]} `;
    out.push(`${out.length} ${text.slice(0, 1000)}`);
  }
  return out;
}

/** Docs per wall-clock second, and per CPU-second of the whole process (all threads): the latter
 * hardly depends on how busy the shared machine is, so it is the per-core number to trust. */
async function throughput(p: EmbeddingProvider, docs: string[], batch: number): Promise<{ wall: number; cpu: number }> {
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  const parts: Promise<Float32Array[]>[] = [];
  for (let i = 0; i < docs.length; i += batch) parts.push(p.embed(docs.slice(i, i + batch)));
  await Promise.all(parts);
  const cpu = process.cpuUsage(cpu0);
  return { wall: docs.length / ((performance.now() - started) / 1000), cpu: docs.length / ((cpu.user + cpu.system) / 1e6) };
}

const fmt = (x: number) => (x >= 100 ? Math.round(x).toLocaleString('en') : x.toFixed(1));

const datasets = ['cranfield', 'coffee-stackexchange'].map(loadDataset).filter((d): d is Dataset => d !== undefined);

// GloVe: cache conversion is a one-off at install; measured here is loading the binary cache.
await ensureGloveCache(cacheDir);
const glove = createGloveProvider({ cacheDir });
const gloveLoad = await glove.load();
const gloveDocs = kilobyteDocs(5000, datasets);
await glove.embed(gloveDocs.slice(0, 200));
const gloveRate = await throughput(glove, gloveDocs, 256);

// The static distillation of USE (committed artefact + USE's tokenizer).
const distilled = createDistilledUseProvider({ root: path.resolve(import.meta.dirname, '..') });
const distilledLoad = await distilled.load();
const distilledRate = await throughput(distilled, gloveDocs.slice(0, 2000), 256);

// USE: first call = start a worker thread + load the tfjs graph (28 MB) + one tiny batch.
const use1 = createUseProvider({ workers: 1 });
let t0 = performance.now();
await use1.embed(['warm up']);
const useLoad = performance.now() - t0;
const useDocs = kilobyteDocs(48, datasets);
const use1Rate = await throughput(use1, useDocs.slice(0, 24), 8);
await use1.close!();
const useN = createUseProvider({ workers: cores });
await Promise.all(Array.from({ length: cores }, () => useN.embed(['warm up all workers', 'and again', 'x', 'y', 'z'])));
const useNRate = await throughput(useN, useDocs, 8);
const load = os.loadavg()[0]!.toFixed(1);

log(`| model | load | ~1 KB docs/s (wall) | docs per CPU-second | notes |`);
log(`|---|---|---|---|---|`);
log(`| builtin/glove-100d | ${Math.round(gloveLoad)} ms (binary Int8 cache, ${(fs.statSync(path.join(cacheDir, 'glove-100d.i8.bin')).size / 2 ** 20).toFixed(0)} MiB) | ${fmt(gloveRate.wall)} | ${fmt(gloveRate.cpu)} | main thread |`);
log(`| builtin/use-distilled-512d | ${Math.round(distilledLoad)} ms (4 MiB artefact + vocabulary) | ${fmt(distilledRate.wall)} | ${fmt(distilledRate.cpu)} | main thread |`);
log(`| builtin/use-lite-512d, 1 worker | ${Math.round(useLoad)} ms (thread start + model) | ${fmt(use1Rate.wall)} | ${fmt(use1Rate.cpu)} | tfjs WASM SIMD, batches of 8 |`);
log(`| builtin/use-lite-512d, ${cores} workers | — | ${fmt(useNRate.wall)} | ${fmt(useNRate.cpu)} | wall speed-up ×${(useNRate.wall / use1Rate.wall).toFixed(2)} over 1 worker; on idle cores ≈ ${cores} × the per-CPU-second rate |`);
log('');
log(`Load average during the run: ${load} on ${cores} cores (the machine is shared; throughput scales with free cores).`);

// Quality: dense-only retrieval (no BM25, no fusion); the hybrid eval is in the documents section.
const glovePlain = indexWordVectors(decodeWordVectors(fs.readFileSync(await ensureGloveCache(cacheDir))), 'mean');
const rows: string[] = [];
for (const ds of datasets) {
  const cells: string[] = [];
  cells.push((await denseNdcg(ds, (t) => glove.embed(t))).toFixed(3));
  cells.push((await denseNdcg(ds, async (t) => t.map((x) => averageWordVectors(glovePlain, x)))).toFixed(3));
  cells.push((await denseNdcg(ds, (t) => distilled.embed(t))).toFixed(3));
  // The transformer needs ~1 CPU-second per 1 KB document: by default it is scored on the small set only.
  if (!quick && (ds.docs.length <= 500 || process.env.EMB_BENCH_FULL)) {
    t0 = performance.now();
    cells.push((await denseNdcg(ds, (t) => useN.embed(t))).toFixed(3));
    console.error(`USE on ${ds.name}: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  } else cells.push(quick ? '(skipped)' : '(`EMB_BENCH_FULL=1`)');
  rows.push(`| ${ds.name} (${ds.docs.length} docs, ${ds.queries.length} queries) | ${cells.join(' | ')} |`);
}
await useN.close!();
if (rows.length > 0) {
  log('');
  log('Dense-only nDCG@10 (exact cosine over all documents, title + text):');
  log('');
  log('| dataset | GloVe, SIF-weighted, no stop words (shipped) | GloVe, plain mean, no stop words | USE distilled (static) | USE lite |');
  log('|---|---|---|---|---|');
  for (const r of rows) log(r);
}

await writeBenchSection(
  'embeddings',
  `## Embeddings\n\n${machineLine()}\n\nCommand: \`npm run bench -- embeddings\`\n\n${lines.join('\n')}\n`,
);
