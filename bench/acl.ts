// `npm run bench -- acl`: what permission-aware retrieval costs (docs/permissions.md). On the shared benchmark corpus
// (scripts/bench-corpus.ts, ACL_BENCH_CHUNKS chunks, default 100k), copied to a temporary data dir because the bench
// rewrites ACLs: search (lexical, vector, hybrid; query vector precomputed as bench/search.ts does) and the
// federated query (uncached, in process), p50/p99 wall, for
//   1. the tenant before any document is restricted (the reader's view is probed once and the filter skipped);
//   2. after 30 % of the documents are restricted to one of 100 groups, for a person in 20 of them (their view
//      resolved per request from the identity directory, as a request does), interleaved query by query with the
//      same query unfiltered (every document, the admin-bypass shape) and with a service key's view (public only).
// The queries are the dataset queries bench/search.ts uses (cranfield, coffee).
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
import { createRuntime } from '../src/main/runtime.ts';
import { createLogger } from '../src/platform/log.ts';
import { machineLine, writeBenchSection } from './report.ts';

const CHUNKS = Number(process.env.ACL_BENCH_CHUNKS ?? 100_000);
const QUERIES = Number(process.env.ACL_BENCH_QUERIES ?? 100);
const WARMUP = Number(process.env.ACL_BENCH_WARMUP ?? 10);
const RESTRICTED_PERCENT = 30;
const GROUPS = 100;
const PERSON_GROUPS = 20;
const DATA = path.resolve(import.meta.dirname, '../../shared/data');
const log = createLogger({ level: 'silent' });
const startLoad = os.loadavg()[0] ?? 0;
const benchStart = performance.now();

const corpus = await openBenchCorpus({ chunks: CHUNKS, sources: 5 });
const buildNote = corpus.buildNote;
const corpusDir = corpus.dataDir;
await corpus.close();
const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-bench-acl-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
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
const deps = rt.deps;
const db = deps.db;
await db.query('ANALYZE');
const chunkCount = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks')).rows[0]?.n ?? 0;

const queries: string[] = [];
for (const d of ['cranfield', 'coffee-stackexchange']) queries.push(...(await loadBeir(path.join(DATA, d))).queries.map((q) => q.text));
const qs = queries.slice(0, QUERIES);
const provider = deps.embeddings?.get(BENCH_MODEL);
if (!provider) throw new Error(`${BENCH_MODEL} is not available`);
const qvecs = await provider.embed(qs);

const EMAIL = 'reader@bench.test';
const person: Principal = { kind: 'api_key', id: 'bench-reader', tenantId: 'default', userId: 'reader', email: EMAIL, permissions: new Set(['query']) };
const service: Principal = { kind: 'api_key', id: 'bench-service', tenantId: 'default', userId: 'service', email: null, permissions: new Set(['query']) };

type ViewName = 'person' | 'unfiltered' | 'service';
/** How a request gets its view: a person's is looked up in the identity directory each time, as a request does. */
const viewOf = async (v: ViewName): Promise<Viewer> =>
  v === 'unfiltered' ? ALL_DOCUMENTS : v === 'service' ? EVERYONE : (await resolveView(deps, person)).viewer;

const MODES = ['lexical', 'vector', 'hybrid'] as const;
type Op = (typeof MODES)[number] | 'federate';
const OPS: Op[] = [...MODES, 'federate'];

async function once(op: Op, view: ViewName, i: number): Promise<{ ms: number; n: number }> {
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
  return { ms: performance.now() - s, n };
}

/** Per op and view: latencies (ms) and the mean number of results, running the views interleaved query by query. */
async function phase(views: readonly ViewName[]): Promise<Map<string, { lat: number[]; results: number }>> {
  const out = new Map<string, { lat: number[]; results: number }>();
  for (const op of OPS) {
    process.stderr.write(`acl bench: ${op} (${views.join(', ')}), ${((performance.now() - benchStart) / 1000).toFixed(0)} s\n`);
    for (let i = 0; i < Math.min(WARMUP, qs.length); i++) for (const v of views) await once(op, v, i); // warm-up
    for (let i = 0; i < qs.length; i++) {
      for (const v of views) {
        const r = await once(op, v, i);
        const key = `${op}|${v}`;
        const e = out.get(key) ?? { lat: [], results: 0 };
        e.lat.push(r.ms);
        e.results += r.n / qs.length;
        out.set(key, e);
      }
    }
  }
  return out;
}

// 1. No document restricted yet: what every tenant without ACLs runs.
const before = await phase(['person']);

// 2. 30 % of documents restricted to one of 100 groups; the reader is in 20 of them.
const t0 = performance.now();
await db.query(
  `UPDATE documents SET acl = jsonb_build_object('groups', jsonb_build_array('bench:g' || (abs(hashtext(id || 'g')) % ${GROUPS})))
   WHERE tenant_id = 'default' AND abs(hashtext(id)) % 100 < ${RESTRICTED_PERCENT}`,
);
await replaceGroupMembers(
  db,
  'default',
  'manual',
  Array.from({ length: PERSON_GROUPS }, (_, g) => ({ group_id: `bench:g${g}`, members: [EMAIL] })),
);
await db.query('ANALYZE');
const restrictS = (performance.now() - t0) / 1000;
const reader = await viewOf('person');
const readerPrincipals = 'principals' in reader ? [...reader.principals] : [];
const share = (
  await db.query<{ restricted: number; visible: number; total: number }>(
    `SELECT count(*) FILTER (WHERE NOT acl_principals && ARRAY['*','public']::text[])::int AS restricted,
            count(*) FILTER (WHERE acl_principals && $1::text[])::int AS visible, count(*)::int AS total FROM documents WHERE tenant_id = 'default'`,
    [readerPrincipals],
  )
).rows[0] ?? { restricted: 0, visible: 0, total: 0 };
const after = await phase(['person', 'unfiltered', 'service']);
await rt.close();

const p = (xs: number[] | undefined, q: number) => percentile(xs ?? [], q).toFixed(1);
const ratio = (a: number[] | undefined, b: number[] | undefined, q: number) => (percentile(a ?? [], q) / Math.max(1e-9, percentile(b ?? [], q))).toFixed(2);
const rows = OPS.map((op) => {
  const b = before.get(`${op}|person`)?.lat;
  const pe = after.get(`${op}|person`)?.lat;
  const un = after.get(`${op}|unfiltered`)?.lat;
  const sv = after.get(`${op}|service`)?.lat;
  const label = op === 'federate' ? 'federate (in process, uncached)' : `search ${op}`;
  return `| ${label} | ${p(b, 50)} / ${p(b, 99)} | ${p(un, 50)} / ${p(un, 99)} | ${p(pe, 50)} / ${p(pe, 99)} | ${ratio(pe, un, 50)} / ${ratio(pe, un, 99)} | ${ratio(pe, b, 50)} / ${ratio(pe, b, 99)} | ${p(sv, 50)} / ${p(sv, 99)} | ${(after.get(`${op}|person`)?.results ?? 0).toFixed(1)} |`;
});
const endLoad = os.loadavg().map((x) => x.toFixed(1)).join(' / ');
const md = `## Permission-aware retrieval (\`npm run bench -- acl\`)

${machineLine()}
Command: \`ACL_BENCH_CHUNKS=${CHUNKS} ACL_BENCH_QUERIES=${QUERIES} npm run bench -- acl\`. Load average at the start ${startLoad.toFixed(1)}, at the end ${endLoad} (the machine is shared: wall times include waiting for CPU).

Corpus: ${chunkCount} chunks, the shared benchmark corpus of \`scripts/bench-corpus.ts\` (${buildNote}), embedded PGlite on disk, copied
to a temporary data dir. Then ${share.restricted} of ${share.total} documents (${((100 * share.restricted) / Math.max(1, share.total)).toFixed(1)} %) get an ACL naming one of ${GROUPS} groups
(one UPDATE of \`documents.acl\`, the generated \`acl_principals\` and its GIN index follow; ${restrictS.toFixed(1)} s with ANALYZE), and a person is
made a member of ${PERSON_GROUPS} of them (\`identity_memberships\`): they read ${share.visible} documents (${((100 * share.visible) / Math.max(1, share.total)).toFixed(1)} %).
${qs.length} dataset queries (cranfield, coffee), top 10; search with the query vector precomputed; the federated query in
process (\`runFederatedQuery\`, result cache off, query embedded by the built-in model). The person's view is resolved
from the identity directory inside each timed request (\`resolveView\`: one round trip), as a request does.
Columns are p50 / p99 ms (wall). *No ACL in tenant*: before any document is restricted (the probe of
\`documents_restricted_idx\` finds none and the query runs unfiltered). After restricting, the three views run
interleaved query by query: *unfiltered* (every document: the admin-bypass shape, no ACL predicate), *person*
(the ACL predicate \`acl_principals && $reader\` in the candidate SQL) and *service* (public documents only).

| query | no ACL in tenant | ACL on, unfiltered | ACL on, person (20 groups) | person ÷ unfiltered | person ÷ no-ACL tenant | ACL on, service view | person: results |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Target (issue 24): the person's p50 and p99 within 1.3× of the same queries without ACL filtering.

History: the first run (2026-11-25 08:33, 10 queries, load ~22) had the person at 3.1× (lexical), 30× (vector, 1.8 s), 5.8× (hybrid) and 3.6× (federate) of unfiltered: PGlite's generic plan of the prepared statement guessed 1 % for the ACL predicate and sorted the distances of every visible chunk. The candidate SQL now tests each walked candidate's document (\`chunkPasses\`, src/documents/search/filters.ts) and the filtered lexical path rescores only the first 2k passing candidates; docs/permissions.md has the EXPLAIN findings and what is left.
`;
await writeBenchSection('acl', md);
process.stdout.write(md);
