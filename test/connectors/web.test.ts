import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeWebSite, startFakeWebSite } from '../fakes/web-site.ts';
import { type KindHarness, kindHarness } from './support.ts';

describe('web crawler connector', () => {
  let site: FakeWebSite;
  let h: KindHarness;
  const settings = (extra: Record<string, unknown> = {}) => ({ seed_urls: [`${site.url}/`], sitemap_url: `${site.url}/sitemap.xml`, delay_ms: 0, ...extra });
  const connect = async (extra: Record<string, unknown> = {}) => {
    const r = await h.create({ settings: settings(extra) });
    assert.equal(r.statusCode, 201, r.body);
    return r.json().connector_id as string;
  };
  const paths = async (id: string) => (await h.stored(id)).map((u) => u.slice(site.url.length));

  before(async () => {
    site = await startFakeWebSite();
    // Loopback is where the test's site lives: allowed explicitly, as production mode would require.
    h = await kindHarness('web', site.url, { env: { ATRIUM_EGRESS_ALLOW: '127.0.0.1' } });
  });
  after(async () => {
    await h.close();
    await site.close();
  });

  it('crawls seeds and the sitemap (index + gzipped urlset) within the origin, honouring robots.txt, noindex and canonical links', async () => {
    const id = await connect();
    site.fake.requests.length = 0;
    const c = await h.sync(id, true);
    assert.equal(c.status, 'idle', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual(await paths(id), ['/', '/about', '/docs/faq', '/docs/guide', '/policies/remote', '/policies/travel']);
    assert.equal(site.fake.requestsTo('/private/salaries').length, 0, 'robots.txt disallows /private/ for AtriumBot');
    assert.equal(site.fake.requestsTo('/commented-out').length, 0);
    assert.equal(site.fake.requestsTo('/robots.txt').length, 1);
    assert.equal(site.fake.requestsTo('/drafts/plan').length, 1, 'fetched (listed in the sitemap) but noindex');

    const home = await h.doc(id, `${site.url}/`);
    assert.equal(home?.title, 'Acme Handbook');
    assert.match(String(home?.content), /The Acme handbook for new joiners/);
    assert.equal(home?.url, `${site.url}/`);
    assert.equal(home?.document_type, 'web_page');
    const about = await h.doc(id, `${site.url}/about`);
    assert.equal(about?.title, 'About & contact', 'no <title>: the first <h1>');
    assert.equal(new Date(String(about?.updated_at)).toISOString(), new Date(site.pages.get('/about')?.modified.toUTCString() ?? '').toISOString());
    const guide = await h.doc(id, `${site.url}/docs/guide`);
    const meta = (typeof guide?.metadata === 'string' ? JSON.parse(guide.metadata) : guide?.metadata) as Record<string, unknown>;
    assert.equal(meta.etag, site.etagOf('/docs/guide'));
    assert.equal(meta.depth, 1);
    assert.doesNotMatch(String(guide?.content), /menu/, '<nav> is left out');
  });

  it('incremental: conditional GETs (304 = unchanged), changed pages updated, a page that disappeared deleted', async () => {
    const id = await connect();
    await h.sync(id, true);
    const travel = site.pages.get('/policies/travel');
    assert.ok(travel);
    site.setPage('/policies/travel', { ...travel, body: '<p>Book trains for trips under 5 hours.</p>' });
    const faq = site.pages.get('/docs/faq');
    assert.ok(faq);
    site.pages.delete('/docs/faq');
    site.fake.requests.length = 0;
    const c = await h.sync(id, false);
    try {
      assert.equal(c.status, 'idle');
      assert.deepEqual({ added: c.sync_runs[0]?.added, updated: c.sync_runs[0]?.updated, deleted: c.sync_runs[0]?.deleted }, { added: 0, updated: 1, deleted: 1 });
      assert.equal(site.fake.requestsTo('/docs/guide')[0]?.status, 304, 'ETag → If-None-Match');
      assert.equal(site.fake.requestsTo('/about')[0]?.status, 304, 'no ETag → If-Modified-Since');
      assert.equal(site.fake.requestsTo('/docs/faq')[0]?.status, 404);
      assert.match(String((await h.doc(id, `${site.url}/policies/travel`))?.content), /under 5 hours/);
      assert.equal((await paths(id)).includes('/docs/faq'), false);
    } finally {
      site.pages.set('/docs/faq', faq);
    }
  });

  it('a page newly disallowed by robots.txt is dropped by the next incremental sync', async () => {
    const id = await connect();
    await h.sync(id, true);
    const before = site.robotsTxt;
    site.robotsTxt = `${before}Disallow: /about\n`;
    try {
      site.fake.requests.length = 0;
      await h.sync(id, false);
      assert.equal(site.fake.requestsTo('/about').length, 0);
      assert.equal((await paths(id)).includes('/about'), false);
    } finally {
      site.robotsTxt = before;
    }
  });

  it('max_depth, include and exclude patterns limit the crawl; off-site links and redirects are not followed', async () => {
    const shallow = await connect({ sitemap_url: undefined, max_depth: 0 });
    await h.sync(shallow, true);
    assert.deepEqual(await paths(shallow), ['/']);
    const docsOnly = await connect({ sitemap_url: undefined, include_patterns: ['/docs/**'], exclude_patterns: ['/docs/faq'] });
    site.fake.requests.length = 0;
    await h.sync(docsOnly, true);
    assert.deepEqual(await paths(docsOnly), ['/', '/docs/guide']);
    assert.equal(site.fake.requestsTo('/leave').length, 0, 'outside include_patterns');
    const all = await connect({ sitemap_url: undefined });
    site.fake.requests.length = 0;
    await h.sync(all, true);
    assert.equal(site.fake.requestsTo('/leave')[0]?.status, 301, 'fetched, but its off-site Location is not followed');
    assert.equal((await paths(all)).some((p) => p.includes('leave') || p.includes('elsewhere')), false);
  });

  it('5xx: a page that errs keeps its stored copy (named in status_reason); a seed that errs leaves the full sync to retry, sweeping nothing', async () => {
    const id = await connect({ sitemap_url: undefined });
    await h.sync(id, true);
    const before = await paths(id);
    site.fake.failNext(1, 503, (r) => r.path === '/docs/guide');
    let c = await h.sync(id, true);
    assert.equal(c.status, 'idle');
    assert.match(String(c.status_reason), /1 skipped.*docs\/guide.*503/);
    assert.deepEqual(await paths(id), before.filter((p) => p !== '/docs/faq'), 'the erring page is kept; what only it links to goes');
    site.fake.failNext(1, 500, (r) => r.path === '/');
    c = await h.sync(id, true);
    assert.equal(c.sync_runs[0]?.status, 'running', 'the job retries with backoff');
    assert.equal(c.sync_runs[0]?.deleted, 0);
    assert.ok((await paths(id)).includes('/docs/guide'), 'no sweep after a failed full sync');
  });

  it('bad settings → 400 naming the field', async () => {
    const none = await h.create({ settings: { delay_ms: 0 } });
    assert.equal(none.statusCode, 400);
    assert.match(none.json().message ?? none.body, /seed_urls/);
    const ftp = await h.create({ settings: { seed_urls: ['ftp://example.com/'] } });
    assert.equal(ftp.statusCode, 400);
    assert.match(ftp.body, /seed_urls/);
    const origin = await h.create({ settings: { seed_urls: ['https://example.com/'], allowed_origins: ['https://example.com/docs'] } });
    assert.equal(origin.statusCode, 400);
    assert.match(origin.body, /allowed_origins/);
    const creds = await h.create({ credentials: { token: 'x' }, settings: { seed_urls: ['https://example.com/'] } });
    assert.equal(creds.statusCode, 400);
  });

  it('the egress policy applies: a loopback site is refused in production mode unless ATRIUM_EGRESS_ALLOW lists it', async () => {
    const strict = await kindHarness('web', site.url, { env: { ATRIUM_EGRESS_DENY_PRIVATE: 'true' } });
    try {
      const r = await strict.create({ settings: settings() });
      const id = r.json().connector_id as string;
      site.fake.requests.length = 0;
      const c = await strict.sync(id, true);
      assert.equal(c.status, 'error');
      assert.match(String(c.status_reason), /settings are invalid.*loopback.*ATRIUM_EGRESS_ALLOW/);
      assert.equal(site.fake.requests.length, 0, 'nothing was requested');
    } finally {
      await strict.close();
    }
  });
});
