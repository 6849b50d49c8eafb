import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeFeeds, startFakeFeeds } from '../fakes/rss-feeds.ts';
import { type KindHarness, kindHarness } from './support.ts';

describe('rss connector', () => {
  let f: FakeFeeds;
  let h: KindHarness;
  const feed = (p: string) => `${f.url}${p}`;
  const connect = async (settings: Record<string, unknown>) => {
    const r = await h.create({ settings });
    assert.equal(r.statusCode, 201, r.body);
    return r.json().connector_id as string;
  };
  const meta = (doc: Record<string, unknown> | undefined) => (typeof doc?.metadata === 'string' ? JSON.parse(doc.metadata) : doc?.metadata) as Record<string, unknown>;

  before(async () => {
    f = await startFakeFeeds();
    h = await kindHarness('rss', f.url, { env: { ATRIUM_EGRESS_ALLOW: '127.0.0.1' } });
  });
  after(async () => {
    await h.close();
    await f.close();
  });

  it('maps RSS 2.0, Atom 1.0 and RSS 1.0 items: title, link, author, dates, HTML content as text', async () => {
    const id = await connect({ feed_urls: [feed('/news.rss'), feed('/blog.atom'), feed('/rdf.xml')] });
    const c = await h.sync(id, true);
    assert.equal(c.status, 'idle', JSON.stringify(c.sync_runs[0]));
    assert.equal((await h.stored(id)).length, 5, String(c.status_reason));

    const rss = await h.doc(id, `${feed('/news.rss')}#urn:news:1`);
    assert.equal(rss?.title, 'Office move');
    assert.equal(rss?.url, feed('/news/office-move'));
    assert.equal(rss?.author, 'ops.team@acme.test');
    assert.equal(rss?.document_type, 'feed_item');
    assert.equal(new Date(String(rss?.created_at)).toISOString(), '2026-10-01T09:00:00.000Z');
    assert.match(String(rss?.content), /We move to Pier 9 in March/);
    assert.equal(meta(rss).feed_title, 'Acme News');
    assert.deepEqual(meta(rss).categories, ['company']);
    const q3 = await h.doc(id, `${feed('/news.rss')}#urn:news:2`);
    assert.equal(q3?.title, 'Q3 results & outlook');
    assert.equal(q3?.author, 'Newsroom', 'dc:creator');
    assert.doesNotMatch(String(q3?.content), /x\(\)/, 'scripts are left out');

    const atom = await h.doc(id, `${feed('/blog.atom')}#tag:acme.test,2026:blog-1`);
    assert.equal(atom?.title, 'Shipping the anvil API');
    assert.equal(atom?.url, `${f.url}/blog/posts/anvil-api`, 'relative to xml:base');
    assert.equal(atom?.author, 'Ada Lovelace');
    assert.equal(new Date(String(atom?.created_at)).toISOString(), '2026-10-20T12:00:00.000Z');
    assert.equal(new Date(String(atom?.updated_at)).toISOString(), '2026-10-20T13:00:00.000Z');
    assert.match(String(atom?.content), /## Why[\s\S]*Anvils, but programmable/, 'content (html) wins over the summary');
    assert.equal((await h.doc(id, `${feed('/blog.atom')}#tag:acme.test,2026:blog-2`))?.author, 'Acme Engineering', "the feed's author");

    const rdf = await h.doc(id, `${feed('/rdf.xml')}#urn:rdf:1`);
    assert.equal(rdf?.title, 'Changelog 4.2');
    assert.equal(rdf?.author, 'Release bot');
    assert.equal(new Date(String(rdf?.created_at)).toISOString(), '2026-10-05T08:00:00.000Z');
    assert.match(String(rdf?.content), /Faster search/);
  });

  it('incremental: a conditional GET per feed (304 = nothing read), only changed items stored again', async () => {
    const id = await connect({ feed_urls: [feed('/news.rss'), feed('/blog.atom')] });
    await h.sync(id, true);
    f.fake.requests.length = 0;
    let c = await h.sync(id, false);
    assert.deepEqual(f.fake.requests.map((r) => r.status), [304, 304]);
    assert.deepEqual({ added: c.sync_runs[0]?.added, updated: c.sync_runs[0]?.updated }, { added: 0, updated: 0 });
    const first = f.news[0];
    assert.ok(first);
    const before = first.html;
    first.html = '<p>We move to Pier 10 in April.</p>';
    f.touch();
    try {
      c = await h.sync(id, false);
      assert.deepEqual({ added: c.sync_runs[0]?.added, updated: c.sync_runs[0]?.updated, unchanged: c.sync_runs[0]?.unchanged }, { added: 0, updated: 1, unchanged: 0 });
      assert.match(String((await h.doc(id, `${feed('/news.rss')}#urn:news:1`))?.content), /Pier 10/);
    } finally {
      first.html = before;
      f.touch();
    }
  });

  it('items that leave the feed are kept by default (full and incremental), deleted with delete_missing_items', async () => {
    const keep = await connect({ feed_urls: [feed('/rdf.xml')] });
    const drop = await connect({ feed_urls: [feed('/rdf.xml')], delete_missing_items: true });
    await h.sync(keep, true);
    await h.sync(drop, true);
    const gone = f.rdf.pop();
    assert.ok(gone);
    f.touch();
    try {
      await h.sync(keep, false);
      let c = await h.sync(keep, true);
      assert.equal(c.sync_runs[0]?.deleted, 0);
      assert.deepEqual(await h.stored(keep), [`${feed('/rdf.xml')}#urn:rdf:1`]);
      c = await h.sync(drop, false);
      assert.equal(c.sync_runs[0]?.deleted, 1);
      assert.deepEqual(await h.stored(drop), []);
    } finally {
      f.rdf.push(gone);
      f.touch();
    }
  });

  it('follows a moved feed (301); a feed answering 5xx or not a feed keeps its items and is named in status_reason', async () => {
    const id = await connect({ feed_urls: [feed('/old-news.rss')] });
    let c = await h.sync(id, true);
    assert.equal(c.status, 'idle');
    assert.equal((await h.stored(id)).length, 2);
    assert.ok((await h.stored(id)).every((x) => x.startsWith(`${feed('/old-news.rss')}#`)), 'ids stay under the configured URL');
    f.fake.failNext(1, 503, (r) => r.path === '/news.rss');
    c = await h.sync(id, true);
    assert.equal(c.status, 'idle');
    assert.match(String(c.status_reason), /2 skipped.*HTTP 503/);
    assert.equal((await h.stored(id)).length, 2);
    f.redirects.set('/old-news.rss', '/not-a-feed');
    try {
      c = await h.sync(id, true);
      assert.match(String(c.status_reason), /not an RSS or Atom feed/);
      assert.equal((await h.stored(id)).length, 2);
    } finally {
      f.redirects.set('/old-news.rss', '/news.rss');
    }
  });

  it('bad settings → 400 naming the field', async () => {
    const none = await h.create({ settings: {} });
    assert.equal(none.statusCode, 400);
    assert.match(none.body, /feed_urls/);
    const bad = await h.create({ settings: { feed_urls: ['feed://example.com/rss'] } });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /feed_urls/);
  });

  it('the egress policy applies: a loopback feed is refused in production mode unless ATRIUM_EGRESS_ALLOW lists it', async () => {
    const strict = await kindHarness('rss', f.url, { env: { ATRIUM_EGRESS_DENY_PRIVATE: 'true' } });
    try {
      const r = await strict.create({ settings: { feed_urls: [feed('/news.rss')] } });
      f.fake.requests.length = 0;
      const c = await strict.sync(r.json().connector_id, true);
      assert.equal(c.status, 'error');
      assert.match(String(c.status_reason), /settings are invalid.*ATRIUM_EGRESS_ALLOW/);
      assert.equal(f.fake.requests.length, 0);
    } finally {
      await strict.close();
    }
  });
});
