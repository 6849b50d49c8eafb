// `npm run bench -- peers [--docs N]` (or BENCH_PEERS_DOCS=N; default 100,000): the same corpus of ~1 KB
// documents with the same GloVe vectors in Atrium (embedded: PGlite in a temp data folder; production:
// PostgreSQL database `bench_peers` on 127.0.0.1:5432, dropped and re-created), LanceDB 0.31 and Orama 3,
// each in its own process. Measures ingest docs/s (wall and CPU; first and last batch of 1,000), disk,
// peak RSS, cold open (process start → /v1/health and first hybrid answer), lexical / vector / hybrid
// p50 / p99 sequential and with 4 clients, and nDCG@10 on the shared sets; writes the "peers" section of
// docs/benchmarks.md with ratios Atrium / peer. BENCH_PEERS_ENGINES=atrium,atrium-pg,lancedb,orama narrows
// it; BENCH_PEERS_QUERIES (default 200; Orama runs a tenth of them: ~1-8 s each at 100k). Results are saved per
// engine in .cache/peers/results-N.json (a run replaces the engines it runs and keeps the others' saved results);
// `--report-only` writes the section again from them; BENCH_PEERS_KEEP=1 keeps Atrium's data folder.
// The corpus is described in bench/peers/corpus.ts.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { loadConfig } from '../src/config/index.ts';
import { runEval } from '../src/documents/eval/run.ts';
import { createEmbeddingRegistry } from '../src/embeddings/index.ts';
import { createLogger } from '../src/platform/log.ts';
import { backendCpu, createConnector, push, search, startServer } from './peers/atrium.ts';
import { CACHE, DATA, diskBytes, EVAL_SETS, embedder, latencyQueries, loadCorpus, loadEvalSet, vectorOf } from './peers/corpus.ts';
import { openPeer, type PeerName } from './peers/engines.ts';
import { cpuSeconds, type EngineResult, ingestClock, type Latency, latency, loadNow, type Mode, MODES, ndcg, peakRss } from './peers/measure.ts';
import { machineLine, writeBenchSection } from './report.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const DOCS = Number(arg('docs') ?? process.env.BENCH_PEERS_DOCS ?? 100_000);
const QUERIES = Number(process.env.BENCH_PEERS_QUERIES ?? 200);
const BATCH = 1000;
const PG_ADMIN = process.env.ATRIUM_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PG_DB = 'bench_peers';
const QFILE = path.join(CACHE, `queries-${QUERIES}.json`);
const EVAL_FILE = path.join(CACHE, 'eval-sets.json');

type Serialized = { texts: string[]; vectors: number[][] };

/** Query texts and vectors, and the shared sets with vectors, written once for the peer processes. */
async function prepareQueries(): Promise<void> {
  if (fs.existsSync(QFILE) && fs.existsSync(EVAL_FILE)) return;
  const e = await embedder();
  const texts = await latencyQueries(QUERIES);
  const vectors = (await e.embed(texts)).map((v) => Array.from(v));
  fs.writeFileSync(QFILE, JSON.stringify({ texts, vectors }));
  const sets = [];
  for (const s of EVAL_SETS) {
    const set = await loadEvalSet(s, e);
    sets.push({ ...set, qrels: [...set.qrels].map(([q, m]) => [q, [...m]]), docVectors: set.docVectors.map((v) => Array.from(v)), queryVectors: set.queryVectors.map((v) => Array.from(v)) });
  }
  fs.writeFileSync(EVAL_FILE, JSON.stringify(sets));
  await e.close();
}

function readQueries(): { texts: string[]; vectors: Float32Array[] } {
  const q = JSON.parse(fs.readFileSync(QFILE, 'utf8')) as Serialized;
  return { texts: q.texts, vectors: q.vectors.map((v) => Float32Array.from(v)) };
}

function readEvalSets() {
  type Raw = { name: string; docs: { id: string; title: string; text: string }[]; queries: { id: string; text: string }[]; qrels: [string, [string, number][]][]; docVectors: number[][]; queryVectors: number[][] };
  return (JSON.parse(fs.readFileSync(EVAL_FILE, 'utf8')) as Raw[]).map((s) => ({
    ...s,
    qrels: new Map(s.qrels.map(([q, m]) => [q, new Map(m)])),
    docVectors: s.docVectors.map((v) => Float32Array.from(v)),
    queryVectors: s.queryVectors.map((v) => Float32Array.from(v)),
  }));
}

/** Child role: build one peer's index in `dir`, measure it, print the result as the last stdout line. */
async function peerBuild(name: PeerName, dir: string): Promise<void> {
  const { docs, vectors } = await loadCorpus(DOCS);
  const peer = await openPeer(name, dir, true);
  const clock = ingestClock(() => cpuSeconds());
  for (let i = 0; i < docs.length; i += BATCH) {
    const rows = docs.slice(i, i + BATCH).map((d, j) => ({ ...d, vector: vectorOf(vectors, i + j) }));
    await clock.batch(rows.length, () => peer.add(rows));
  }
  const ingest = await clock.finish(() => peer.finish(true));
  const q = readQueries();
  // Orama answers in ~1-8 s per query at 100k (a 50-query run per mode took over 35 minutes here on 2026-11-29).
  const count = name === 'orama' ? Math.max(10, Math.floor(q.texts.length / 10)) : q.texts.length;
  const lat = {} as Record<Mode, Latency>;
  for (const m of MODES) lat[m] = await latency(count, (i) => peer.search(m, q.texts[i] ?? '', q.vectors[i] ?? new Float32Array(0), 10));
  const peak = peakRss();
  await peer.close();
  const notes = name === 'orama' ? [`${count} queries per mode (Orama takes ~1-8 s per query at 100k)`] : [];
  // Quality on the shared sets: a fresh index of each in a temp folder, exact vector search (small sets).
  const scores: Record<string, Partial<Record<Mode, number>>> = {};
  for (const set of readEvalSets()) {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), `peers-eval-${name}-`));
    const p = await openPeer(name, d, true);
    await p.add(set.docs.map((doc, i) => ({ id: doc.id, title: doc.title, content: doc.text, vector: set.docVectors[i] ?? new Float32Array(0) })));
    await p.finish(false);
    scores[set.name] = {};
    for (const m of MODES) (scores[set.name] as Record<Mode, number>)[m] = await ndcg(set, (text, v) => p.search(m, text, v, 10));
    await p.close();
    fs.rmSync(d, { recursive: true, force: true });
  }
  const result: EngineResult = { engine: name, ingest, diskBytes: diskBytes(dir), peakRssBytes: peak, latency: lat, ndcg: scores, notes, load: loadNow() };
  process.stdout.write(`\n${JSON.stringify(result)}\n`);
}

/** Child role: open an existing index and answer one hybrid query (the parent times it from spawn). */
async function peerOpen(name: PeerName, dir: string): Promise<void> {
  const q = readQueries();
  const peer = await openPeer(name, dir, false);
  const ids = await peer.search('hybrid', q.texts[0] ?? 'wing', q.vectors[0] ?? new Float32Array(0), 10);
  if (ids.length === 0) throw new Error('no hits');
  process.stdout.write('answered\n');
}

function runChild(args: string[]): Promise<{ out: string; ms: number }> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      // LanceDB 0.31's full-text index build never finishes on this corpus at 100k with its default of one CPU
      // thread per core on a 2-core machine (no CPU used after ~4 s; seen 2026-11-29); with 4 threads it takes ~2 s.
      env: { ...process.env, LANCEDB_LOG: 'error', RUST_LOG: 'error', LANCE_CPU_THREADS: process.env.LANCE_CPU_THREADS ?? String(Math.max(4, os.cpus().length)) },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.once('exit', (code) => (code === 0 ? resolve({ out, ms: performance.now() - t }) : reject(new Error(`${args.join(' ')} exited ${code}`))));
  });
}

async function measurePeer(name: PeerName): Promise<EngineResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `peers-${name}-`));
  try {
    const built = await runChild(['--role', 'build', '--engine', name, '--dir', dir, '--docs', String(DOCS)]);
    const result = JSON.parse(built.out.trim().split('\n').pop() ?? '{}') as EngineResult;
    const open = await runChild(['--role', 'open', '--engine', name, '--dir', dir, '--docs', String(DOCS)]);
    return { ...result, coldOpen: { firstHybridMs: open.ms } };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Atrium behind its HTTP API: embedded (temp data folder) or production (PostgreSQL database bench_peers). */
async function measureAtrium(production: boolean): Promise<EngineResult> {
  const { docs } = await loadCorpus(DOCS);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'peers-atrium-'));
  const pgUrl = new URL(PG_ADMIN);
  pgUrl.pathname = `/${PG_DB}`;
  const env: Record<string, string> = production ? { DATABASE_URL: pgUrl.toString(), ATRIUM_DATA_DIR: dataDir } : { ATRIUM_DATA_DIR: dataDir };
  if (production) {
    const admin = new pg.Client({ connectionString: PG_ADMIN });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${PG_DB} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${PG_DB}`);
    await admin.end();
  }
  try {
    let server = await startServer(env);
    const connector = await createConnector(server.url);
    const pid = server.pid;
    const clock = ingestClock(() => cpuSeconds(pid));
    for (let i = 0; i < docs.length; i += BATCH) {
      const batch = docs.slice(i, i + BATCH);
      await clock.batch(batch.length, () => push(server.url, connector, batch));
      if ((i / BATCH) % 10 === 9) process.stderr.write(`atrium${production ? '-pg' : ''}: ${i + batch.length} docs, load ${loadNow()}\n`);
    }
    const ingest = await clock.finish(async () => undefined);
    const notes: string[] = [];
    if (production) notes.push(`PostgreSQL backends' CPU during ingest + queries: ${(await backendCpu(PG_ADMIN, PG_DB)).toFixed(0)} s (not in the CPU column)`);
    const q = readQueries();
    const lat = {} as Record<Mode, Latency>;
    for (const m of MODES) lat[m] = await latency(q.texts.length, (i) => search(server.url, m, q.texts[i] ?? ''));
    const peak = peakRss(server.pid);
    await server.stop();
    let disk = diskBytes(dataDir);
    if (production) {
      const c = new pg.Client({ connectionString: pgUrl.toString() });
      await c.connect();
      disk = Number((await c.query<{ n: string }>('SELECT pg_database_size(current_database()) AS n')).rows[0]?.n ?? 0);
      await c.end();
    }
    // Cold open: a new process on the existing folder / database.
    server = await startServer(env);
    await search(server.url, 'hybrid', q.texts[0] ?? 'wing');
    const coldOpen = { healthMs: server.healthMs, firstHybridMs: performance.now() - server.spawnedAt };
    await server.stop();
    return { engine: production ? 'atrium-pg' : 'atrium', ingest, diskBytes: disk, peakRssBytes: peak, latency: lat, coldOpen, ndcg: await atriumQuality(), notes, load: loadNow() };
  } finally {
    // BENCH_PEERS_KEEP=1 leaves the embedded data folder for a look at where the bytes went (its path is printed).
    if (process.env.BENCH_PEERS_KEEP === '1') process.stderr.write(`atrium data folder kept: ${dataDir}\n`);
    else fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

let quality: Record<string, Partial<Record<Mode, number>>> | null = null;
/** Atrium's nDCG@10 on the shared sets: `atrium eval` (shipped hybrid, and BM25 and vector alone). */
async function atriumQuality(): Promise<Record<string, Partial<Record<Mode, number>>>> {
  if (quality) return quality;
  const log = createLogger({ level: 'warn' });
  const embeddings = createEmbeddingRegistry(loadConfig({ ...process.env, LOG_LEVEL: 'warn' }), log);
  quality = {};
  for (const set of EVAL_SETS) {
    const r = await runEval({ dataset: path.join(DATA, set), embeddings, log, quiet: true });
    quality[set] = { lexical: r.lexical.ndcg_at_10, vector: r.vector?.ndcg_at_10, hybrid: r.ndcg_at_10 };
  }
  await embeddings.close();
  return quality;
}

const role = arg('role');
if (role === 'build') await peerBuild(arg('engine') as PeerName, arg('dir') ?? '');
else if (role === 'open') await peerOpen(arg('engine') as PeerName, arg('dir') ?? '');
else {
  await main();
  // A handle left open by a peer's native module or the eval would keep the process alive after the report.
  process.exit(0);
}

async function main(): Promise<void> {
  const startLine = machineLine();
  const engines = (process.env.BENCH_PEERS_ENGINES ?? 'atrium,atrium-pg,lancedb,orama').split(',');
  const saved = path.join(CACHE, `results-${DOCS}.json`);
  // The default size has the "peers" section of docs/benchmarks.md; another size its own ("peers-500000").
  const section = DOCS === 100_000 ? 'peers' : `peers-${DOCS}`;
  // --report-only: the markdown again from the results a previous (possibly interrupted) run saved.
  if (process.argv.includes('--report-only')) {
    const results = JSON.parse(fs.readFileSync(saved, 'utf8')) as EngineResult[];
    await writeBenchSection(section, (await import('./peers/report.ts')).peersReport({ docs: DOCS, queries: QUERIES, startLine, results }));
    return;
  }
  process.stderr.write(`peers: ${DOCS} documents; preparing the corpus (cached in ${CACHE})\n`);
  await loadCorpus(DOCS);
  await prepareQueries();
  // Engines not run this time keep their saved results (so a run can be split: BENCH_PEERS_ENGINES=orama …).
  const earlier = fs.existsSync(saved) ? (JSON.parse(fs.readFileSync(saved, 'utf8')) as EngineResult[]) : [];
  const results: EngineResult[] = earlier.filter((r) => !engines.includes(r.engine));
  for (const e of engines) {
    process.stderr.write(`peers: ${e} (load ${loadNow()})\n`);
    try {
      results.push(e === 'atrium' ? await measureAtrium(false) : e === 'atrium-pg' ? await measureAtrium(true) : await measurePeer(e as PeerName));
    } catch (err) {
      process.stderr.write(`peers: ${e} failed: ${(err as Error).stack}\n`);
    }
    fs.writeFileSync(saved, JSON.stringify(results, null, 1));
  }
  const md = (await import('./peers/report.ts')).peersReport({ docs: DOCS, queries: QUERIES, startLine, results });
  await writeBenchSection(section, md);
  process.stdout.write(md);
}
