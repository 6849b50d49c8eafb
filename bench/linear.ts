// `npm run bench -- linear`: Linear full / unchanged full / incremental syncs through the real engine, the official
// @linear/sdk client and the graphql-js fake of Linear's API, into an in-memory PGlite (full-text indexing included;
// embedding jobs are queued, not run). The connector's 100 requests/minute bucket stays in force, so the issue count
// is kept where the three syncs fit in one minute's budget.

import { connectorWorker, timedSync } from '../test/connectors/support.ts';
import { seedLinear, startFakeLinear } from '../test/fakes/linear.ts';
import { createTestApp } from '../test/support/app.ts';
import { machineLine, writeBenchSection } from './report.ts';

const PER_TEAM = Number(process.env.BENCH_LINEAR_ISSUES_PER_TEAM ?? 400);
const lin = await startFakeLinear(seedLinear({ issuesPerTeam: PER_TEAM }));
const t = await createTestApp({ env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ linear: lin.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
const worker = connectorWorker(t);
const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'linear', display_name: 'bench', credentials: { api_key: lin.apiKey } } });
const id = created.json().connector_id as string;
await worker.drain();

async function timed(full: boolean): Promise<{ ms: number; run: Record<string, number>; requests: number }> {
  const before = lin.calls.length;
  const { ms, run } = await timedSync(t, worker, id, full);
  return { ms, run, requests: lin.calls.length - before };
}

const full = await timed(true);
const unchanged = await timed(true);
const issue = lin.data.issues[0];
if (issue) {
  issue.description = 'changed for the incremental bench';
  issue.updatedAt = lin.tick();
}
const incremental = await timed(false);
await t.close();
await lin.close();

const docs = full.run.added ?? 0;
const row = (name: string, r: typeof full) => `| ${name} | ${(r.ms / 1000).toFixed(2)} | ${r.requests} | ${r.run.added} / ${r.run.updated} / ${r.run.unchanged} / ${r.run.deleted} |`;
const md = `## Connectors: Linear sync (fake Linear GraphQL, @linear/sdk, PGlite in memory)

${machineLine()}

Command: \`npm run bench -- linear\` (\`BENCH_LINEAR_ISSUES_PER_TEAM=${PER_TEAM}\`). Two teams with ${PER_TEAM} issues each (one
archived per team), their projects, cycles, documents, milestones and comments (attachments off, the default);
pages of 50, each committed and checkpointed before the next is read. Requests include the credential check and
the team lookup. Full-text indexing included; embedding jobs queued, not run.

| sync | seconds | vendor requests | added / updated / unchanged / deleted |
|---|---|---|---|
${row('full (first)', full)}
${row('full (nothing changed)', unchanged)}
${row('incremental (1 issue changed)', incremental)}

First full sync: ${(docs / (full.ms / 1000)).toFixed(0)} documents/s.`;
await writeBenchSection('linear', md);
console.log(md);
