// `npm run bench -- federate-production`: the federated query in production mode. The shared benchmark
// corpus (scripts/bench-corpus.ts: FED_BENCH_CHUNKS chunks, default 100k, across 5 sources, GloVe vectors)
// in PostgreSQL (`BENCH_POSTGRES_URL`, default the machine's postgres://postgres@127.0.0.1:5432/postgres,
// as an admin connection that may create the corpus database), FED_BENCH_API_PROCESSES (default 2)
// `atrium serve --role api` processes on their own ports, and autocannon spreading its connections
// over them (a load balancer's job in a real deployment). Writes the `federate-production` section of
// docs/benchmarks.md.

import fs from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { openPostgresBenchCorpus } from '../scripts/bench-corpus.ts';
import { type Served, spawnServer } from '../test/support/spawn.ts';
import { mixedBodies, type Scenario, uncachedScenarios } from './federate-load.ts';
import { machineLine, writeBenchSection } from './report.ts';

const CHUNKS = Number(process.env.FED_BENCH_CHUNKS ?? 100_000);
const DURATION = Number(process.env.FED_BENCH_SECONDS ?? 10);
const PROCESSES = Number(process.env.FED_BENCH_API_PROCESSES ?? 2);
const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CONNECTIONS = 10;
const KEY = 'atr_bench_admin_key_0123456789abcdef';
const startLoad = os.loadavg()[0] ?? 0;

const corpus = await openPostgresBenchCorpus({ adminUrl: ADMIN_URL, chunks: CHUNKS, sources: 5, onProgress: (l) => process.stderr.write(`\r${l}   `) });
const { url: databaseUrl, chunkCount, buildNote } = corpus;
const hasVector = corpus.db.hasVector;
const sources = (await corpus.db.query<{ id: string }>("SELECT id FROM connectors WHERE tenant_id = 'default' ORDER BY id")).rows.map((r) => r.id);
// The activity rows of earlier runs (the audit trail is append-only and stays).
await corpus.db.exec("DELETE FROM federation_activity WHERE tenant_id = 'default'");
await corpus.close();

const apiEnv = {
  DATABASE_URL: databaseUrl,
  ATRIUM_ROLE: 'api',
  ATRIUM_ADMIN_API_KEY: KEY,
  ATRIUM_SECRET_KEY: 'bench-secret-bench-secret-bench-secret',
  LOG_LEVEL: 'silent',
  ATRIUM_RATE_LIMIT_PER_MINUTE: '100000000',
  ATRIUM_RATE_LIMIT_BURST: '10000000',
  ATRIUM_SYNC_SCHEDULER: 'false',
  ATRIUM_EMBEDDING_MODEL: 'builtin/glove-100d',
  // Production mode refuses outbound requests to loopback: the processes federate with each other on 127.0.0.1.
  ATRIUM_EGRESS_ALLOW: '127.0.0.1',
};
// FED_BENCH_NODE_ARGS: extra node flags for the API processes (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
const nodeArgs = process.env.FED_BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
const apis: Served[] = [];
process.once('exit', () => {
  for (const a of apis) a.child.kill('SIGKILL');
});
// One at a time: each applies migrations and the bootstrap key at start.
for (let i = 0; i < PROCESSES; i++) apis.push(await spawnServer(apiEnv, 120_000, nodeArgs));


/** Machine-wide busy CPU time in ms (every process: the API processes, PostgreSQL, the load generator). */
function machineBusyMs(): number {
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = cpu;
  return ((user + nice + system + irq + softirq + steal) * 1000) / 100;
}

/** CPU time in ms of the API processes, of PostgreSQL's processes, and of this process (the load generator). */
function processCpuMs(): { api: number; postgres: number; bench: number } {
  // utime + stime, plus (withChildren) the reaped children's: PostgreSQL backends that exit (the pool
  // closes idle connections) leave their time in the postmaster's cutime + cstime.
  const ticks = (pid: number | string, withChildren = false) => {
    try {
      const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const rest = f.slice(f.lastIndexOf(')') + 2).split(' ').map(Number);
      const own = (rest[11] ?? 0) + (rest[12] ?? 0);
      return ((withChildren ? own + (rest[13] ?? 0) + (rest[14] ?? 0) : own) * 1000) / 100;
    } catch {
      return 0;
    }
  };
  let postgres = 0;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim().startsWith('postgres')) postgres += ticks(pid, true);
    } catch {
      // gone
    }
  }
  return { api: apis.reduce((n, a) => n + ticks(a.child.pid ?? 0), 0), postgres, bench: ticks('self') };
}

/** autocannon against every API process at once (connections split between them), results summed. */
async function run(title: string, pathName: string, bodies: string[], connections = CONNECTIONS, seconds = DURATION) {
  const targets = apis.slice(0, Math.max(1, Math.min(apis.length, connections)));
  const per = targets.map((_, i) => Math.floor(connections / targets.length) + (i < connections % targets.length ? 1 : 0));
  const results = await Promise.all(
    targets.map(
      (t, i) =>
        new Promise<autocannon.Result>((resolve, reject) => {
          autocannon(
            {
              url: t.url,
              title,
              connections: per[i],
              workers: 1,
              duration: seconds,
              requests:
                bodies.length === 0
                  ? [{ method: 'GET', path: pathName }]
                  : bodies.map((body) => ({ method: 'POST', path: pathName, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body })),
            },
            (err, res) => (err ? reject(err) : resolve(res)),
          );
        }),
    ),
  );
  const total = results.reduce((n, r) => n + r.requests.total, 0);
  const weighted = (f: (r: autocannon.Result) => number) => results.reduce((n, r) => n + f(r) * r.requests.total, 0) / Math.max(1, total);
  return {
    rps: results.reduce((n, r) => n + r.requests.average, 0),
    total,
    // Per-target percentiles, weighted by requests (the targets see the same load).
    p50: weighted((r) => r.latency.p50),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    errors: results.reduce((n, r) => n + r.non2xx + r.errors, 0),
  };
}

// Warm up: JIT, the model, pools; fills each process's result cache for the cached scenario.
await run('warm-up', '/v1/federate', mixedBodies(), CONNECTIONS, 5);
const scenarios: Scenario[] = [
  ['baseline: GET /v1/health (no auth, one SELECT 1)', '/v1/health', []],
  ['cached: 8 queries × 40 users (320 cache entries)', '/v1/federate', mixedBodies()],
  ...uncachedScenarios(sources),
];
const rows: string[] = [];
// FED_BENCH_ONLY=<text>: only the scenarios whose title contains it (for profiling; the report then has only those rows).
const only = process.env.FED_BENCH_ONLY;
for (const [title, p, bodies, connections] of scenarios.filter(([t]) => !only || t.includes(only))) {
  const busy0 = machineBusyMs();
  const cpu0 = processCpuMs();
  const t0 = performance.now();
  const r = await run(title, p, bodies, connections ?? CONNECTIONS);
  const wallMs = performance.now() - t0;
  const busy = machineBusyMs() - busy0;
  const cpu1 = processCpuMs();
  const per = (k: 'api' | 'postgres' | 'bench') => (r.total > 0 ? ((cpu1[k] - cpu0[k]) / r.total).toFixed(1) : '—');
  rows.push(
    `| ${title} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(0)} | ${r.p99} | ${r.total > 0 ? (busy / r.total).toFixed(1) : '—'} | ${per('api')} / ${per('postgres')} / ${per('bench')} | ${((100 * busy) / (wallMs * os.cpus().length)).toFixed(0)} % | ${r.errors} |`,
  );
  console.error(title, r.rps.toFixed(1), r.p50.toFixed(1), r.p99, (busy / Math.max(1, r.total)).toFixed(2), per('api'), per('postgres'), per('bench'), r.errors);
}
// A graceful stop (SIGTERM), waited for: a profiled process writes its profile on exit.
await Promise.all(apis.map((a) => a.stop()));

await writeBenchSection(
  'federate-production',
  `## Federated query, production mode (\`npm run bench -- federate-production\`)

${machineLine()}

Corpus: ${chunkCount} chunks across ${sources.length} sources, the same shared benchmark corpus as the embedded benchmark above
(\`scripts/bench-corpus.ts\`), in PostgreSQL ${hasVector ? 'with pgvector' : '15 **without pgvector** (this machine has none: vectors are `real[]`, and above 2,000 chunks hybrid retrieval has no k-NN list of its own; the BM25 candidates are scored by cosine, docs/retrieval.md)'}; ${buildNote}.
${PROCESSES} API processes (\`atrium serve --role api\`, one port each) and the PostgreSQL server on the same 2-core machine as the
load generator: autocannon (one worker thread per API process) spreads ${CONNECTIONS} connections over the processes, ${DURATION} s per row;
p50 is the request-weighted mean of the per-process p50s, p99 the worst per-process p99. "machine CPU ms/req": busy CPU
time of the whole machine per request, split into the API processes, PostgreSQL's processes and the load generator
(this process: autocannon's worker threads); "machine busy": the machine's share of both cores.

| scenario | req/s | p50 ms | p99 ms | machine CPU ms/req | of which API / PostgreSQL / load generator | machine busy | errors |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Load average at the start: ${startLoad.toFixed(1)}; at the end: ${os.loadavg().map((x) => x.toFixed(1)).join(', ')} (2 cores).

Targets from issue 4: ≥ 200 req/s; p50 ≤ 25 ms and p99 ≤ 100 ms are the embedded targets (section above).`,
);
process.exit(0);
