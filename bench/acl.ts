// `npm run bench -- acl`: what permission-aware retrieval costs (docs/permissions.md, issue 24). On the shared benchmark
// corpus (scripts/bench-corpus.ts, ACL_BENCH_CHUNKS chunks, default 100k), copied twice to temporary data dirs:
//   * `plain`: the corpus as built, no document restricted (the reader's view is probed and the filter skipped: what
//     every tenant without ACLs runs);
//   * `acl`: 30 % of the documents restricted to one of 100 groups, and a person in 20 of them (their view resolved per
//     request from the identity directory, as a request does).
// Both are open in this process at once, and every query runs in all four views back to back (plain person, acl
// person, acl unfiltered = the admin-bypass shape, acl service key = public only), the order rotated query by query,
// so load from other work on the machine hits every view alike. Search (lexical, vector, hybrid; query vector
// precomputed as bench/search.ts does) and the federated query (uncached, in process): p50/p99 wall and mean CPU.
// The queries are the dataset queries bench/search.ts uses (cranfield, coffee), ACL_BENCH_QUERIES of them (default
// 300, so a p99 is the 3rd-worst of 300, not the worst of 100).
import { rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { BENCH_MODEL, openBenchCorpus } from '../scripts/bench-corpus.ts';
import type { Principal } from '../src/access/index.ts';
import { loadConfig } from '../src/config/index.ts';
import { loadBeir } from '../src/documents/eval/beir.ts';
import { percentile } from '../src/documents/eval/metrics.ts';
import { ALL_DOCUMENTS, EVERYONE, searchPassages, type Viewer } from '../src/documents/index.ts';
import { runFederatedQuery } from '../src/federation/index.ts';
import { replaceGroupMembers, resolveView } from '../src/identity/index.ts';
import { createRuntime, type Runtime } from '../src/main/runtime.ts';
import { createLogger } from '../src/platform/log.ts';
import { machineLine, writeBenchSection } from './report.ts';

const CHUNKS = Number(process.env.ACL_BENCH_CHUNKS ?? 100_000);
const QUERIES = Number(process.env.ACL_BENCH_QUERIES ?? 300);
const WARMUP = Number(process.env.ACL_BENCH_WARMUP ?? 20);
const RESTRICTED_PERCENT = 30;
const GROUPS = 100;
const PERSON_GROUPS = 20;
const DATA = path.resolve(import.meta.dirname, '../../shared/data');
const log = createLogger({ level: 'silent' });
const startLine = machineLine();
const benchStart = performance.now();
const loads: number[] = [os.loadavg()[0] ?? 0];

const corpus = await openBenchCorpus({ chunks: CHUNKS, sources: 5 });
const buildNote = corpus.buildNote;
const corpusDir = corpus.dataDir;
await corpus.close();
const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-bench-acl-'));
process.once('exit', () => rmSync(tmp, { recursive: true, force: true }));

async function open(name: string): Promise<Runtime> {
  const dir = path.join(tmp, name);
  await fs.cp(corpusDir, dir, { recursive: true });
  const config = loadConfig({
    ATRIUM_DATA_DIR: dir,
    ATRIUM_SECRET_KEY: 'bench-secret',
    LOG_LEVEL: 'silent',
    ATRIUM_SYNC_SCHEDULER: 'false',
    ATRIUM_EMBEDDING_MODEL: BENCH_MODEL,
    // Every federated query is uncached: the bench measures retrieval, not the result cache.
    ATRIUM_FEDERATION_CACHE_TTL_MS: '0',
  });
  const rt = await createRuntime(config, log);
  await rt.deps.db.query('ANALYZE');
  return rt;
}
const plain = await open('plain');
const acl = await open('acl');
const chunkCount = (await acl.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks')).rows[0]?.n ?? 0;

// 30 % of documents restricted to one of 100 groups in `acl`; the reader is in 20 of them.
const EMAIL = 'reader@bench.test';
const t0 = performance.now();
await acl.deps.db.query(
  `UPDATE documents SET acl = jsonb_build_object('groups', jsonb_build_array('bench:g' || (abs(hashtext(id || 'g')) % ${GROUPS})))
   WHERE tenant_id = 'default' AND abs(hashtext(id)) % 100 < ${RESTRICTED_PERCENT}`,
);
await replaceGroupMembers(
  acl.deps.db,
  'default',
  'manual',
  Array.from({ length: PERSON_GROUPS }, (_, g) => ({ group_id: `bench:g${g}`, members: [EMAIL] })),
);
await acl.deps.db.query('ANALYZE');
const restrictS = (performance.now() - t0) / 1000;

const queries: string[] = [];
for (const d of ['cranfield', 'coffee-stackexchange']) queries.push(...(await loadBeir(path.join(DATA, d))).queries.map((q) => q.text));
const qs = queries.slice(0, QUERIES);
const provider = acl.deps.embeddings?.get(BENCH_MODEL);
if (!provider) throw new Error(`${BENCH_MODEL} is not available`);
const qvecs = await provider.embed(qs);

const person: Principal = { kind: 'api_key', id: 'bench-reader', tenantId: 'default', userId: 'reader', email: EMAIL, permissions: new Set(['query']) };
const service: Principal = { kind: 'api_key', id: 'bench-service', tenantId: 'default', userId: 'service', email: null, permissions: new Set(['query']) };

const VIEWS = ['plain', 'person', 'unfiltered', 'service'] as const;
type ViewName = (typeof VIEWS)[number];
const runtimeOf = (v: ViewName) => (v === 'plain' ? plain : acl);
/** How a request gets its view: a person's is looked up in the identity directory each time, as a request does. */
const viewOf = async (v: ViewName): Promise<Viewer> =>
  v === 'unfiltered' ? ALL_DOCUMENTS : v === 'service' ? EVERYONE : (await resolveView(runtimeOf(v).deps, person)).viewer;

const reader = await viewOf('person');
const readerPrincipals = 'principals' in reader ? [...reader.principals] : [];
const share = (
  await acl.deps.db.query<{ restricted: number; visible: number; total: number }>(
    `SELECT count(*) FILTER (WHERE NOT acl_principals && ARRAY['*','public']::text[])::int AS restricted,
            count(*) FILTER (WHERE acl_principals && $1::text[])::int AS visible, count(*)::int AS total FROM documents WHERE tenant_id = 'default'`,
    [readerPrincipals],
  )
).rows[0] ?? { restricted: 0, visible: 0, total: 0 };

const MODES = ['lexical', 'vector', 'hybrid'] as const;
type Op = (typeof MODES)[number] | 'federate';
const OPS: Op[] = [...MODES, 'federate'];

async function once(op: Op, view: ViewName, i: number): Promise<{ ms: number; cpu: number; n: number }> {
  const deps = runtimeOf(view).deps;
  const c0 = process.cpuUsage();
  const s = performance.now();
  const viewer = await viewOf(view);
  let n: number;
  if (op === 'federate') {
    const r = await runFederatedQuery(deps, view === 'service' ? service : person, { query: qs[i] ?? '', user_id: `bench-${i % 40}`, max_results: 10 }, { viewer });
    n = r.items.length;
  } else {
    const r = await searchPassages(deps, { tenantId: 'default', query: qs[i] ?? '', queryVector: qvecs[i], queryModel: BENCH_MODEL, limit: 10, mode: op, viewer });
    n = r.length;
  }
  const ms = performance.now() - s;
  const c = process.cpuUsage(c0);
  return { ms, cpu: (c.user + c.system) / 1000, n };
}

type Acc = { lat: number[]; cpu: number[]; results: number };
/** Per op and view: latencies (ms), mean CPU and results, every query run in every view back to back. */
async function measure(): Promise<Map<string, Acc>> {
  const out = new Map<string, Acc>();
  for (const op of OPS) {
    process.stderr.write(`acl bench: ${op}, ${((performance.now() - benchStart) / 1000).toFixed(0)} s, load ${os.loadavg()[0]?.toFixed(1)}\n`);
    loads.push(os.loadavg()[0] ?? 0);
    for (let i = 0; i < Math.min(WARMUP, qs.length); i++) for (const v of VIEWS) await once(op, v, i);
    for (let i = 0; i < qs.length; i++) {
      // Rotated, so no view always runs first (after another view warmed what they share) or last.
      for (let j = 0; j < VIEWS.length; j++) {
        const v = VIEWS[(i + j) % VIEWS.length] as ViewName;
        const r = await once(op, v, i);
        const e = out.get(`${op}|${v}`) ?? { lat: [], cpu: [], results: 0 };
        e.lat.push(r.ms);
        e.cpu.push(r.cpu);
        e.results += r.n / qs.length;
        out.set(`${op}|${v}`, e);
      }
    }
  }
  loads.push(os.loadavg()[0] ?? 0);
  return out;
}

const m = await measure();
await plain.close();
await acl.close();

const f1 = (x: number) => x.toFixed(1);
type Of = (a: Acc | undefined) => number[];
const wall: Of = (a) => a?.lat ?? [];
const cpu: Of = (a) => a?.cpu ?? [];
const pq = (xs: number[], q: number) => f1(percentile(xs, q));
const r2 = (a: number[], b: number[], q: number) => (percentile(a, q) / Math.max(1e-9, percentile(b, q))).toFixed(2);
const ratio = (a: Acc | undefined, b: Acc | undefined) => `${r2(wall(a), wall(b), 50)} / ${r2(wall(a), wall(b), 99)} (${r2(cpu(a), cpu(b), 50)} / ${r2(cpu(a), cpu(b), 99)})`;
const cell = (a: Acc | undefined) => `${pq(wall(a), 50)} / ${pq(wall(a), 99)} (${pq(cpu(a), 50)} / ${pq(cpu(a), 99)})`;
const rows = OPS.map((op) => {
  const [pl, pe, un, sv] = VIEWS.map((v) => m.get(`${op}|${v}`));
  const label = op === 'federate' ? 'federate (in process, uncached)' : `search ${op}`;
  return `| ${label} | ${cell(pl)} | ${cell(un)} | ${cell(pe)} | ${ratio(pe, un)} | ${ratio(pe, pl)} | ${cell(sv)} | ${f1(pe?.results ?? 0)} |`;
});
const loadRange = `${f1(Math.min(...loads))}-${f1(Math.max(...loads))}`;
const md = `## Permission-aware retrieval (\`npm run bench -- acl\`)

${startLine}
Command: \`ACL_BENCH_CHUNKS=${CHUNKS} ACL_BENCH_QUERIES=${QUERIES} npm run bench -- acl\`. Load average (1 min) during the run ${loadRange}, at the end ${os
  .loadavg()
  .map(f1)
  .join(' / ')} (the machine is shared: wall times include waiting for CPU; all views run interleaved, so they wait alike). ${(
  (performance.now() - benchStart) /
  60_000
).toFixed(0)} min in all.

Corpus: ${chunkCount} chunks, the shared benchmark corpus of \`scripts/bench-corpus.ts\` (${buildNote}), embedded PGlite on disk, copied
to two temporary data dirs open side by side. In one (*plain*) no document is restricted. In the other ${share.restricted} of ${share.total} documents (${((100 * share.restricted) / Math.max(1, share.total)).toFixed(1)} %) get an ACL naming one of ${GROUPS} groups
(one UPDATE of \`documents.acl\`; the generated \`acl_principals\`, its GIN index and the chunks' copy follow; ${restrictS.toFixed(1)} s with ANALYZE), and a person is
made a member of ${PERSON_GROUPS} of them (\`identity_memberships\`): they read ${share.visible} documents (${((100 * share.visible) / Math.max(1, share.total)).toFixed(1)} %).
${qs.length} dataset queries (cranfield, coffee; ${Math.min(WARMUP, qs.length)} more as warm-up), top 10; search with the query vector precomputed; the federated query in
process (\`runFederatedQuery\`, result cache off, query embedded by the built-in model). The person's view is resolved
from the identity directory inside each timed request (\`resolveView\`), as a request does. Each query runs in the four
views back to back, the order rotated per query: *plain* (the person in the tenant with no ACL: the probe of
\`documents_restricted_idx\` finds none and the query runs unfiltered), *unfiltered* (every document of the ACL tenant:
the admin-bypass shape, no ACL predicate), *person* (the ACL predicate \`acl_principals && $reader\` in the candidate SQL)
and *service* (public documents only). Cells: p50 / p99 ms wall (p50 / p99 CPU ms of this process per query: PGlite runs in
it, so CPU is the query's own work, less sensitive to the machine's load than wall time); ratios likewise (wall (CPU)).

| query | no ACL in tenant (plain) | ACL on, unfiltered | ACL on, person (20 groups) | person ÷ unfiltered p50 / p99 | person ÷ plain p50 / p99 | ACL on, service view | person: results |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Target (issue 24): the person's p50 and p99 within 1.3× of the same queries without ACL filtering (both baselines).
`;
await writeBenchSection('acl', md);
process.stdout.write(md);
