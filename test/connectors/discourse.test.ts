import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DISCOURSE_SITE, type FakeDiscourse, startFakeDiscourse } from '../fakes/discourse.ts';
import { type KindHarness, kindHarness } from './support.ts';

describe('discourse connector against the fake Discourse API', () => {
  let forum: FakeDiscourse;
  let h: KindHarness;
  let id: string;
  before(async () => {
    forum = await startFakeDiscourse(undefined, { perPage: 1, chunk: 20 });
    h = await kindHarness('discourse', forum.url);
  });
  after(async () => {
    await h.close();
    await forum.close();
  });
  const credentials = () => ({ api_key: forum.apiKey, api_username: forum.username });
  const settings = { site_url: DISCOURSE_SITE };
  const expectedIds = () =>
    [...forum.data.categories.map((c) => `category:${c.id}`), ...forum.data.topics.filter((t) => !t.deleted_at && t.archetype !== 'private_message').map((t) => `topic:${t.id}`)].sort();
  const calls = (from: number) => forum.fake.requests.slice(from);

  it('refuses a non-https site_url, unknown settings and a missing api_username (400 naming the field)', async () => {
    const http = await h.create({ credentials: credentials(), settings: { site_url: 'http://forum.acme.test' } });
    assert.equal(http.statusCode, 400, http.body);
    assert.match(http.json().error.message, /settings\.site_url/);
    const unknown = await h.create({ credentials: credentials(), settings: { ...settings, tags: ['x'] } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*tags/);
    const none = await h.create({ credentials: { api_key: forum.apiKey }, settings });
    assert.equal(none.statusCode, 400, none.body);
    assert.match(none.json().error.message, /credentials\.api_username/);
  });

  it('a full sync lists categories, pages each topic list by more_topics_url and fetches posts beyond the first chunk by id', async () => {
    const created = await h.create({ credentials: credentials(), settings });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await h.worker.drain();
    const connected = await h.get(id);
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(String(connected.status_reason), /system/);
    const from = forum.fake.requests.length;
    const c = await h.sync(id, true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await h.stored(id), expectedIds());
    const made = calls(from);
    assert.ok(made.every((r) => r.token === forum.apiKey), 'every call carries Api-Key');
    assert.equal(made.find((r) => r.path === '/categories.json')?.query.include_subcategories, 'true');
    assert.deepEqual(
      made.filter((r) => r.path.startsWith('/c/support/5')).map((r) => `${r.path}${r.query.page ? `?page=${r.query.page}` : ''}`),
      ['/c/support/5.json', '/c/support/5?page=1'],
      'Support lists its own and Billing\'s topics: two pages of 1, the second by more_topics_url',
    );
    const more = made.filter((r) => r.path === '/t/12/posts.json');
    assert.equal(more.length, 1);
    assert.deepEqual(more[0]?.query, { 'post_ids[]': '132' }, 'the log keeps the last of the repeated post_ids[] (6 posts past the first 20)');
    assert.equal(made.filter((r) => r.path === '/t/13.json').length, 1, 'a subcategory topic is read once, under its own category');
    assert.equal(made.filter((r) => r.path === '/t/15.json').length, 0, 'private messages are not read');
  });

  it('maps a topic with its posts: text, url, author, dates, ACL; categories as documents', async () => {
    const t = await h.doc(id, 'topic:12');
    assert.ok(t);
    assert.equal(t.title, 'Cannot log in after upgrade');
    assert.equal(t.url, `${DISCOURSE_SITE}/t/cannot-log-in-after-upgrade/12`);
    assert.equal(t.author, 'grace');
    assert.equal(t.document_type, 'topic');
    const content = String(t.content);
    assert.ok(content.startsWith('In Support\nTags: login, upgrade\n\nGrace Hopper (@grace) · 2025-03-03\nAfter upgrading to 3.2 the login page loops.'), content);
    assert.match(content, /redirect loop detected/);
    assert.match(content, /Ada Lovelace \(@ada\) · 2025-03-03\nClear the _forum_session cookie and try again\./);
    assert.match(content, /Reply number 23: it works for me too\./, 'posts past the first chunk are included');
    assert.doesNotMatch(content, /whisper/, 'staff whispers are left out');
    assert.equal(new Date(String(t.created_at)).toISOString(), '2025-03-03T09:10:00.000Z');
    assert.equal(new Date(String(t.updated_at)).toISOString(), '2025-03-03T10:02:00.000Z');
    assert.deepEqual(t.acl, { public: true });
    const billing = await h.doc(id, 'topic:13');
    assert.match(String(billing?.content), /^In Support › Billing\nTags: invoices/);
    const staff = await h.doc(id, 'topic:14');
    assert.deepEqual(staff?.acl, { groups: ['discourse:category:9'] });
    const welcome = await h.doc(id, 'topic:11');
    assert.equal(welcome?.content, 'In Uncategorized\n\n@system · 2025-03-03\nWelcome! Read the FAQ first.', 'small-action posts are left out');
    const cat = await h.doc(id, 'category:6');
    assert.equal(cat?.title, 'Support › Billing');
    assert.equal(cat?.content, 'Discourse category Billing (in Support)\n\nInvoices and payments.');
    assert.equal(cat?.url, `${DISCOURSE_SITE}/c/billing/6`);
    assert.deepEqual((await h.doc(id, 'category:9'))?.acl, { groups: ['discourse:category:9'] });
  });

  it('an incremental sync reads only topics bumped since the last run or named by newer posts', async () => {
    forum.reply(12, 'linus', 'Fixed in 3.2.1, thanks!');
    const added = forum.addTopic(6, 'Refund policy', 'How long do refunds take?');
    const from = forum.fake.requests.length;
    const c = await h.sync(id, false);
    assert.equal(c.sync_runs[0]?.status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual([c.sync_runs[0]?.added, c.sync_runs[0]?.updated, c.sync_runs[0]?.deleted], [1, 1, 0]);
    const made = calls(from);
    assert.deepEqual(made.filter((r) => /^\/t\/\d+\.json$/.test(r.path)).map((r) => r.path).sort(), [`/t/${added.id}.json`, '/t/12.json'].sort());
    assert.ok(made.some((r) => r.path === '/latest.json' && r.query.order === 'activity'));
    assert.ok(made.some((r) => r.path === '/posts.json'));
    assert.equal(made.filter((r) => r.path.startsWith('/c/') && !r.path.endsWith('/show.json')).length, 0, 'no category lists (show.json: the restricted category’s groups)');
    assert.match(String((await h.doc(id, 'topic:12'))?.content), /Linus \(@linus\) · \d{4}-\d\d-\d\d\nFixed in 3\.2\.1, thanks!$/);
  });

  it('a 429 with only extras.wait_seconds (no Retry-After) is waited out', async () => {
    forum.retryAfterHeader = false;
    forum.fake.rateLimitNext(1, 1, (req) => req.path === '/posts.json');
    try {
      const c = await h.sync(id, false);
      assert.equal(c.sync_runs[0]?.status, 'completed');
      assert.ok(Number(c.sync_runs[0]?.rate_limited_waits) >= 1);
    } finally {
      forum.retryAfterHeader = true;
    }
  });

  it('a full sync removes a deleted topic (staff see it with deleted_at)', async () => {
    forum.topic(13).deleted_at = new Date().toISOString();
    const c = await h.sync(id, true);
    assert.equal(c.sync_runs[0]?.status, 'completed');
    assert.equal(c.sync_runs[0]?.deleted, 1);
    assert.deepEqual(await h.stored(id), expectedIds());
  });

  it('a vendor 5xx fails the attempt and is retried', async () => {
    forum.fake.failNext(1, 502, (req) => req.path === '/categories.json');
    await h.t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=false`, headers: h.t.admin });
    await h.worker.drain();
    const job = (await h.t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /Discourse answered HTTP 502/);
    await h.t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await h.worker.drain();
    assert.equal((await h.get(id)).sync_runs[0]?.status, 'completed');
  });

  it('a revoked key puts the connector in error with what Discourse said', async () => {
    forum.fake.revoke(forum.apiKey);
    try {
      const c = await h.sync(id, false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(String(c.status_reason), /rejected the credentials: Discourse answered 403 .*API username or key is invalid.*Api-Key|API key/);
    } finally {
      forum.fake.allow(forum.apiKey);
    }
  });

  it('a key revoked while topics are read fails the sync as an auth error instead of deleting the topics', async () => {
    forum.reply(12, 'ada', 'One more data point.');
    const before = await h.stored(id);
    forum.revokeForTopics = true;
    try {
      const c = await h.sync(id, false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(String(c.status_reason), /rejected the credentials: Discourse answered 403 .*API username or key is invalid/);
      assert.deepEqual(await h.stored(id), before, 'nothing deleted');
    } finally {
      forum.revokeForTopics = false;
    }
  });

  it('is in the catalogue as productivity with API-key auth only (Discourse has no OAuth 2.0 for its API)', async () => {
    const cat = (await h.t.app.inject({ method: 'GET', url: '/v1/connectors/catalog', headers: h.t.admin })).json();
    const entry = cat.connectors.find((c: { connector_type: string }) => c.connector_type === 'discourse');
    assert.equal(entry?.group, 'productivity');
    assert.deepEqual(entry?.auth_types, ['api_key']);
    assert.equal(entry?.oauth, false);
  });
});
