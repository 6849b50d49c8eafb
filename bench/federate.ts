// `npm run bench -- federate`: the federated query over HTTP (autocannon) on an embedded store with
// FED_BENCH_CHUNKS chunks (default 100k) across 5 sources, embedded with the built-in GloVe model.
// The corpus is built into .cache/bench-federate and grown on later runs up to FED_BENCH_CHUNKS (delete it to rebuild).
import autocannon from 'autocannon';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config/index.ts';
import { runFederatedQuery } from '../src/federation/index.ts';
import { countDocuments, searchPassages, upsertDocuments } from '../src/documents/index.ts';
import { ensureGloveCache } from '../src/embeddings/glove/cache.ts';
import { decodeWordVectors } from '../src/embeddings/glove/format.ts';
import { createRuntime } from '../src/main/runtime.ts';
import { createLogger } from '../src/platform/log.ts';
import { machineLine, writeBenchSection } from './report.ts';

const CHUNKS = Number(process.env.FED_BENCH_CHUNKS ?? 100_000);
const SOURCES = ['github-bench', 'jira-bench', 'slack-bench', 'notion-bench', 'confluence-bench'];
const TYPES = ['issue', 'task', 'message', 'page', 'page'];
const DURATION = Number(process.env.FED_BENCH_SECONDS ?? 10);
const KEY = 'atr_bench_admin_key_0123456789abcdef';
const dir = path.resolve(import.meta.dirname, '../.cache/bench-federate');
const log = createLogger({ level: 'silent' });

// A realistic vocabulary: GloVe's words in corpus-frequency order (skipping the most frequent ones), drawn
// with Zipf's law, so term document-frequencies look like real text and every word has a vector.
// (Reads the embeddings module's binary cache directly: a benchmark, not domain code.)
const table = decodeWordVectors(await fs.readFile(await ensureGloveCache(path.resolve(import.meta.dirname, '../node_modules/.cache/atrium'))));
const VOCAB = table.words.slice(150, 40_000).filter((w) => /^[a-z]{3,}$/.test(w)).slice(0, 20_000);
const ZIPF = (() => {
  const cdf = new Float64Array(VOCAB.length);
  let sum = 0;
  for (let i = 0; i < VOCAB.length; i++) cdf[i] = sum += 1 / (i + 10);
  return cdf.map((x) => x / sum);
})();
const FILLER = 'the a of to and in for with on is was we our this that from by after before during'.split(' ');

function word(r: () => number): string {
  const x = r();
  let lo = 0;
  let hi = ZIPF.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ZIPF[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return VOCAB[lo]!;
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sentence(r: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(r() < 0.35 ? FILLER[Math.floor(r() * FILLER.length)]! : word(r));
  return out.join(' ');
}

/** Grows each source to CHUNKS / 5 documents (resumes where an earlier, possibly interrupted, run stopped). */
async function build(): Promise<void> {
  const rt = await runtime();
  const started = performance.now();
  try {
    for (const [s, id] of SOURCES.entries()) {
      await rt.deps.db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name, status) VALUES ($1, 'default', $2, $1, 'idle') ON CONFLICT DO NOTHING`, [
        id,
        id.split('-')[0],
      ]);
      const perSource = Math.ceil(CHUNKS / SOURCES.length);
      const have = await countDocuments(rt.deps.db, 'default', id);
      const r = rng(1000 * (s + 1) + have);
      for (let off = have; off < perSource; off += 500) {
        const docs = Array.from({ length: Math.min(500, perSource - off) }, (_, i) => ({
          external_id: `${id}-${off + i}`,
          title: sentence(r, 5),
          content: `${sentence(r, 40)}.`,
          document_type: TYPES[s]!,
          author: `user${Math.floor(r() * 50)}`,
          updated_at: new Date(Date.now() - r() * 120 * 86_400_000).toISOString(),
          metadata: r() < 0.02 ? { priority: 'P1' } : {},
        }));
        await upsertDocuments(rt.deps, { tenantId: 'default', connectorId: id, documents: docs, embed: 'inline' });
        console.error(`${id}: ${off + docs.length}/${perSource} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
      }
    }
    await fs.appendFile(path.join(dir, 'bench-built'), `grown to ${CHUNKS} chunks in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  } finally {
    await rt.close();
  }
}

function runtime() {
  const config = loadConfig({
    ATRIUM_DATA_DIR: dir,
    ATRIUM_ADMIN_API_KEY: KEY,
    ATRIUM_SECRET_KEY: 'bench-secret',
    LOG_LEVEL: 'silent',
    ATRIUM_RATE_LIMIT_PER_MINUTE: '100000000',
    ATRIUM_RATE_LIMIT_BURST: '10000000',
    ATRIUM_SYNC_SCHEDULER: 'false',
  });
  return createRuntime(config, log);
}

type Result = autocannon.Result;
function run(url: string, title: string, pathName: string, bodies: () => string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        title,
        connections: 10,
        duration: DURATION,
        requests: [
          {
            method: 'POST',
            path: pathName,
            headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
            setupRequest: (req) => ({ ...req, body: bodies() }),
          },
        ],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    void instance;
  });
}

// FED_BENCH_BUILD=0 measures the corpus as it is (e.g. after an interrupted growth run).
if (process.env.FED_BENCH_BUILD !== '0') await build();
const buildNote = (await fs.readFile(path.join(dir, 'bench-built'), 'utf8')).trim().split('\n').join('; ');
const rt = await runtime();
const count = await rt.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks');
const address = await rt.app.listen({ port: 0, host: '127.0.0.1' });
const queries = ['payment outage', 'deploy rollback', 'customer refund', 'server cluster latency', 'security audit policy', 'hiring new staff', 'database migration', 'pricing contract renewal'];
let i = 0;
const rows: string[] = [];
// Warm up (model load, caches).
await run(address, 'warm-up', '/v1/federate', () => JSON.stringify({ query: queries[i++ % queries.length], user_id: 'warm' })).catch(() => undefined);
const scenarios: [string, string, () => string][] = [
  ['cached (same query and user)', '/v1/federate', () => JSON.stringify({ query: 'payment outage', user_id: 'cached-user' })],
  [
    'uncached (/force, 8 queries × 40 users)',
    '/v1/federate/force',
    () => JSON.stringify({ query: queries[i % queries.length], user_id: `user-${i++ % 40}` }),
  ],
  [
    'uncached, 2 of 5 sources, max_results 5',
    '/v1/federate/force',
    () => JSON.stringify({ query: queries[i % queries.length], user_id: `user-${i++ % 40}`, node_ids: ['github-bench', 'slack-bench'], max_results: 5 }),
  ],
];
for (const [title, p, body] of scenarios) {
  const r = await run(address, title, p, body);
  rows.push(
    `| ${title} | ${r.requests.average.toFixed(0)} | ${r.latency.p50} | ${r.latency.p99} | ${r.non2xx + r.errors} |`,
  );
  console.error(title, r.requests.average, r.latency.p50, r.latency.p99, r.non2xx, r.errors);
}
// Where the time goes: sequential in-process calls (no HTTP), median of 20 each.
const principal = { kind: 'bootstrap' as const, id: 'bench', tenantId: 'default', userId: 'bench', permissions: new Set(['query' as const]) };
const provider = rt.deps.embeddings?.get(rt.deps.embeddings.defaultId);
if (!provider) throw new Error('no embedding model configured');
async function median(f: (k: number) => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let k = 0; k < 20; k++) {
    const t0 = performance.now();
    await f(k);
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[10]!;
}
const q = (k: number) => queries[k % queries.length]!;
const stages: [string, number][] = [
  ['embed the query (GloVe)', await median((k) => provider.embed([q(k)]))],
  [
    'hybrid retrieval alone (searchPassages, 60 passages)',
    await median(async (k) => {
      const [v] = await provider.embed([q(k)]);
      return searchPassages(rt.deps, { tenantId: 'default', query: q(k), queryVector: v, queryModel: provider.id, limit: 60, candidates: 60 });
    }),
  ],
  ['whole federated query, uncached (force)', await median((k) => runFederatedQuery(rt.deps, principal, { query: q(k), user_id: 'seq' }, { force: true }))],
  ['whole federated query, cached', await median(() => runFederatedQuery(rt.deps, principal, { query: 'payment outage', user_id: 'seq-cached' }))],
];
await rt.close();

await writeBenchSection(
  'federate',
  `## Federated query (\`npm run bench -- federate\`)

${machineLine()}

Corpus: ${count.rows[0]?.n ?? 0} chunks across ${SOURCES.length} local sources (synthetic text: GloVe vocabulary drawn with Zipf's law, one chunk per document, GloVe 100-d vectors),
embedded PGlite store (ingestion log: ${buildNote}). autocannon, 10 connections, ${DURATION} s per row, the server in the same process.
Each uncached request embeds the query, runs hybrid retrieval (BM25 + k-NN) over every selected source, ranks, and writes the
activity row and the audit event.

| scenario | req/s | p50 ms | p99 ms | errors |
|---|---|---|---|---|
${rows.join('\n')}

Where the time goes (sequential in-process calls, no HTTP, median of 20):

| stage | ms |
|---|---|
${stages.map(([k, v]) => `| ${k} | ${v.toFixed(1)} |`).join('\n')}

Machine load average when this ran: ${os.loadavg().map((x) => x.toFixed(1)).join(', ')} (2 cores). Errors are 504s: requests whose
local retrieval missed the ${loadConfig({}).federation.deadlineMs} ms federation deadline under that load.

Targets from issue 4: p50 ≤ 25 ms, p99 ≤ 100 ms (embedded), ≥ 200 req/s.`,
);
