import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { addDays, type FakeAnthropic, seedAnthropic, startFakeAnthropic, usageCell } from '../fakes/anthropic.ts';
import { type KindHarness, kindHarness } from './support.ts';

describe('anthropic connector against the fake Admin API', () => {
  const today = '2026-11-21';
  const clock = fixedClock(`${today}T10:00:00Z`);
  let fa: FakeAnthropic;
  let h: KindHarness;
  let id: string;
  before(async () => {
    // Two directory items a page: members, keys and workspaces are read over several `after_id` pages.
    fa = await startFakeAnthropic(seedAnthropic(today, 5), { listCap: 2 });
    h = await kindHarness('anthropic', fa.url, { clock });
  });
  after(async () => {
    await h.close();
    await fa.close();
  });

  const d = () => fa.data;
  const usageRows = async () =>
    (
      await h.t.db.query<{ record_id: string; kind: string; day: string; workspace: string | null; user: string | null; api_key: string | null; model: string | null; input_tokens: string; output_tokens: string; cost_usd: string }>(
        "SELECT record_id, kind, to_char(day, 'YYYY-MM-DD') AS day, workspace, \"user\", api_key, model, input_tokens::text, output_tokens::text, cost_usd::text FROM ai_usage WHERE connector_id = $1 ORDER BY record_id",
        [id],
      )
    ).rows;
  const expectedIds = (from: string, to: string) =>
    [
      ...new Set([
        ...d().users.map((u) => `user:${u.id}`),
        ...d().workspaces.map((w) => `workspace:${w.id}`),
        ...d().keys.map((k) => `api_key:${k.id}`),
        ...d().invites.map((i) => `invite:${i.id}`),
        ...d().usage.filter((u) => u.day >= from && u.day < to).map((u) => `usage:${u.day}:${u.workspace_id ?? 'default'}:${u.api_key_id ?? 'none'}:${u.model}`),
        ...d().cost.filter((c) => c.day >= from && c.day < to).map((c) => `cost:${c.day}:${c.workspace_id ?? 'default'}`),
      ]),
    ].sort();

  it('is in the catalogue as an LLM provider taking an API key only', async () => {
    const cat = (await h.t.app.inject({ method: 'GET', url: '/v1/connectors/catalog', headers: h.t.admin })).json();
    const e = cat.connectors.find((c: { connector_type: string }) => c.connector_type === 'anthropic');
    assert.deepEqual([e.category, e.group, e.auth_types], ['llm_provider', 'llm_providers', ['api_key']]);
  });

  it('refuses bad settings with 400 naming the field', async () => {
    const unknown = await h.create({ credentials: { api_key: fa.adminKey }, settings: { lookback: 10 } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings/);
    const bad = await h.create({ credentials: { api_key: fa.adminKey }, settings: { lookback_days: 0 } });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.match(bad.json().error.message, /settings\.lookback_days/);
    const noKey = await h.create({ credentials: {} });
    assert.equal(noKey.statusCode, 400, noKey.body);
    assert.match(noKey.json().error.message, /credentials\.api_key/);
  });

  it('refuses a normal API key with a message naming the Admin key needed, without calling Anthropic', async () => {
    const before = fa.fake.requests.length;
    const c = await h.create({ credentials: { api_key: fa.apiKey } });
    assert.equal(c.statusCode, 201, c.body);
    await h.worker.drain();
    const got = await h.get(c.json().connector_id);
    assert.equal(got.status, 'error');
    assert.match(String(got.status_reason), /Admin API key \(sk-ant-admin…\) from Console → Settings → Admin keys/);
    assert.equal(fa.fake.requests.length, before);
    assert.ok(!String(got.status_reason).includes(fa.apiKey), 'the key is never echoed');
  });

  it('a full sync reads the directory and the last lookback_days of usage and cost; usage buckets land in ai_usage once', async () => {
    const c = await h.create({ credentials: { api_key: fa.adminKey }, settings: { lookback_days: 40 } });
    assert.equal(c.statusCode, 201, c.body);
    id = c.json().connector_id;
    await h.worker.drain();
    const connected = await h.get(id);
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    const s = await h.sync(id, true);
    assert.equal(s.status, 'idle', JSON.stringify(s));
    assert.deepEqual(await h.stored(id), expectedIds(addDays(today, -40), today));

    const usageReq = fa.fake.requestsTo('/v1/organizations/usage_report/messages');
    assert.equal(usageReq[0]?.query.starting_at, '2026-10-12T00:00:00Z');
    assert.equal(usageReq[0]?.query.ending_at, `${today}T00:00:00Z`, 'only complete days: today is still filling');
    assert.equal(usageReq[0]?.query.bucket_width, '1d');
    assert.equal(usageReq[0]?.query.limit, '31');
    assert.equal(usageReq.length, 2, '40 day buckets are two report pages');
    assert.ok(usageReq[1]?.query.page?.startsWith('page_'), 'the second page by next_page');
    assert.ok(fa.fake.requestsTo('/v1/organizations/users').some((r) => r.query.after_id), 'members paged by after_id');
    assert.equal(fa.fake.requestsTo('/v1/organizations/workspaces')[0]?.query.include_archived, 'true');

    const rows = await usageRows();
    assert.equal(rows.filter((r) => r.kind === 'usage').length, d().usage.length, 'one row per usage group and day');
    assert.equal(rows.filter((r) => r.kind === 'cost').length, d().cost.length, 'one row per cost line and day');
    assert.equal(new Set(rows.map((r) => r.record_id)).size, rows.length);
    const prod = rows.find((r) => r.record_id === 'usage:2026-11-20:wrkspc_01Growth:apikey_01Prod:claude-sonnet-4-20250514');
    assert.deepEqual(prod && { ...prod, record_id: undefined }, {
      record_id: undefined,
      kind: 'usage',
      day: '2026-11-20',
      workspace: 'Growth',
      user: 'grace@example.com',
      api_key: 'apikey_01Prod',
      model: 'claude-sonnet-4-20250514',
      input_tokens: '1001000',
      output_tokens: '300000',
      cost_usd: '0',
    });
    const laptop = rows.find((r) => r.record_id === 'usage:2026-11-20:default:apikey_01Laptop:claude-3-5-haiku-20241022');
    assert.equal(laptop?.workspace, 'Default');
    assert.equal(laptop?.user, 'linus@example.com');
    // 301 cents of input + 450 cents of output on 2026-11-20 in Growth; the report's amounts are cents.
    const cost = rows.filter((r) => r.kind === 'cost' && r.day === '2026-11-20' && r.workspace === 'Growth').map((r) => Number(r.cost_usd));
    assert.deepEqual(cost.sort(), [3.01, 4.5]);
  });

  it('maps usage, cost, keys and members to readable documents; keys only by their redacted hint; readable by ai_usage:read only', async () => {
    const u = await h.doc(id, 'usage:2026-11-20:wrkspc_01Growth:apikey_01Prod:claude-sonnet-4-20250514');
    assert.equal(u?.title, 'Usage 2026-11-20, workspace Growth, key sk-ant-api03-R2D...abcd, claude-sonnet-4-20250514: 1.0 M input tokens, 300.0 k output tokens');
    assert.equal(
      u?.content,
      [
        'Anthropic Messages API usage on 2026-11-20 (UTC).',
        'Workspace: Growth (wrkspc_01Growth)',
        'API key: Growth prod, sk-ant-api03-R2D...abcd (apikey_01Prod), created by grace@example.com',
        'Model: claude-sonnet-4-20250514',
        'Input tokens: 1.0 M (uncached 800.8 k, cache reads 150.2 k, cache writes 50.0 k)',
        'Output tokens: 300.0 k',
      ].join('\n'),
    );
    assert.equal(u?.document_type, 'ai_usage');
    assert.equal(u?.author, 'grace@example.com');
    assert.equal(new Date(String(u?.created_at)).toISOString(), '2026-11-20T00:00:00.000Z');
    assert.deepEqual(u?.acl, { groups: ['atrium:ai_usage'] }, 'the core forces the llm_providers ACL');
    const c = await h.doc(id, 'cost:2026-11-20:wrkspc_01Growth');
    assert.equal(c?.title, 'Cost 2026-11-20, workspace Growth: $7.51');
    assert.match(String(c?.content), /- Claude Sonnet 4 Usage - Output Tokens: \$4\.50\n- Claude Sonnet 4 Usage - Input Tokens: \$3\.01/);
    const k = await h.doc(id, 'api_key:apikey_01Prod');
    assert.equal(k?.title, 'Anthropic API key Growth prod (sk-ant-api03-R2D...abcd)');
    assert.match(String(k?.content), /Status: active\nWorkspace: Growth\nCreated: 2026-01-10 by grace@example\.com/);
    const m = await h.doc(id, 'user:user_01Ada');
    assert.equal(m?.title, 'Anthropic member Ada Lovelace <ada@example.com>');
    assert.match(String(m?.content), /Role: admin/);
    assert.match(String((await h.doc(id, 'workspace:wrkspc_01Old'))?.content), /Archived: 2026-04-01/);
    const all = await h.t.db.query<{ content: string; metadata: unknown }>('SELECT content, metadata FROM documents WHERE source_node = $1', [id]);
    for (const row of all.rows) assert.ok(!`${row.content}${JSON.stringify(row.metadata)}`.includes(fa.adminKey), 'the admin key is never stored');
    const accounts = await h.t.db.query<{ account_id: string; email: string }>('SELECT account_id, email FROM identity_accounts WHERE connector_id = $1 ORDER BY email', [id]);
    assert.deepEqual(
      accounts.rows.map((r) => [r.account_id, r.email]),
      [
        ['anthropic:user_01Ada', 'ada@example.com'],
        ['anthropic:user_01Grace', 'grace@example.com'],
        ['anthropic:user_01Linus', 'linus@example.com'],
      ],
    );
  });

  it('an incremental sync re-reads the overlap days: revised buckets replace their rows, nothing is counted twice', async () => {
    const before = await usageRows();
    clock.set('2026-11-22T10:00:00Z');
    // Anthropic revises 2026-11-20 (late usage) and reports 2026-11-21 now that it is complete.
    const revised = d().usage.find((u) => u.day === '2026-11-20' && u.api_key_id === 'apikey_01Prod');
    assert.ok(revised);
    revised.output_tokens = 400_000;
    d().usage.push(usageCell('2026-11-21', 'wrkspc_01Growth', 'apikey_01Prod', 'claude-sonnet-4-20250514', 2_000_000, 500_000));
    const s = await h.sync(id, false);
    assert.equal(s.status, 'idle', JSON.stringify(s));
    const q = fa.fake.requestsTo('/v1/organizations/usage_report/messages').at(-1)?.query;
    assert.equal(q?.starting_at, '2026-11-19T00:00:00Z', 'the overlap: the 2 complete days up to the cursor (2026-11-20) again');
    assert.equal(q?.ending_at, '2026-11-22T00:00:00Z');
    const rows = await usageRows();
    assert.equal(rows.length, before.length + 1, 'one new bucket, the re-read ones replaced');
    assert.equal(new Set(rows.map((r) => r.record_id)).size, rows.length);
    assert.equal(rows.find((r) => r.record_id === 'usage:2026-11-20:wrkspc_01Growth:apikey_01Prod:claude-sonnet-4-20250514')?.output_tokens, '400000');
    assert.match(String((await h.doc(id, 'usage:2026-11-20:wrkspc_01Growth:apikey_01Prod:claude-sonnet-4-20250514'))?.title), /400\.0 k output tokens/);
    assert.equal(s.sync_runs[0]?.added, 1);
  });

  it('an incremental sync deletes a key or member Anthropic no longer lists', async () => {
    const i = d().keys.findIndex((k) => k.id === 'apikey_01Old');
    d().keys.splice(i, 1);
    const s = await h.sync(id, false);
    assert.equal(s.sync_runs[0]?.deleted, 1);
    assert.equal(await h.doc(id, 'api_key:apikey_01Old'), undefined);
  });

  it('a vendor 5xx (overloaded) fails the attempt without losing anything; the retried sync completes', async () => {
    const before = await h.stored(id);
    fa.fake.failNext(1, 529, (r) => r.path === '/v1/organizations/cost_report');
    const failed = await h.sync(id, false);
    assert.equal(failed.sync_runs[0]?.status, 'running', 'the job is retried with backoff');
    assert.deepEqual(await h.stored(id), before);
    await h.t.db.query("UPDATE jobs SET run_at = now() WHERE status = 'queued' AND kind = 'connector.sync'");
    await h.worker.drain();
    const c = await h.get(id);
    assert.equal(c.status, 'idle', JSON.stringify(c.sync_runs[0]));
  });

  it('a revoked admin key puts the connector in error naming the key needed', async () => {
    fa.fake.revoke(fa.adminKey);
    try {
      const c = await h.sync(id, false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(String(c.status_reason), /Anthropic answered 401 .*authentication_error.*Admin API key \(sk-ant-admin…\)/);
    } finally {
      fa.fake.allow(fa.adminKey);
    }
  });
});
