import { createHash } from 'node:crypto';
import { type FakeRequest, VendorFake } from './kit/index.ts';

/**
 * Feeds for the `rss` kind, served from the test in the three formats' real shapes: RSS 2.0 (`/news.rss`: guid,
 * pubDate in RFC 822, author email, dc:creator, content:encoded), Atom 1.0 (`/blog.atom`, RFC 4287: id, updated,
 * published, link rel=alternate relative to xml:base, html content, xhtml summary, feed-level author) and RSS 1.0
 * (`/rdf.xml`: rdf:about, dc:date). Every feed has an ETag and Last-Modified and answers conditional GETs with 304.
 */
export interface FeedEntry {
  id: string;
  title: string;
  html: string;
  date: Date;
  author?: string;
  path?: string;
}

export interface FakeFeeds {
  readonly fake: VendorFake;
  readonly url: string;
  readonly news: FeedEntry[];
  readonly blog: FeedEntry[];
  readonly rdf: FeedEntry[];
  /** Paths answering 301 to another path. */
  readonly redirects: Map<string, string>;
  /** Moves a feed's Last-Modified on (call after changing its entries). */
  touch(): void;
  close(): Promise<void>;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export async function startFakeFeeds(): Promise<FakeFeeds> {
  const fake = new VendorFake({ name: 'feeds', rateLimited: () => ({ status: 429, body: 'slow down', headers: { 'content-type': 'text/plain' } }) });
  let modified = new Date('2026-11-01T10:00:00Z');
  const d = (s: string) => new Date(s);
  const news: FeedEntry[] = [
    { id: 'urn:news:1', title: 'Office move', html: '<p>We move to <b>Pier 9</b> in March.</p>', date: d('2026-10-01T09:00:00Z'), author: 'Ops.Team@Acme.test (Ops team)', path: '/news/office-move' },
    { id: 'urn:news:2', title: 'Q3 results &amp; outlook', html: '<p>Revenue grew 12%.</p><script>x()</script>', date: d('2026-10-15T09:00:00Z'), path: '/news/q3' },
  ];
  const blog: FeedEntry[] = [
    { id: 'tag:acme.test,2026:blog-1', title: 'Shipping the anvil API', html: '<h2>Why</h2><p>Anvils, but <em>programmable</em>.</p>', date: d('2026-10-20T12:00:00Z'), author: 'Ada Lovelace', path: 'posts/anvil-api' },
    { id: 'tag:acme.test,2026:blog-2', title: 'On-call handbook', html: '<p>Page the secondary after 15 minutes.</p>', date: d('2026-10-22T12:00:00Z'), path: 'posts/on-call' },
  ];
  const rdf: FeedEntry[] = [{ id: 'urn:rdf:1', title: 'Changelog 4.2', html: '<p>Faster search.</p>', date: d('2026-10-05T08:00:00Z'), author: 'Release bot', path: '/changelog/4.2' }];
  const redirects = new Map<string, string>([['/old-news.rss', '/news.rss']]);

  const rss2 = () =>
    `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel><title>Acme News</title><link>${fake.url}/news</link><description>Company news</description>
${news
  .map(
    (e) => `<item><title>${e.title}</title><link>${fake.url}${e.path}</link><guid isPermaLink="false">${e.id}</guid><pubDate>${e.date.toUTCString()}</pubDate>
${e.author ? `<author>${esc(e.author)}</author>` : '<dc:creator>Newsroom</dc:creator>'}<category>company</category>
<description>${esc(e.html.replace(/<[^>]+>/g, ''))}</description><content:encoded><![CDATA[${e.html}]]></content:encoded></item>`,
  )
  .join('\n')}
</channel></rss>`;
  const atom = () =>
    `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="${fake.url}/blog/">
<title type="text">Acme Engineering</title><id>tag:acme.test,2026:blog</id><updated>${modified.toISOString()}</updated>
<link rel="self" href="${fake.url}/blog.atom"/><link rel="alternate" href="./"/><author><name>Acme Engineering</name></author>
${blog
  .map(
    (e) => `<entry><id>${e.id}</id><title type="html">${esc(e.title)}</title><link rel="alternate" type="text/html" href="${e.path}"/>
<published>${e.date.toISOString()}</published><updated>${new Date(e.date.getTime() + 3600_000).toISOString()}</updated>
${e.author ? `<author><name>${e.author}</name></author>` : ''}<category term="eng" label="Engineering"/>
<summary type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>summary only</p></div></summary>
<content type="html">${esc(e.html)}</content></entry>`,
  )
  .join('\n')}
</feed>`;
  const rss1 = () =>
    `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="${fake.url}/rdf.xml"><title>Acme Changelog</title><link>${fake.url}/changelog</link><description>Releases</description>
<items><rdf:Seq>${rdf.map((e) => `<rdf:li resource="${e.id}"/>`).join('')}</rdf:Seq></items></channel>
${rdf.map((e) => `<item rdf:about="${e.id}"><title>${esc(e.title)}</title><link>${fake.url}${e.path}</link><description>${esc(e.html)}</description><dc:date>${e.date.toISOString()}</dc:date>${e.author ? `<dc:creator>${esc(e.author)}</dc:creator>` : ''}</item>`).join('\n')}
</rdf:RDF>`;

  const serve = (body: () => string, type: string) => (req: FakeRequest) => {
    const text = body();
    const etag = `"${createHash('sha256').update(text).digest('hex').slice(0, 20)}"`;
    const headers = { etag, 'last-modified': modified.toUTCString() };
    if (req.headers['if-none-match'] === etag) return { status: 304, headers };
    return { headers: { ...headers, 'content-type': `${type}; charset=utf-8` }, body: text };
  };
  fake.route('GET', '/news.rss', serve(rss2, 'application/rss+xml'));
  fake.route('GET', '/blog.atom', serve(atom, 'application/atom+xml'));
  fake.route('GET', '/rdf.xml', serve(rss1, 'application/rdf+xml'));
  fake.route('GET', '/not-a-feed', () => ({ headers: { 'content-type': 'text/html' }, body: '<html><body>hello</body></html>' }));
  fake.route('GET', '/:path*', (req) => {
    const to = redirects.get(req.path);
    return to ? { status: 301, headers: { location: to }, body: '' } : { status: 404, body: 'not found' };
  });
  await fake.start();
  return {
    fake,
    get url() {
      return fake.url;
    },
    news,
    blog,
    rdf,
    redirects,
    touch() {
      modified = new Date(modified.getTime() + 60_000);
    },
    close: () => fake.close(),
  };
}
