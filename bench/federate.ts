// `npm run bench -- federate`: the federated query over HTTP (autocannon) on the shared benchmark corpus
// (scripts/bench-corpus.ts: FED_BENCH_CHUNKS chunks, default 100k, across 5 sources, GloVe vectors), plus an
// in-process breakdown of where an uncached and a cached query spend their time.
// The cached corpus is copied to a temporary data dir first: the bench writes activity and audit rows.

import { rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { BENCH_MODEL, openBenchCorpus } from '../scripts/bench-corpus.ts';
import { loadConfig } from '../src/config/index.ts';
import { searchPassages } from '../src/documents/index.ts';
import { OVERFETCH } from '../src/federation/damping.ts';
import { runFederatedQuery } from '../src/federation/index.ts';
import { createRuntime } from '../src/main/runtime.ts';
import { createLogger } from '../src/platform/log.ts';
import { FEDERATE_QUERIES, mixedBodies, type Scenario, uncachedScenarios } from './federate-load.ts';
import { machineLine, writeBenchSection } from './report.ts';

const CHUNKS = Number(process.env.FED_BENCH_CHUNKS ?? 100_000);
const DURATION = Number(process.env.FED_BENCH_SECONDS ?? 10);
const CONNECTIONS = 10;
const KEY = 'atr_bench_admin_key_0123456789abcdef';
const log = createLogger({ level: 'silent' });
const startLoad = os.loadavg()[0] ?? 0;

const corpus = await openBenchCorpus({ chunks: CHUNKS, sources: 5 });
// Planner statistics for indexes that migrations added after the corpus was built (as bench/search.ts does).
await corpus.db.exec('ANALYZE');
const sources = corpus.sources.map((s) => s.id);
const buildNote = corpus.buildNote;
const corpusDir = corpus.dataDir;
await corpus.close();
const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-bench-federate-'));
// Removed on any exit, a failed run included.
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
await fs.cp(corpusDir, dir, { recursive: true });

const config = loadConfig({
  ATRIUM_DATA_DIR: dir,
  ATRIUM_ADMIN_API_KEY: KEY,
  ATRIUM_SECRET_KEY: 'bench-secret',
  LOG_LEVEL: 'silent',
  ATRIUM_RATE_LIMIT_PER_MINUTE: '100000000',
  ATRIUM_RATE_LIMIT_BURST: '10000000',
  ATRIUM_SYNC_SCHEDULER: 'false',
  ATRIUM_EMBEDDING_MODEL: BENCH_MODEL,
});
const rt = await createRuntime(config, log);
const count = await rt.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks');
const address = await rt.app.listen({ port: 0, host: '127.0.0.1' });

/** autocannon in a worker thread (the load generator does not share the server's event loop), bodies cycled. */
function run(title: string, pathName: string, bodies: string[], seconds = DURATION, method: 'POST' | 'GET' = 'POST', connections = CONNECTIONS): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: address,
        title,
        connections,
        workers: 1,
        duration: seconds,
        requests:
          method === 'GET'
            ? [{ method, path: pathName }]
            : bodies.map((body) => ({ method, path: pathName, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body })),
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
  });
}

// Warm up: model, caches, JIT; fills the result cache for the mixed cached scenario.
await run('warm-up', '/v1/federate', mixedBodies(), 5).catch(() => undefined);
// [title, path, bodies, connections]: 10 connections measure saturation (latency = queueing + service);
// one connection measures the latency of a request that does not wait behind others.
const scenarios: Scenario[] = [
  ['baseline: GET /v1/health (no auth, one SELECT 1; HTTP + load-generator floor)', '/v1/health', []],
  ['cached: same query and user', '/v1/federate', [JSON.stringify({ query: 'payment outage', user_id: 'cached-user' })]],
  ['cached: 8 queries × 40 users (320 cache entries)', '/v1/federate', mixedBodies()],
  ...uncachedScenarios(sources),
];
const rows: string[] = [];
for (const [title, p, bodies, connections] of scenarios) {
  const cpu0 = process.cpuUsage();
  const elu0 = performance.eventLoopUtilization();
  const r = await run(title, p, bodies, DURATION, bodies.length ? 'POST' : 'GET', connections);
  const elu = performance.eventLoopUtilization(elu0);
  const cpu = process.cpuUsage(cpu0);
  const cpuPerReq = r.requests.total > 0 ? (cpu.user + cpu.system) / 1000 / r.requests.total : 0;
  const busyPerReq = r.requests.total > 0 ? elu.active / r.requests.total : 0;
  rows.push(
    `| ${title} | ${r.requests.average.toFixed(0)} | ${r.latency.p50} | ${r.latency.p99} | ${busyPerReq.toFixed(1)} | ${cpuPerReq.toFixed(1)} | ${r.non2xx + r.errors} | ${os.loadavg()[0]?.toFixed(1)} |`,
  );
  console.error(title, r.requests.average, r.latency.p50, r.latency.p99, busyPerReq.toFixed(2), cpuPerReq.toFixed(2), r.non2xx, r.errors);
}

// Where the time goes: sequential in-process calls (no HTTP), median of 20 each, wall and CPU.
const principal = { kind: 'bootstrap' as const, id: 'bench', tenantId: 'default', userId: 'bench', permissions: new Set(['query' as const]) };
const provider = rt.deps.embeddings?.get(rt.deps.embeddings.defaultId);
if (!provider) throw new Error('no embedding model configured');
async function median(f: (k: number) => Promise<unknown>): Promise<[number, number]> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let k = 0; k < 20; k++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await f(k);
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return [wall.sort((a, b) => a - b)[10]!, cpu.sort((a, b) => a - b)[10]!];
}
const q = (k: number) => FEDERATE_QUERIES[k % FEDERATE_QUERIES.length]!;
const vec = async (k: number) => (await provider.embed([q(k)]))[0]!;
// What the federated query asks retrieval for at the default max_results (10): twice the undamped per-node
// budget (max_results × OVERFETCH), as searchLocal in src/federation/query.ts does.
const LIMIT = 10 * OVERFETCH * 2;
const stages: [string, [number, number]][] = [
  ['embed the query (GloVe)', await median((k) => provider.embed([q(k)]))],
  [
    `hybrid retrieval, one query over all 5 sources (searchPassages, ${LIMIT} passages; what the federated query does)`,
    await median(async (k) => searchPassages(rt.deps, { tenantId: 'default', query: q(k), queryVector: await vec(k), queryModel: provider.id, limit: LIMIT, candidates: LIMIT })),
  ],
  [
    `hybrid retrieval, one query per source, 5 concurrently (${LIMIT} passages each; the per-source-deadline alternative)`,
    await median(async (k) => {
      const v = await vec(k);
      return Promise.all(sources.map((s) => searchPassages(rt.deps, { tenantId: 'default', query: q(k), queryVector: v, queryModel: provider.id, sources: [s], limit: LIMIT, candidates: LIMIT })));
    }),
  ],
  ['whole federated query, uncached (force), a user with recent activity', await median((k) => runFederatedQuery(rt.deps, principal, { query: q(k), user_id: 'seq' }, { force: true }))],
  [
    "whole federated query, uncached (force), a user's first query (activity read from the table)",
    await median((k) => runFederatedQuery(rt.deps, principal, { query: q(k), user_id: `seq-${k}` }, { force: true })),
  ],
  ['whole federated query, cached', await median(() => runFederatedQuery(rt.deps, principal, { query: 'payment outage', user_id: 'seq-cached' }))],
];
await rt.close();
await fs.rm(dir, { recursive: true, force: true });

await writeBenchSection(
  'federate',
  `## Federated query (\`npm run bench -- federate\`)

${machineLine()}

Corpus: ${count.rows[0]?.n ?? 0} chunks across ${sources.length} local sources, the shared benchmark corpus (\`scripts/bench-corpus.ts\`: synthetic
text from GloVe's vocabulary drawn with Zipf's law, one chunk per document, GloVe 100-d vectors; ${buildNote}), embedded PGlite store.
autocannon in a worker thread, ${CONNECTIONS} connections unless the row says otherwise, ${DURATION} s per row, the server in the main thread of the same process.
An uncached request embeds the query, runs hybrid retrieval (BM25 + k-NN) over the selected sources, ranks; every request
(cached or not) verifies the key (remembered 2 s), reads the tenant's sources/nodes/cache generation in one query, computes
the user's entropy from in-memory activity, ranks the candidates and queues its activity row and audit event (written in
batches behind the response). "busy ms/req": time the server's thread (the main thread: HTTP, the handler and PGlite)
was busy per request (\`eventLoopUtilization\`), so ~1000 / busy is what one free core would serve; it is wall time and
inflated when the cores are oversubscribed. "CPU ms/req": the whole process's CPU time per request, including the
load generator's worker thread and its start-up.

| scenario | req/s | p50 ms | p99 ms | busy ms/req | CPU ms/req | errors | load (1 min) |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Where the time goes (sequential in-process calls, no HTTP, median of 20):

| stage | wall ms | CPU ms |
|---|---|---|
${stages.map(([k, [w, c]]) => `| ${k} | ${w.toFixed(1)} | ${c.toFixed(1)} |`).join('\n')}

Load average at the start: ${startLoad.toFixed(1)}; at the end: ${os.loadavg().map((x) => x.toFixed(1)).join(', ')} (2 cores). Errors are 504s: requests whose
local retrieval missed the ${config.federation.deadlineMs} ms federation deadline under that load.

Targets from issue 4: p50 ≤ 25 ms, p99 ≤ 100 ms (embedded), ≥ 200 req/s.`,
);
