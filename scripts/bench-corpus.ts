// A shared benchmark corpus: N synthetic documents (~1 chunk each) across S sources, ingested through
// the real path (upsertDocuments + GloVe vectors + the model's HNSW index) into an embedded PGlite
// data dir, built once and cached under .cache/bench-corpus/<key> (key = N, S and a hash of
// migrations/, so a schema change rebuilds it). Used by bench/search.ts and bench/federate.ts.
//
//   const corpus = await openBenchCorpus({ chunks: 100_000, sources: 5 });
//   corpus.dataDir   // a data dir that createRuntime can open (ATRIUM_DATA_DIR) after corpus.close()
//   corpus.db / corpus.deps / corpus.sources / corpus.model / corpus.chunkCount / corpus.buildNote
//   await corpus.close();
//
// Text: GloVe's vocabulary (minus its ~150 most frequent words) drawn with Zipf's law plus English
// filler words, so document frequencies look like real text and every word has a vector; titles of
// 5 words, bodies of 40. Sources (connector ids and types) are github-bench, jira-bench, slack-bench,
// notion-bench, confluence-bench, then api-bench-<i>; documents carry author, updated_at (last 120
// days), document_type per source and, for 2%, metadata.priority = 'P1'. Deterministic per (N, S).
// Only one process builds a key at a time (others wait); an interrupted build resumes.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config/index.ts';
import { countDocuments, type DocumentsDeps, upsertDocuments } from '../src/documents/index.ts';
import { ensureVectorIndex } from '../src/documents/vectors.ts';
import { createEmbeddingRegistry, type ManagedEmbeddingRegistry } from '../src/embeddings/index.ts';
import { ensureGloveCache } from '../src/embeddings/glove/cache.ts';
import { decodeWordVectors } from '../src/embeddings/glove/format.ts';
import { type DatabaseExecutor, migrate, openPglite, openPostgres, type PgliteExecutor } from '../src/platform/db/index.ts';
import { createLogger, type Logger } from '../src/platform/log.ts';
import { seededRandom } from '../src/vec2vec/index.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const SOURCE_TYPES: readonly [string, string, string][] = [
  ['github-bench', 'github', 'issue'],
  ['jira-bench', 'jira', 'task'],
  ['slack-bench', 'slack', 'message'],
  ['notion-bench', 'notion', 'page'],
  ['confluence-bench', 'confluence', 'page'],
];
export const BENCH_MODEL = 'builtin/glove-100d';
const BATCH = 500;

export interface BenchCorpus {
  readonly dataDir: string;
  readonly db: PgliteExecutor;
  readonly deps: DocumentsDeps & { embeddings: ManagedEmbeddingRegistry };
  readonly sources: readonly { id: string; connectorType: string; documentType: string }[];
  readonly model: string;
  readonly chunkCount: number;
  /** How the cached corpus was built (wall seconds, load), for benchmark reports. */
  readonly buildNote: string;
  close(): Promise<void>;
}

export function benchSources(count: number): { id: string; connectorType: string; documentType: string }[] {
  return Array.from({ length: count }, (_, i) => {
    const [id, connectorType, documentType] = SOURCE_TYPES[i] ?? [`api-bench-${i}`, 'api', 'page'];
    return { id, connectorType, documentType };
  });
}

/** Per migration file, a hash of its content. */
function migrationFiles(): Record<string, string> {
  const dir = path.join(ROOT, 'migrations');
  const out: Record<string, string> = {};
  for (const f of fs.readdirSync(dir).sort()) out[f] = createHash('sha256').update(fs.readFileSync(path.join(dir, f))).digest('hex').slice(0, 16);
  return out;
}

function migrationsHash(files = migrationFiles()): string {
  return createHash('sha256').update(JSON.stringify(files)).digest('hex').slice(0, 12);
}

const MANIFEST = 'bench-corpus-migrations.json';

/**
 * The cache directory of a corpus: `n<N>-s<S>-<hash of migrations/>`. A corpus built before other
 * migrations were ADDED is reused (opening it applies them); one built before any of its migrations
 * CHANGED is not (its data may be stale).
 */
export function benchCorpusDir(chunks: number, sources = 5): string {
  const files = migrationFiles();
  const root = path.join(ROOT, '.cache/bench-corpus');
  const exact = path.join(root, `n${chunks}-s${sources}-${migrationsHash(files)}`);
  if (fs.existsSync(exact)) return exact;
  for (const d of fs.existsSync(root) ? fs.readdirSync(root).sort() : []) {
    if (!d.startsWith(`n${chunks}-s${sources}-`) || d.includes('.building')) continue;
    try {
      const built = JSON.parse(fs.readFileSync(path.join(root, d, MANIFEST), 'utf8')) as Record<string, string>;
      if (Object.entries(built).every(([f, h]) => files[f] === h)) return path.join(root, d);
    } catch {
      // no manifest: not reusable
    }
  }
  return exact;
}


const FILLER = 'the a of to and in for with on is was we our this that from by after before during'.split(' ');

async function textGenerator(): Promise<(r: () => number, n: number) => string> {
  const table = decodeWordVectors(await fsp.readFile(await ensureGloveCache(path.join(ROOT, 'node_modules/.cache/atrium'))));
  const vocab = table.words.slice(150, 40_000).filter((w) => /^[a-z]{3,}$/.test(w)).slice(0, 20_000);
  const cdf = new Float64Array(vocab.length);
  let sum = 0;
  for (let i = 0; i < vocab.length; i++) cdf[i] = sum += 1 / (i + 10);
  for (let i = 0; i < cdf.length; i++) cdf[i] = (cdf[i] ?? 0) / sum;
  const word = (r: () => number) => {
    const x = r();
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cdf[mid] ?? 1) < x) lo = mid + 1;
      else hi = mid;
    }
    return vocab[lo] ?? 'word';
  };
  return (r, n) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(r() < 0.35 ? (FILLER[Math.floor(r() * FILLER.length)] ?? 'the') : word(r));
    return out.join(' ');
  };
}

function registryFor(log: Logger): ManagedEmbeddingRegistry {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'warn' });
  return createEmbeddingRegistry(config, log);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Writes the corpus's sources and documents (GloVe vectors inline) into a migrated database, PGlite or
 * PostgreSQL; resumable: a source's documents already stored are skipped. Deterministic per (N, S).
 */
export async function populateCorpus(
  deps: DocumentsDeps & { embeddings: ManagedEmbeddingRegistry },
  chunks: number,
  sourceCount: number,
  onProgress: (done: number, source: string) => void,
): Promise<void> {
  const { db } = deps;
  const sentence = await textGenerator();
  const perSource = Math.ceil(chunks / sourceCount);
  for (const [s, src] of benchSources(sourceCount).entries()) {
    await db.query(
      `INSERT INTO connectors (id, tenant_id, connector_type, display_name, status) VALUES ($1, 'default', $2, $1, 'idle') ON CONFLICT DO NOTHING`,
      [src.id, src.connectorType],
    );
    const have = await countDocuments(db, 'default', src.id);
    const r = seededRandom(1000 * (s + 1) + have);
    for (let off = have; off < perSource; off += BATCH) {
      const docs = Array.from({ length: Math.min(BATCH, perSource - off) }, (_, i) => ({
        external_id: `${src.id}-${off + i}`,
        title: sentence(r, 5),
        content: `${sentence(r, 40)}.`,
        document_type: src.documentType,
        author: `user${Math.floor(r() * 50)}`,
        updated_at: new Date(Date.UTC(2026, 10, 1) - r() * 120 * 86_400_000).toISOString(),
        metadata: r() < 0.02 ? { priority: 'P1' } : {},
      }));
      await upsertDocuments(deps, { tenantId: 'default', connectorId: src.id, documents: docs, embed: 'inline', model: BENCH_MODEL });
      onProgress(off + docs.length, src.id);
    }
  }
}

async function build(dir: string, chunks: number, sourceCount: number, log: Logger, onProgress: (line: string) => void): Promise<void> {
  const work = `${dir}.building`;
  const lock = `${work}.pid`;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  for (;;) {
    if (fs.existsSync(dir)) return;
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch {
      const pid = Number(fs.readFileSync(lock, 'utf8'));
      if (!alive(pid)) fs.rmSync(lock, { force: true });
      else await new Promise((r) => setTimeout(r, 5000));
    }
  }
  try {
    const registry = registryFor(log);
    const db = await openPglite(work);
    const started = performance.now();
    const cpu0 = process.cpuUsage();
    const manifest = migrationFiles();
    try {
      await migrate(db, log);
      await populateCorpus({ db, log, embeddings: registry, hnswMinVectors: Number.POSITIVE_INFINITY }, chunks, sourceCount, (n, src) =>
        onProgress(`${src}: ${n}/${Math.ceil(chunks / sourceCount)} (${((performance.now() - started) / 1000).toFixed(0)} s)`),
      );
      const provider = registry.get(BENCH_MODEL);
      if (!provider) throw new Error(`${BENCH_MODEL} is not available`);
      const hnsw0 = performance.now();
      // pgvector builds the graph in memory only if it fits maintenance_work_mem (64 MB by default,
      // ~60k GloVe vectors); past that it inserts on disk, which in PGlite takes hours at 100k.
      await db.exec(`SET maintenance_work_mem = '768MB'`);
      await ensureVectorIndex(db, BENCH_MODEL, provider.dimensions);
      const hnswS = (performance.now() - hnsw0) / 1000;
      await db.exec('VACUUM ANALYZE');
      const c = process.cpuUsage(cpu0);
      const note = `built ${chunks} docs across ${sourceCount} sources in ${((performance.now() - started) / 1000).toFixed(0)} s wall, ${((c.user + c.system) / 1e6).toFixed(0)} s CPU (HNSW index ${hnswS.toFixed(0)} s wall), load average at the end ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' / ')}`;
      await db.query(`CREATE TABLE IF NOT EXISTS bench_corpus_info (note text)`);
      await db.query(`INSERT INTO bench_corpus_info (note) VALUES ($1)`, [note]);
    } finally {
      await db.close();
      await registry.close();
    }
    fs.writeFileSync(path.join(work, MANIFEST), JSON.stringify(manifest, null, 1));
    fs.renameSync(work, dir);
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/** Builds the corpus once (cached), then opens it. */
export async function openBenchCorpus(opts: {
  chunks: number;
  sources?: number;
  log?: Logger;
  onProgress?: (line: string) => void;
}): Promise<BenchCorpus> {
  const sourceCount = opts.sources ?? 5;
  const log = opts.log ?? createLogger({ level: 'warn' });
  const dir = benchCorpusDir(opts.chunks, sourceCount);
  await build(dir, opts.chunks, sourceCount, log, opts.onProgress ?? ((l) => process.stderr.write(`\r${l}   `)));
  const db = await openPglite(dir);
  await migrate(db, log);
  const registry = registryFor(log);
  const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks');
  const info = await db.query<{ note: string }>('SELECT note FROM bench_corpus_info LIMIT 1');
  return {
    dataDir: dir,
    db,
    deps: { db, log, embeddings: registry },
    sources: benchSources(sourceCount),
    model: BENCH_MODEL,
    chunkCount: Number(count.rows[0]?.n ?? 0),
    buildNote: info.rows[0]?.note ?? '',
    async close() {
      await db.close();
      await registry.close();
    },
  };
}

/**
 * The same corpus in a PostgreSQL database (production mode), for bench/federate-production.ts: database
 * `atrium_bench_n<N>_s<S>_<hash of migrations/>` on the server of `adminUrl` (created when missing,
 * filled resumably, so an interrupted build goes on). Vectors are stored as pgvector's `vector` when the
 * server has pgvector, else `real[]` (this machine's PostgreSQL 15).
 */
export async function openPostgresBenchCorpus(opts: {
  adminUrl: string;
  chunks: number;
  sources?: number;
  log?: Logger;
  onProgress?: (line: string) => void;
}): Promise<{ url: string; db: DatabaseExecutor; chunkCount: number; buildNote: string; close(): Promise<void> }> {
  const sourceCount = opts.sources ?? 5;
  const log = opts.log ?? createLogger({ level: 'warn' });
  const name = `atrium_bench_n${opts.chunks}_s${sourceCount}_${migrationsHash()}`;
  const admin = new pg.Client({ connectionString: opts.adminUrl });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(opts.adminUrl);
  url.pathname = `/${name}`;
  const db = await openPostgres(url.toString(), log);
  const registry = registryFor(log);
  try {
    await migrate(db, log);
    await db.query('CREATE TABLE IF NOT EXISTS bench_corpus_info (note text)');
    let info = await db.query<{ note: string }>('SELECT note FROM bench_corpus_info LIMIT 1');
    if (!info.rows[0]) {
      const started = performance.now();
      const cpu0 = process.cpuUsage();
      const progress = opts.onProgress ?? ((l) => process.stderr.write(`\r${l}   `));
      await populateCorpus({ db, log, embeddings: registry }, opts.chunks, sourceCount, (n, src) =>
        progress(`${src}: ${n}/${Math.ceil(opts.chunks / sourceCount)} (${((performance.now() - started) / 1000).toFixed(0)} s)`),
      );
      await db.exec('VACUUM ANALYZE');
      const c = process.cpuUsage(cpu0);
      const note = `built ${opts.chunks} docs across ${sourceCount} sources in ${((performance.now() - started) / 1000).toFixed(0)} s wall, ${((c.user + c.system) / 1e6).toFixed(0)} s CPU of the loading process`;
      await db.query('INSERT INTO bench_corpus_info (note) VALUES ($1)', [note]);
      info = await db.query<{ note: string }>('SELECT note FROM bench_corpus_info LIMIT 1');
    }
    const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks');
    return {
      url: url.toString(),
      db,
      chunkCount: Number(count.rows[0]?.n ?? 0),
      buildNote: info.rows[0]?.note ?? '',
      async close() {
        await db.close();
        await registry.close();
      },
    };
  } catch (err) {
    await db.close();
    await registry.close();
    throw err;
  }
}

// `npx tsx scripts/bench-corpus.ts <chunks> [sources]` builds (or just opens) a corpus.
if (import.meta.url === `file://${process.argv[1]}`) {
  const corpus = await openBenchCorpus({ chunks: Number(process.argv[2] ?? 100_000), sources: Number(process.argv[3] ?? 5), onProgress: (l) => console.error(l) });
  console.log(`${corpus.dataDir}: ${corpus.chunkCount} chunks; ${corpus.buildNote}`);
  await corpus.close();
}
