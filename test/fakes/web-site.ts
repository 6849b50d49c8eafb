import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { type FakeReply, type FakeRequest, VendorFake } from './kit/index.ts';

/**
 * A small website for the `web` crawler, served from the test: HTML pages with ETag and Last-Modified that answer
 * conditional GETs with 304 (RFC 9110 §13), a robots.txt that disallows /private/ (RFC 9309), a sitemap index
 * pointing at a plain and a gzipped urlset (sitemaps.org 0.9), redirects (in-site and off-site) and a PDF-free
 * handful of pages. Pages can be added, changed and removed between crawls.
 */
export interface SitePage {
  title: string;
  body: string;
  links: string[];
  /** Extra markup for <head> (a canonical link, a robots meta). */
  head?: string;
  modified: Date;
  /** false: no ETag (Last-Modified only). */
  etag?: boolean;
}

export interface FakeWebSite {
  readonly fake: VendorFake;
  readonly url: string;
  readonly pages: Map<string, SitePage>;
  /** Paths listed in the sitemap's urlsets (the second one is served gzipped). */
  readonly sitemapPaths: [string[], string[]];
  robotsTxt: string;
  /** Paths answering a redirect: path → absolute or relative Location. */
  readonly redirects: Map<string, string>;
  html(path: string): string;
  etagOf(path: string): string;
  /** Adds or changes a page (its Last-Modified moves on by a minute). */
  setPage(path: string, page: Omit<SitePage, 'modified'>): void;
  close(): Promise<void>;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export async function startFakeWebSite(): Promise<FakeWebSite> {
  const fake = new VendorFake({ name: 'web-site', rateLimited: () => ({ status: 429, body: 'Too Many Requests', headers: { 'content-type': 'text/plain' } }) });
  let clock = Date.parse('2026-10-01T08:00:00Z');
  const tick = () => {
    clock += 60_000;
    return new Date(clock);
  };
  const pages = new Map<string, SitePage>();
  const redirects = new Map<string, string>();
  const add = (path: string, p: Omit<SitePage, 'modified'>) => pages.set(path, { ...p, modified: tick() });
  add('/', { title: 'Acme Handbook', body: '<h1>Welcome</h1><p>The Acme handbook for new joiners.</p>', links: ['/docs/guide', '/about', '/private/salaries', 'https://elsewhere.example.org/', 'mailto:hr@acme.test', '/old-about', '/leave', '/docs/guide#setup'] });
  add('/docs/guide', { title: 'Setup guide', body: '<h1>Setup guide</h1><p>Install the VPN client, then request laptop access.</p><nav>menu</nav>', links: ['/docs/faq', '/'] });
  add('/docs/faq', { title: 'FAQ', body: '<h2>Expenses</h2><p>Expenses are reimbursed monthly.</p>', links: ['/docs/guide?print=1'] });
  add('/docs/guide?print=1', { title: 'Setup guide (print)', body: '<p>Install the VPN client.</p>', links: [], head: '<link rel="canonical" href="/docs/guide">' });
  add('/about', { title: '', body: '<h1>About &amp; contact</h1><p>Acme builds anvils since 1949.</p>', links: [], etag: false });
  add('/private/salaries', { title: 'Salaries', body: '<p>secret</p>', links: [] });
  add('/policies/travel', { title: 'Travel policy', body: '<p>Book trains for trips under 4 hours.</p>', links: [] });
  add('/policies/remote', { title: 'Remote work', body: '<p>Remote work is allowed three days a week.</p>', links: [], head: '<meta name="robots" content="nofollow">' });
  add('/drafts/plan', { title: 'Draft plan', body: '<p>not for the index</p>', links: [], head: '<meta name="robots" content="noindex">' });
  redirects.set('/old-about', '/about');
  redirects.set('/leave', 'https://elsewhere.example.org/leave');
  const sitemapPaths: [string[], string[]] = [['/policies/travel', '/drafts/plan'], ['/policies/remote']];

  const site: FakeWebSite = {
    fake,
    get url() {
      return fake.url;
    },
    pages,
    redirects,
    sitemapPaths,
    robotsTxt: 'User-agent: *\nDisallow: /private/\n\nUser-agent: AtriumBot\nDisallow: /private/\nAllow: /\n',
    html(path) {
      const p = pages.get(path);
      if (!p) throw new Error(`no page ${path}`);
      const links = p.links.map((l) => `<li><a href="${esc(l)}">${esc(l)}</a></li>`).join('');
      return `<!doctype html><html><head>${p.title ? `<title>${esc(p.title)}</title>` : ''}${p.head ?? ''}</head><body>${p.body}<!-- <a href="/commented-out">x</a> --><ul>${links}</ul></body></html>`;
    },
    etagOf(path) {
      return `"${createHash('sha256').update(site.html(path)).digest('hex').slice(0, 16)}"`;
    },
    setPage(path, page) {
      add(path, page);
    },
    close: () => fake.close(),
  };

  const urlset = (paths: string[]) =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths
      .map((p) => `<url><loc>${esc(fake.url + p)}</loc><lastmod>${pages.get(p)?.modified.toISOString() ?? ''}</lastmod></url>`)
      .join('')}</urlset>`;
  fake.route('GET', '/robots.txt', () => ({ headers: { 'content-type': 'text/plain; charset=utf-8' }, body: site.robotsTxt }));
  fake.route('GET', '/sitemap.xml', () => ({
    headers: { 'content-type': 'application/xml' },
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${fake.url}/sitemap-policies.xml</loc></sitemap><sitemap><loc>${fake.url}/sitemap-more.xml.gz</loc></sitemap><sitemap><loc>https://elsewhere.example.org/sitemap.xml</loc></sitemap></sitemapindex>`,
  }));
  fake.route('GET', '/sitemap-policies.xml', () => ({ headers: { 'content-type': 'application/xml' }, body: urlset(sitemapPaths[0]) }));
  fake.route('GET', '/sitemap-more.xml.gz', () => ({ headers: { 'content-type': 'application/gzip' }, body: gzipSync(urlset(sitemapPaths[1])) }));
  const serve = (req: FakeRequest): FakeReply => {
    const path = req.url.pathname + req.url.search;
    const to = redirects.get(path);
    if (to) return { status: 301, headers: { location: to }, body: '' };
    const p = pages.get(path);
    if (!p) return { status: 404, headers: { 'content-type': 'text/html' }, body: '<h1>Not found</h1>' };
    const lastModified = p.modified.toUTCString();
    const etag = p.etag === false ? null : site.etagOf(path);
    const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8', 'last-modified': lastModified, ...(etag ? { etag } : {}) };
    // RFC 9110 §13.2.2: If-None-Match is evaluated first; If-Modified-Since only without it.
    const inm = req.headers['if-none-match'];
    const ims = req.headers['if-modified-since'];
    if (inm !== undefined ? etag !== null && inm.split(',').some((t) => t.trim() === etag) : ims !== undefined && Date.parse(ims) >= Math.floor(p.modified.getTime() / 1000) * 1000) {
      return { status: 304, headers: { ...(etag ? { etag } : {}), 'last-modified': lastModified } };
    }
    return { headers, body: site.html(path) };
  };
  fake.route('GET', '/', serve);
  fake.route('GET', '/:path*', serve);
  await fake.start();
  return site;
}
