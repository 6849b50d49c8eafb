import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aiUsageSynced, upsertUsage } from '../../src/ai-usage/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { steady } from './seed.ts';

const T = 'default';

describe('the AI-usage API: /v1/ai-usage, CSV, findings, policy', () => {
  let t: TestApp;
  let reader: { authorization: string };
  let querier: { authorization: string };
  before(async () => {
    t = await createTestApp({ env: { ATRIUM_SYNC_SCHEDULER: 'false' } });
    reader = await t.keyWith(['ai_usage:read']);
    querier = await t.keyWith(['query', 'connector:read', 'connector:write']);
    await t.db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ('oa', $1, 'openai', 'OpenAI'), ('an', $1, 'anthropic', 'Anthropic')`, [T]);
    await upsertUsage(t.db, { tenantId: T, connectorId: 'oa', provider: 'openai', records: steady('openai', '2026-10-01', 10) });
    await upsertUsage(t.db, {
      tenantId: T,
      connectorId: 'an',
      provider: 'anthropic',
      records: [
        ...steady('anthropic', '2026-10-01', 10, { model: 'claude-sonnet-4', key: 'apikey_01', cost: 1 }),
        // a project name a spreadsheet would run as a formula, and one with a comma and a quote
        { record_id: 'inj', kind: 'usage', day: '2026-10-05', project: '=HYPERLINK("http://evil.test","x")', model: 'claude-opus-4', requests: 1 },
        { record_id: 'comma', kind: 'usage', day: '2026-10-05', project: 'Growth, "EU"', model: 'claude-opus-4', requests: 1 },
      ],
    });
    await aiUsageSynced(t.db, { tenantId: T, connectorId: 'oa' });
    await aiUsageSynced(t.db, { tenantId: T, connectorId: 'an' });
  });
  after(() => t.close());

  const get = (url: string, headers: Record<string, string> = reader) => t.app.inject({ method: 'GET', url, headers });

  it("needs ai_usage:read (admin implies it): a key without it gets 403 naming the permission", async () => {
    const r = await get('/v1/ai-usage', querier);
    assert.equal(r.statusCode, 403);
    assert.equal(r.json().error.code, 'permission_denied');
    assert.equal(r.json().error.details.required_permission, 'ai_usage:read');
    assert.equal((await get('/v1/ai-usage/findings', querier)).statusCode, 403);
    assert.equal((await get('/v1/ai-usage/policy', querier)).statusCode, 403);
    assert.equal((await get('/v1/ai-usage', t.admin)).statusCode, 200);
  });

  it('groups and filters: by provider (spend descending), by day (ascending), totals over every match', async () => {
    const r = await get('/v1/ai-usage?group_by=provider');
    assert.equal(r.statusCode, 200, r.body);
    const body = r.json();
    assert.deepEqual(
      body.rows.map((x: Record<string, unknown>) => [x.provider, x.requests, x.cost_usd]),
      [
        ['openai', 100, 105],
        ['anthropic', 102, 15],
      ],
    );
    assert.deepEqual(body.totals, { requests: 202, input_tokens: 20_900, output_tokens: 4000, cost_usd: 120 });
    const d = (await get('/v1/ai-usage?group_by=day,model&provider=anthropic&model=claude-opus-4&model=claude-sonnet-4&from=2026-10-04&to=2026-10-05&kind=usage')).json();
    assert.deepEqual(
      d.rows.map((x: Record<string, unknown>) => [x.day, x.model, x.requests]),
      [
        ['2026-10-04', 'claude-sonnet-4', 10],
        // same day, no spend (usage buckets): more input tokens first
        ['2026-10-05', 'claude-sonnet-4', 10],
        ['2026-10-05', 'claude-opus-4', 2],
      ],
    );
    const u = (await get('/v1/ai-usage?group_by=user,api_key&user=ada@acme.test')).json();
    assert.deepEqual(u.rows.map((x: Record<string, unknown>) => [x.user, x.api_key]), [['ada@acme.test', 'apikey_01'], ['ada@acme.test', 'key_a']]);
  });

  it('exports CSV (format=csv or Accept: text/csv) with a header row, as an attachment, cells escaped and formula-safe', async () => {
    const r = await get('/v1/ai-usage?group_by=project,model&provider=anthropic&format=csv');
    assert.equal(r.statusCode, 200, r.body);
    assert.match(String(r.headers['content-type']), /^text\/csv/);
    assert.match(String(r.headers['content-disposition']), /^attachment; filename="ai-usage\.csv"$/);
    const lines = r.body.trimEnd().split('\r\n');
    assert.equal(lines[0], 'project,model,requests,input_tokens,output_tokens,cost_usd');
    assert.ok(lines.includes('proj_growth,claude-sonnet-4,100,10450,2000,0'), r.body);
    assert.ok(lines.includes('proj_growth,,0,0,0,15'), r.body);
    assert.ok(lines.includes(`"'=HYPERLINK(""http://evil.test"",""x"")",claude-opus-4,1,0,0,0`), r.body);
    assert.ok(lines.includes('"Growth, ""EU""",claude-opus-4,1,0,0,0'), r.body);
    const a = await t.app.inject({ method: 'GET', url: '/v1/ai-usage?group_by=day&from=2026-10-01&to=2026-10-02', headers: { ...reader, accept: 'text/csv' } });
    assert.match(String(a.headers['content-disposition']), /filename="ai-usage-2026-10-01-to-2026-10-02\.csv"/);
    assert.deepEqual(a.body.trimEnd().split('\r\n'), ['day,requests,input_tokens,output_tokens,cost_usd', '2026-10-01,20,2000,400,11', '2026-10-02,20,2100,400,13']);
  });

  it('refuses bad input with the one error shape, naming the field', async () => {
    for (const [url, field] of [
      ['/v1/ai-usage?group_by=day,color', 'group_by'],
      ['/v1/ai-usage?from=2026-02-30', 'from'],
      ['/v1/ai-usage?from=2026-10-05&to=2026-10-01', 'from'],
      ['/v1/ai-usage?kind=tokens', 'kind'],
      ['/v1/ai-usage?limit=0', 'limit'],
      ['/v1/ai-usage?colour=red', ''],
      ['/v1/ai-usage/findings?rule=bad_rule', 'rule'],
      ['/v1/ai-usage/findings?since=yesterday', 'since'],
    ] as const) {
      const r = await get(url);
      assert.equal(r.statusCode, 400, `${url}: ${r.body}`);
      const e = r.json().error;
      assert.equal(e.code, 'invalid_request', url);
      if (field) assert.ok(JSON.stringify(e).includes(field), `${url}: ${r.body}`);
    }
  });

  it('the policy: defaults, admin writes it (ai_usage:read may not), findings under the new policy at once', async () => {
    const g = (await get('/v1/ai-usage/policy')).json();
    assert.deepEqual(g, { allowed_providers: [], allowed_models: [], allowed_projects: [], allowed_api_keys: [], spike_factor: 3, min_baseline_days: 7, updated_at: null });
    const body = { allowed_providers: ['openai', 'anthropic'], allowed_models: ['gpt-4.1*', 'claude-sonnet-4*'] };
    assert.equal((await t.app.inject({ method: 'PUT', url: '/v1/ai-usage/policy', headers: reader, payload: body })).statusCode, 403);
    const bad = await t.app.inject({ method: 'PUT', url: '/v1/ai-usage/policy', headers: t.admin, payload: { spike_factor: 0 } });
    assert.equal(bad.statusCode, 400);
    assert.ok(bad.body.includes('spike_factor'));
    const p = await t.app.inject({ method: 'PUT', url: '/v1/ai-usage/policy', headers: t.admin, payload: body });
    assert.equal(p.statusCode, 200, p.body);
    assert.equal(p.json().new_findings, 1);
    assert.equal(p.json().spike_factor, 3);
    const f = (await get('/v1/ai-usage/findings')).json().findings;
    assert.equal(f.length, 1);
    assert.deepEqual([f[0].rule, f[0].provider, f[0].subject, f[0].first_seen], ['unsanctioned_model', 'anthropic', 'claude-opus-4', '2026-10-05']);
    assert.match(f[0].finding_id, /^aif_/);
    assert.ok(!Number.isNaN(Date.parse(f[0].detected_at)));
    assert.equal((await get('/v1/ai-usage/findings?rule=spend_spike')).json().findings.length, 0);
    assert.equal((await get('/v1/ai-usage/findings?provider=openai')).json().findings.length, 0);
    assert.equal((await get('/v1/ai-usage/findings?since=2999-01-01')).json().findings.length, 0);
    assert.equal((await get('/v1/ai-usage/findings?rule=unsanctioned_model&provider=anthropic&since=2020-01-01')).json().findings.length, 1);
    const audit = (await get('/v1/audit?action=ai_usage.*', t.admin)).json().events.map((e: { action: string }) => e.action).sort();
    assert.deepEqual(audit, ['ai_usage.finding', 'ai_usage.policy_updated']);
  });
});
