// `npm run bench -- connectors`: GitHub full / incremental / unchanged syncs through the real engine, the
// official Octokit client and the wire-format fake, into an in-memory PGlite (full-text indexing included;
// embedding jobs are queued, not run); then a wiki's syncs (isomorphic-git against the real git http-backend).

import { connectorWorker, timedSync } from '../test/connectors/support.ts';
import { seededRepo, startFakeGitHub } from '../test/fakes/github.ts';
import { createTestApp } from '../test/support/app.ts';
import { machineLine, writeBenchSection } from './report.ts';

const ISSUES = Number(process.env.BENCH_CONNECTOR_ISSUES ?? 2000);
const gh = await startFakeGitHub({ repos: [seededRepo('bench/big', ISSUES)] });
const t = await createTestApp({ env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ github: gh.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
const worker = connectorWorker(t);
const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'github', display_name: 'bench', credentials: { access_token: gh.token } } });
const id = created.json().connector_id as string;
await worker.drain();

type Timed = { ms: number; cpuMs: number; run: Record<string, number>; requests: number };
async function timedOn(g: typeof gh, app: typeof t, w: typeof worker, connectorId: string, full: boolean): Promise<Timed> {
  const before = g.requests.length;
  const cpu = process.cpuUsage();
  const { ms, run } = await timedSync(app, w, connectorId, full);
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, run, requests: g.requests.length - before };
}
const timed = (full: boolean) => timedOn(gh, t, worker, id, full);

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

// A wiki of WIKI_PAGES pages built in 10 commits, in a repository with no issues and no Markdown files.
const WIKI_PAGES = Number(process.env.BENCH_WIKI_PAGES ?? 300);
const wgh = await startFakeGitHub({ repos: [{ ...seededRepo('bench/wiki', 0), files: new Map(), discussions: [] }] });
for (let c = 0; c < 10; c++) {
  const pages: Record<string, string> = {};
  for (let n = c; n < WIKI_PAGES; n += 10) {
    pages[`Page-${n}.md`] = `# Page ${n}\n\n${'Operations runbook text about deployments, alerts and on-call rotation. '.repeat(20)}${n}`;
  }
  wgh.wiki('bench/wiki', pages, { author: `author${c}`, date: new Date(Date.UTC(2025, 0, 1 + c)).toISOString() });
}
const wt = await createTestApp({ env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ github: wgh.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
const wworker = connectorWorker(wt);
const wcreated = await wt.app.inject({ method: 'POST', url: '/v1/connectors', headers: wt.admin, payload: { connector_type: 'github', display_name: 'wiki', credentials: { access_token: wgh.token } } });
const wid = wcreated.json().connector_id as string;
await wworker.drain();
const wikiFull = await timedOn(wgh, wt, wworker, wid, true);
const wikiSame = await timedOn(wgh, wt, wworker, wid, false);
wgh.wiki('bench/wiki', { 'Page-7.md': 'Page 7 was rewritten.' }, { author: 'editor' });
const wikiEdit = await timedOn(wgh, wt, wworker, wid, false);
await wt.close();
await wgh.close();

const docs = full.run.added ?? 0;
const row = (name: string, r: Timed) =>
  `| ${name} | ${(r.ms / 1000).toFixed(2)} | ${(r.cpuMs / 1000).toFixed(2)} | ${r.requests} | ${r.run.added} / ${r.run.updated} / ${r.run.unchanged} / ${r.run.deleted} | ${r.run.batches} |`;
const md = `## Connectors: GitHub sync (fake GitHub, Octokit, PGlite in memory)

${machineLine()}

Command: \`npm run bench -- connectors\` (\`BENCH_CONNECTOR_ISSUES=${ISSUES}\`). One repository with ${ISSUES} issues/PRs, 2 Markdown files and
one discussion; every page is committed and checkpointed before the next is read. Full-text indexing is included;
embedding jobs are queued but not run here (see the embeddings benchmark).

| sync | seconds | CPU s | vendor requests | added / updated / unchanged / deleted | pages |
|---|---|---|---|---|---|
${row('full (first)', full)}
${row('full (nothing changed)', unchanged)}
${row('incremental (1 issue changed)', incremental)}

First full sync: ${(docs / (full.ms / 1000)).toFixed(0)} documents/s. CPU s = this process (engine, Octokit, PGlite and
the fake server), user + system.

### Wiki pages

A wiki of ${WIKI_PAGES} Markdown pages (~1.5 KB each) built in 10 commits, read with isomorphic-git (depth-50 clone into a
temp dir) from the fake, which runs the real \`git http-backend\` (its CPU is in child processes, not in CPU s); the
repository has no issues or files. Vendor requests include the git ones (\`info/refs\`, \`git-upload-pack\`).

| sync | seconds | CPU s | vendor requests | added / updated / unchanged / deleted | pages |
|---|---|---|---|---|---|
${row('full (first)', wikiFull)}
${row('incremental (wiki unchanged: HEAD check only)', wikiSame)}
${row('incremental (1 page edited)', wikiEdit)}`;
await writeBenchSection('connectors', md);
console.log(md);
