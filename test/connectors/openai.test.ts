import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openaiRetryAfterMs, parseResetDuration } from '../../src/connectors/openai/client.ts';
import { compact } from '../../src/connectors/openai/map.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { addDays, dayStart, type FakeOpenAI, seedOpenAI, startFakeOpenAI } from '../fakes/openai.ts';
import { expectedOpenAIIds } from './fixtures/openai.ts';
import { type KindHarness, kindHarness } from './support.ts';

const END = '2026-11-21';
const d = (n: number) => addDays(END, n);

interface UsageRow {
  record_id: string;
  kind: string;
  day: string;
  workspace: string | null;
  project: string | null;
  user: string | null;
  api_key: string | null;
  model: string | null;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  metadata: Record<string, unknown>;
}

describe('openai connector against the fake OpenAI Admin API', () => {
  let h: KindHarness;
  let oa: FakeOpenAI;
  let id: string;
  before(async () => {
    // Two objects a list page, four daily buckets a usage page: every listing and report is paged.
    oa = await startFakeOpenAI(seedOpenAI(END), { listCap: 2, bucketCap: 4 });
    h = await kindHarness('openai', oa.url, { clock: fixedClock(`${END}T12:00:00Z`) });
  });
  after(async () => {
    await h.close();
    await oa.close();
  });

  const usageRows = async (cid = id): Promise<UsageRow[]> =>
    (await h.t.db.query<UsageRow>('SELECT record_id, kind, day::text AS day, workspace, project, "user", api_key, model, requests, input_tokens, output_tokens, cost_usd, metadata FROM ai_usage WHERE connector_id = $1 ORDER BY record_id', [cid])).rows.map((r) => ({
      ...r,
      requests: Number(r.requests),
      input_tokens: Number(r.input_tokens),
      output_tokens: Number(r.output_tokens),
      cost_usd: Number(r.cost_usd),
    }));
  /** One row per non-zero usage result and per cost result in the fake, over the days read. */
  const expectedRecordCount = (from: string) =>
    Object.values(oa.data.usage).reduce((n, rows) => n + rows.filter((u) => u.day >= from && Object.values(u.counters).some((v) => v !== 0)).length, 0) + oa.data.costs.filter((c) => c.day >= from).length;

  it('refuses unknown settings, a bad organization id and an out-of-range look-back (400 naming the field)', async () => {
    for (const [settings, field] of [
      [{ workspace: 'x' }, /settings.*workspace/],
      [{ organization: 'acme' }, /settings\.organization/],
      [{ lookback_days: 0 }, /settings\.lookback_days/],
      [{ usage_types: ['chat'] }, /settings\.usage_types/],
    ] as const) {
      const r = await h.create({ credentials: { api_key: oa.adminKey }, settings });
      assert.equal(r.statusCode, 400, r.body);
      assert.match(r.json().error.message, field, r.body);
    }
  });

  it('a project key is refused at validation with a message naming the Admin API key needed', async () => {
    const r = await h.create({ credentials: { api_key: oa.projectKey } });
    assert.equal(r.statusCode, 201, r.body);
    await h.worker.drain();
    const c = await h.get(r.json().connector_id);
    assert.equal(c.status, 'error');
    assert.match(String(c.status_reason), /OpenAI answered 403 .*insufficient permissions.*Admin API key \(sk-admin-…\) from Organization settings → Admin keys/);
    assert.ok(!String(c.status_reason).includes(oa.projectKey), 'the key itself is never in the message');
  });

  it('validates an admin key (account: the organization) and a full sync stores the directory, audit events and daily usage documents', async () => {
    const r = await h.create({ credentials: { api_key: oa.adminKey }, settings: { lookback_days: 5 } });
    assert.equal(r.statusCode, 201, r.body);
    id = r.json().connector_id;
    await h.worker.drain();
    const connected = await h.get(id);
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(String(connected.status_reason), /OpenAI organization org-acme123/);
    const c = await h.sync(id, true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await h.stored(id), expectedOpenAIIds(oa.data));
    assert.ok(oa.fake.requests.every((x) => x.token === oa.adminKey || x.token === oa.projectKey));
    // Usage reports: a 5-day look-back from today (6 daily buckets), grouped by every dimension, paged by next_page.
    const completions = oa.usageQueries.filter((q) => q.path === '/organization/usage/completions');
    assert.equal(completions.length, 2, 'six buckets in pages of four');
    const q0 = completions[0]?.query;
    assert.equal(q0?.get('start_time'), String(dayStart(d(-5))));
    assert.equal(q0?.get('end_time'), String(dayStart(END) + 12 * 3600));
    assert.equal(q0?.get('bucket_width'), '1d');
    assert.deepEqual(q0?.getAll('group_by'), ['project_id', 'user_id', 'api_key_id', 'model']);
    assert.ok(completions[1]?.query.get('page'), 'the second page by next_page');
    assert.deepEqual(oa.usageQueries.find((q) => q.path === '/organization/costs')?.query.getAll('group_by'), ['project_id', 'line_item', 'api_key_id']);
    assert.deepEqual(oa.usageQueries.find((q) => q.path === '/organization/usage/vector_stores')?.query.getAll('group_by'), ['project_id']);
    // Archived projects' keys are not listed (they no longer work).
    assert.equal(oa.fake.requestsTo('/organization/projects/proj_old/api_keys').length, 0);
  });

  it('stores every usage and cost bucket once in ai_usage: user by email, project by name, key by id, tokens, requests, dollars', async () => {
    const rows = await usageRows();
    assert.equal(rows.length, expectedRecordCount(d(-5)));
    const ada = rows.find((r) => r.record_id === `usage:completions:${d(-1)}:proj_growth:user-ada:key_growth1:gpt-4.1`);
    assert.ok(ada, JSON.stringify(rows.map((r) => r.record_id)));
    assert.deepEqual(
      [ada.kind, ada.day, ada.workspace, ada.project, ada.user, ada.api_key, ada.model, ada.requests, ada.input_tokens, ada.output_tokens],
      ['usage', d(-1), 'org-acme123', 'Growth', 'ada@acme.test', 'key_growth1', 'gpt-4.1', 700, 1_000_000, 250_000],
    );
    assert.equal(ada.metadata.api_key_redacted, 'sk-proj-...abcd');
    assert.equal(ada.metadata.input_cached_tokens, 150_000);
    const svc = rows.find((r) => r.record_id === `usage:completions:${d(-1)}:proj_growth:-:key_growth2:gpt-4.1-mini`);
    assert.equal(svc?.user, null, 'a service account key has no user');
    const cost = rows.find((r) => r.record_id === `cost:${d(-1)}:proj_growth:key_growth1:gpt-4.1, input`);
    assert.deepEqual([cost?.kind, cost?.cost_usd, cost?.project, cost?.api_key, cost?.metadata.line_item], ['cost', 2.4, 'Growth', 'key_growth1', 'gpt-4.1, input']);
    assert.ok(rows.some((r) => r.record_id === `usage:vector_stores:${d(-1)}:proj_research:-:-:-` && r.metadata.usage_bytes === 1_048_576));
    // Never a secret: only ids and OpenAI's redacted forms.
    assert.ok(!JSON.stringify(rows).includes('sk-admin'));
  });

  it('maps a day of one project and key to one searchable document: usage by model and user, spend by line item', async () => {
    const doc = await h.doc(id, `usage:${d(-1)}:proj_growth:key_growth1`);
    assert.ok(doc);
    assert.equal(doc.title, `Usage ${d(-1)}, project Growth, key sk-proj-...abcd, gpt-4.1: 1.2 M input tokens (150 k cached), 300 k output tokens, 812 requests, $3.10`);
    const content = String(doc.content);
    for (const part of [
      'API key: Growth backend sk-proj-...abcd (key_growth1), owner ada@acme.test',
      '- gpt-4.1: 1.2 M input tokens (150 k cached), 300 k output tokens, 812 requests',
      '- ada@acme.test: 1 M input tokens (150 k cached), 250 k output tokens, 700 requests',
      '- linus@acme.test: 200 k input tokens, 50 k output tokens, 112 requests',
      '- gpt-4.1, input: $2.40',
      '- gpt-4.1, output: $0.70',
    ]) {
      assert.ok(content.includes(part), `${part} in\n${content}`);
    }
    assert.equal(doc.url, 'https://platform.openai.com/usage');
    assert.equal(doc.author, 'ada@acme.test');
    assert.equal(doc.document_type, 'openai_usage');
    assert.equal(new Date(String(doc.created_at)).toISOString(), `${d(-1)}T00:00:00.000Z`);
    // The core makes every llm_providers document readable only with ai_usage:read (or admin): the kind sets no ACL.
    assert.deepEqual(doc.acl, { groups: ['atrium:ai_usage'] });
    const research = await h.doc(id, `usage:${d(-1)}:proj_research:key_research1`);
    assert.match(String(research?.title), /project Research, key sk-proj-\.\.\.r3s4, o3 \+ 1 more: /);
    assert.match(String(research?.content), /- text-embedding-3-small \(embeddings\): 80 k input tokens, 20 requests/);
    const storage = await h.doc(id, `usage:${d(-1)}:proj_research:-`);
    assert.match(String(storage?.title), /project Research, no API key, all models \(vector stores\): 1 M bytes stored, 0 requests, \$0\.10$/);
  });

  it('maps audit events (type, actor, time, target), users, projects, redacted keys and service accounts', async () => {
    const audit = await h.doc(id, 'audit:audit_log-002');
    assert.equal(audit?.title, `api_key.created by grace@acme.test from 198.51.100.4 — ${d(-2)} 02:00 UTC`);
    assert.match(String(audit?.content), /Event: api_key\.created\nActor: grace@acme\.test from 198\.51\.100\.4\nWhen: .*\nProject: Research\nTarget: sk-proj-\.\.\.r3s4 \(key_research1\)\ndata: \{"scopes":\["api\.model\.request"\]\}/);
    assert.equal(audit?.author, 'grace@acme.test');
    assert.equal(audit?.document_type, 'openai_audit_event');
    const key = await h.doc(id, 'api_key:key_growth2');
    assert.equal(key?.title, 'OpenAI API key Batch jobs (sk-svcacct-...wxyz)');
    assert.match(String(key?.content), /Project: Growth\nOwner: service account growth-bot \(service_account\)/);
    const user = await h.doc(id, 'user:user-ada');
    assert.equal(user?.title, 'OpenAI user Ada Lovelace (ada@acme.test)');
    assert.equal(user?.author, 'ada@acme.test');
    assert.match(String((await h.doc(id, 'project:proj_old'))?.content), /Status: archived/);
    assert.match(String((await h.doc(id, 'service_account:svc_research_ci'))?.content), /Project: Research\nRole: member/);
    const accounts = await h.t.db.query<{ account_id: string; email: string | null; display_name: string | null }>('SELECT account_id, email, display_name FROM identity_accounts WHERE connector_id = $1 ORDER BY account_id', [id]);
    assert.ok(accounts.rows.some((a) => a.account_id === 'openai:user-ada' && a.email === 'ada@acme.test'), JSON.stringify(accounts.rows));
    assert.ok(accounts.rows.some((a) => a.account_id === 'openai:svc_research_ci' && a.email === null && a.display_name === 'research-ci'));
    const none = await h.t.db.query<{ n: string }>("SELECT count(*) AS n FROM documents WHERE source_node = $1 AND (content LIKE '%sk-admin%' OR content LIKE $2)", [id, `%${oa.adminKey}%`]);
    assert.equal(Number(none.rows[0]?.n), 0);
  });

  it('an incremental sync re-reads the overlap days: revised buckets replace their rows (no duplicates), new audit events are added', async () => {
    const before = await usageRows();
    const cursor = (await h.t.db.query<{ sync_cursor: { through: string; audit_since: number } }>('SELECT sync_cursor FROM connectors WHERE id = $1', [id])).rows[0]?.sync_cursor;
    assert.deepEqual(cursor, { through: d(-1), audit_since: dayStart(d(-1)) + 600 });
    // OpenAI revises yesterday's bucket: Ada made 100 more requests.
    const row = oa.data.usage.completions.find((u) => u.day === d(-1) && u.user_id === 'user-ada');
    assert.ok(row);
    row.counters.num_model_requests = (row.counters.num_model_requests ?? 0) + 100;
    const event = oa.addAudit('project.archived', { id: 'proj_old' });
    oa.usageQueries.length = 0;
    const c = await h.sync(id, false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0] as Record<string, number>;
    assert.deepEqual([run.added, run.updated, run.deleted], [1, 1, 0], JSON.stringify(run));
    // overlap_days 2: the last two complete days (d-2, d-1) again, then today.
    assert.equal(oa.usageQueries[0]?.query.get('start_time'), String(dayStart(d(-2))));
    const audits = oa.fake.requests.filter((x) => x.path === '/organization/audit_logs').at(-1);
    assert.equal(audits?.query['effective_at[gte]'], String(cursor?.audit_since));
    const after = await usageRows();
    assert.equal(after.length, before.length, 'the overlap replaced its rows');
    assert.deepEqual(
      after.map((r) => r.record_id),
      before.map((r) => r.record_id),
    );
    assert.equal(after.find((r) => r.record_id === `usage:completions:${d(-1)}:proj_growth:user-ada:key_growth1:gpt-4.1`)?.requests, 800);
    assert.match(String((await h.doc(id, `usage:${d(-1)}:proj_growth:key_growth1`))?.title), /912 requests, \$3\.10$/);
    assert.ok(await h.doc(id, `audit:${event.id}`));
    // Once more with nothing changed: the same rows, nothing added.
    const again = await h.sync(id, false);
    assert.deepEqual([again.sync_runs[0]?.added, again.sync_runs[0]?.updated], [0, 0]);
    assert.equal((await usageRows()).length, before.length);
  });

  it('an incremental sync deletes a usage document OpenAI no longer reports for a re-read day, and removed keys', async () => {
    const i = oa.data.usage.completions.findIndex((u) => u.day === d(-1) && u.api_key_id === 'key_growth2');
    oa.data.usage.completions.splice(i, 1);
    const keys = oa.data.keys.proj_growth ?? [];
    keys.splice(
      keys.findIndex((k) => k.id === 'key_growth2'),
      1,
    );
    const c = await h.sync(id, false);
    assert.equal(c.sync_runs[0]?.deleted, 2, JSON.stringify(c.sync_runs[0]));
    assert.equal(await h.doc(id, `usage:${d(-1)}:proj_growth:key_growth2`), undefined);
    assert.equal(await h.doc(id, 'api_key:key_growth2'), undefined);
    assert.deepEqual(await h.stored(id), expectedOpenAIIds(oa.data));
  });

  it('a vendor 5xx fails the attempt; the retry resumes and completes', async () => {
    oa.fake.failNext(1, 500, (req) => req.path === '/organization/costs');
    const r = await h.t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: h.t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await h.worker.drain();
    const job = (await h.t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /OpenAI answered HTTP 500.*server had an error/);
    await h.t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await h.worker.drain();
    const c = await h.get(id);
    assert.equal(c.sync_runs[0]?.status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual(await h.stored(id), expectedOpenAIIds(oa.data));
  });

  it('a revoked admin key puts the connector in error naming the key needed', async () => {
    oa.fake.revoke(oa.adminKey);
    try {
      const c = await h.sync(id, false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(String(c.status_reason), /rejected the credentials: OpenAI answered 401 .*invalid_api_key.*Admin API key \(sk-admin-…\)/);
    } finally {
      oa.fake.allow(oa.adminKey);
    }
  });

  it("reads OpenAI's rate-limit headers: retry-after-ms, Retry-After, else x-ratelimit-reset-requests", () => {
    const h1 = (m: Record<string, string>) => (n: string) => m[n] ?? null;
    assert.equal(openaiRetryAfterMs(h1({ 'retry-after-ms': '250', 'retry-after': '9' })), 250);
    assert.equal(openaiRetryAfterMs(h1({ 'retry-after': '2' })), 2000);
    assert.equal(openaiRetryAfterMs(h1({ 'x-ratelimit-reset-requests': '6m0s' })), 360_000);
    assert.equal(openaiRetryAfterMs(h1({})), null);
    assert.equal(parseResetDuration('1.5s'), 1500);
    assert.equal(parseResetDuration('20ms'), 20);
    assert.equal(parseResetDuration('soon'), null);
    assert.deepEqual([compact(812), compact(12_345), compact(1_234_567)], ['812', '12.3 k', '1.2 M']);
  });
});
