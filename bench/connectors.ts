// `npm run bench -- connectors`: GitHub full / incremental / unchanged syncs through the real engine, the
// official Octokit client and the wire-format fake, into an in-memory PGlite (full-text indexing included;
// embedding jobs are queued, not run).
import { seededRepo, startFakeGitHub } from '../test/fakes/github.ts';
import { createTestApp } from '../test/support/app.ts';
import { machineLine, writeBenchSection } from './report.ts';
import { connectorWorker, timedSync } from '../test/connectors/support.ts';

const ISSUES = Number(process.env.BENCH_CONNECTOR_ISSUES ?? 2000);
const gh = await startFakeGitHub({ repos: [seededRepo('bench/big', ISSUES)] });
const t = await createTestApp({ env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ github: gh.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
const worker = connectorWorker(t);
const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'github', display_name: 'bench', credentials: { access_token: gh.token } } });
const id = created.json().connector_id as string;
await worker.drain();

async function timed(full: boolean): Promise<{ ms: number; run: Record<string, number>; requests: number }> {
  const before = gh.requests.length;
  const { ms, run } = await timedSync(t, worker, id, full);
  return { ms, run, requests: gh.requests.length - before };
}

const full = await timed(true);
const unchanged = await timed(true);
const issue = gh.repos[0]?.issues[0];
if (issue) {
  issue.body = 'changed for the incremental bench';
  issue.updated_at = '2030-01-01T00:00:00Z';
}
const incremental = await timed(false);
await t.close();
await gh.close();

const docs = full.run.added ?? 0;
const row = (name: string, r: typeof full) =>
  `| ${name} | ${(r.ms / 1000).toFixed(2)} | ${r.requests} | ${r.run.added} / ${r.run.updated} / ${r.run.unchanged} / ${r.run.deleted} | ${r.run.batches} |`;
const md = `## Connectors: GitHub sync (fake GitHub, Octokit, PGlite in memory)

${machineLine()}

Command: \`npm run bench -- connectors\` (\`BENCH_CONNECTOR_ISSUES=${ISSUES}\`). One repository with ${ISSUES} issues/PRs, 2 Markdown files and
one discussion; every page is committed and checkpointed before the next is read. Full-text indexing is included;
embedding jobs are queued but not run here (see the embeddings benchmark).

| sync | seconds | vendor requests | added / updated / unchanged / deleted | pages |
|---|---|---|---|---|
${row('full (first)', full)}
${row('full (nothing changed)', unchanged)}
${row('incremental (1 issue changed)', incremental)}

First full sync: ${(docs / (full.ms / 1000)).toFixed(0)} documents/s.`;
await writeBenchSection('connectors', md);
console.log(md);
