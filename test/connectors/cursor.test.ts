import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { addDays, cursorEvent, type FakeCursor, seedCursor, startFakeCursor } from '../fakes/cursor.ts';
import { type KindHarness, kindHarness } from './support.ts';

describe('cursor connector against the fake Cursor Admin API', () => {
  const today = '2026-11-21';
  const clock = fixedClock(`${today}T10:00:00Z`);
  let fc: FakeCursor;
  let h: KindHarness;
  let id: string;
  before(async () => {
    // Two usage events a page: a chunk's events are read over several pages and summed across them.
    fc = await startFakeCursor(seedCursor(today, 5), { eventsPageCap: 2 });
    h = await kindHarness('cursor', fc.url, { clock });
  });
  after(async () => {
    await h.close();
    await fc.close();
  });

  const d = () => fc.data;
  const dayOf = (ms: number | string) => new Date(Number(ms)).toISOString().slice(0, 10);
  const usageRows = async () =>
    (
      await h.t.db.query<{ record_id: string; day: string; user: string | null; model: string | null; requests: string; input_tokens: string; output_tokens: string; cost_usd: string }>(
        "SELECT record_id, to_char(day, 'YYYY-MM-DD') AS day, \"user\", model, requests::text, input_tokens::text, output_tokens::text, cost_usd::text FROM ai_usage WHERE connector_id = $1 ORDER BY record_id",
        [id],
      )
    ).rows;
  const expectedIds = (from: string, to: string) => {
    const inWindow = (x: string) => x >= from && x < to;
    return [
      ...new Set([
        ...d().members.map((m) => `member:${m.email.toLowerCase()}`),
        ...d().daily.filter((a) => a.isActive && inWindow(dayOf(a.date))).map((a) => `activity:${dayOf(a.date)}:${a.email}`),
        ...d().events.filter((e) => inWindow(dayOf(e.timestamp))).map((e) => `usage:${dayOf(e.timestamp)}:${e.userEmail.toLowerCase()}:${e.model}`),
      ]),
    ].sort();
  };

  it('is in the catalogue as an LLM provider taking an API key only', async () => {
    const cat = (await h.t.app.inject({ method: 'GET', url: '/v1/connectors/catalog', headers: h.t.admin })).json();
    const e = cat.connectors.find((c: { connector_type: string }) => c.connector_type === 'cursor');
    assert.deepEqual([e.category, e.group, e.auth_types], ['llm_provider', 'llm_providers', ['api_key']]);
  });

  it('refuses bad settings with 400 naming the field', async () => {
    const bad = await h.create({ credentials: { api_key: fc.apiKey }, settings: { lookback_days: 200 } });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.match(bad.json().error.message, /settings\.lookback_days/);
    const unknown = await h.create({ credentials: { api_key: fc.apiKey }, settings: { teams: ['x'] } });
    assert.equal(unknown.statusCode, 400, unknown.body);
  });

  it('a key that is not a team Admin API key is refused with a message naming the key needed', async () => {
    const c = await h.create({ credentials: { api_key: 'key_personal_not_admin' } });
    assert.equal(c.statusCode, 201, c.body);
    await h.worker.drain();
    const got = await h.get(c.json().connector_id);
    assert.equal(got.status, 'error');
    assert.match(String(got.status_reason), /Cursor answered 401 .*Cursor Admin API key from cursor\.com\/dashboard → Settings → Cursor Admin API Keys/);
  });

  it('a full sync reads members, daily activity and usage events; one ai_usage row per day × member × model', async () => {
    const c = await h.create({ credentials: { api_key: fc.apiKey } });
    assert.equal(c.statusCode, 201, c.body);
    id = c.json().connector_id;
    await h.worker.drain();
    assert.equal((await h.get(id)).status, 'connected');
    const s = await h.sync(id, true);
    assert.equal(s.status, 'idle', JSON.stringify(s));
    assert.deepEqual(await h.stored(id), expectedIds(addDays(today, -30), today));
    const daily = fc.posts.filter((p) => p.path === '/teams/daily-usage-data');
    assert.deepEqual(daily[0]?.body, { startDate: Date.parse('2026-10-22T00:00:00Z'), endDate: Date.parse(`${today}T00:00:00Z`) - 1 });
    const events = fc.posts.filter((p) => p.path === '/teams/filtered-usage-events');
    assert.ok(events.length > 1 && events.some((p) => p.body.page === 2), 'usage events paged');
    assert.ok(fc.fake.requests.every((r) => r.token !== null) && fc.fake.requests.some((r) => r.token === fc.apiKey), 'the key as the Basic username');

    const rows = await usageRows();
    assert.equal(rows.length, 10, '5 days × 2 (member, model) cells');
    const ada = rows.find((r) => r.record_id === 'usage:2026-11-20:ada@example.com:claude-4-sonnet');
    // Two events: 2000 input + 200 cache writes + 4000 cache reads; 500 output; 12.5 + 7.5 cents.
    assert.deepEqual(ada && { ...ada }, { record_id: 'usage:2026-11-20:ada@example.com:claude-4-sonnet', day: '2026-11-20', user: 'ada@example.com', model: 'claude-4-sonnet', requests: '2', input_tokens: '6200', output_tokens: '500', cost_usd: '0.2' });
  });

  it('maps usage, activity and members (with spend) to readable documents, readable by ai_usage:read only', async () => {
    const u = await h.doc(id, 'usage:2026-11-20:ada@example.com:claude-4-sonnet');
    assert.equal(u?.title, 'Usage 2026-11-20, ada@example.com, claude-4-sonnet: 2 requests, 6,200 input tokens, 500 output tokens, $0.20');
    assert.match(String(u?.content), /^Cursor usage on 2026-11-20 \(UTC\) by Ada Lovelace <ada@example\.com>\nModel: claude-4-sonnet\nRequests: 2 \(2 request units; Usage-based\)/);
    assert.equal(u?.author, 'ada@example.com');
    assert.deepEqual(u?.acl, { groups: ['atrium:ai_usage'] });
    const a = await h.doc(id, 'activity:2026-11-20:grace@example.com');
    assert.equal(a?.title, 'Cursor activity 2026-11-20, grace@example.com: 7 AI requests, mostly gpt-5');
    assert.match(String(a?.content), /AI requests: agent 4, composer 1, chat 2, Cmd\+K 0, Bugbot 0/);
    assert.equal(await h.doc(id, 'activity:2026-11-20:linus@example.com'), undefined, 'inactive days are left out');
    const m = await h.doc(id, 'member:ada@example.com');
    assert.equal(m?.title, 'Cursor member Ada Lovelace <ada@example.com>');
    assert.equal(m?.content, 'Cursor team member: Ada Lovelace\nEmail: ada@example.com\nRole: owner\nSpend this billing cycle (since 2026-11-01): $24.50\nFast premium requests: 120');
    const accounts = await h.t.db.query<{ account_id: string }>('SELECT account_id FROM identity_accounts WHERE connector_id = $1 ORDER BY 1', [id]);
    assert.deepEqual(accounts.rows.map((r) => r.account_id), ['cursor:ada@example.com', 'cursor:grace@example.com', 'cursor:linus@example.com']);
  });

  it('an incremental sync re-reads the overlap days: revised cells replace their rows, nothing is counted twice', async () => {
    const before = await usageRows();
    clock.set('2026-11-22T10:00:00Z');
    d().events.push(cursorEvent('2026-11-20', 22, 'ada@example.com', 'claude-4-sonnet', 100, 10, 1));
    d().events.push(cursorEvent('2026-11-21', 10, 'ada@example.com', 'claude-4-sonnet', 100, 10, 1));
    const s = await h.sync(id, false);
    assert.equal(s.status, 'idle', JSON.stringify(s));
    const last = fc.posts.filter((p) => p.path === '/teams/filtered-usage-events').at(-1);
    assert.equal(last?.body.startDate, Date.parse('2026-11-19T00:00:00Z'), 'the 2 complete days up to the cursor again');
    const rows = await usageRows();
    assert.equal(rows.length, before.length + 1);
    assert.equal(new Set(rows.map((r) => r.record_id)).size, rows.length);
    assert.equal(rows.find((r) => r.record_id === 'usage:2026-11-20:ada@example.com:claude-4-sonnet')?.requests, '3');
    assert.equal(s.sync_runs[0]?.added, 1, 'the new 2026-11-21 cell');
    assert.ok(Number(s.sync_runs[0]?.updated) >= 1, 'the revised 2026-11-20 cell');
  });

  it('an incremental sync deletes a member who left the team', async () => {
    d().members.splice(d().members.findIndex((m) => m.email === 'linus@example.com'), 1);
    const s = await h.sync(id, false);
    assert.equal(s.sync_runs[0]?.deleted, 1);
    assert.equal(await h.doc(id, 'member:linus@example.com'), undefined);
  });

  it('a vendor 5xx fails the attempt without losing anything; the retried sync completes', async () => {
    const before = await h.stored(id);
    fc.fake.failNext(1, 503, (r) => r.path === '/teams/daily-usage-data');
    const failed = await h.sync(id, false);
    assert.equal(failed.sync_runs[0]?.status, 'running', 'the job is retried with backoff');
    assert.deepEqual(await h.stored(id), before);
    await h.t.db.query("UPDATE jobs SET run_at = now() WHERE status = 'queued' AND kind = 'connector.sync'");
    await h.worker.drain();
    assert.equal((await h.get(id)).status, 'idle');
  });

  it('a revoked key puts the connector in error naming the key needed', async () => {
    fc.fake.revoke(fc.apiKey);
    try {
      const c = await h.sync(id, false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(String(c.status_reason), /Cursor answered 401 .*Cursor Admin API key/);
    } finally {
      fc.fake.allow(fc.apiKey);
    }
  });
});
