import {
  abortableSleep,
  findVendorError,
  type Page,
  type SourceContext,
  type SourceDocument,
  SourceSettingsError,
  type SyncCapability,
  type SyncMode,
  VendorHttpError,
} from '../kit/index.ts';
import { bodyText, crawlFetch, type Fetched, ROBOTS_TOKEN } from './client.ts';
import { readFetched } from './map.ts';
import { robotsAllows, robotsPolicy, ROBOTS_MAX_BYTES } from './robots.ts';
import { type FrontierEntry, type OriginRobots, type WebCredentials, type WebCursor, type WebPage, type WebSettings, webCursor, webPage } from './schemas.ts';
import { parseSitemap } from './sitemap.ts';
import { crawlScope, looksUnreadable, normalizeUrl, type Scope } from './url.ts';

export type { WebCursor, WebPage };

type Ctx = SourceContext<WebCredentials, WebSettings>;

/** URLs fetched per page of the sync (a checkpoint each). */
const BATCH = 16;
/** A robots.txt Crawl-delay is honoured up to this. */
const MAX_CRAWL_DELAY_MS = 30_000;
/** Sitemaps (index entries included) read per sync. */
const MAX_SITEMAPS = 1000;
const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;

/** What visiting one URL gave. */
interface Visit {
  readonly document?: SourceDocument;
  readonly deleted?: string;
  readonly skipped?: { external_id: string; reason: string };
  readonly enqueue: readonly FrontierEntry[];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** The robots.txt rules for the crawler on `origin` (RFC 9309 §2.3.1: 4xx = no rules; 5xx or unreachable = fail the sync). */
async function readRobots(ctx: Ctx, origin: string): Promise<OriginRobots> {
  // Redirects are followed (up to five) wherever they lead, as §2.3.1.2 asks; each hop is egress-checked.
  const f = await crawlFetch(ctx, `${origin}/robots.txt`, { inScope: () => true, maxBytes: ROBOTS_MAX_BYTES * 4, accept: 'text/plain,*/*;q=0.1' });
  const policy = f.status === 200 && f.body ? robotsPolicy(bodyText(f.body, f.headers), ROBOTS_TOKEN) : { rules: [], sitemaps: [] };
  const askedDelay = 'crawlDelay' in policy && policy.crawlDelay !== undefined ? Math.min(MAX_CRAWL_DELAY_MS, policy.crawlDelay * 1000) : 0;
  return { rules: [...policy.rules], delay_ms: Math.max(ctx.settings.delay_ms, askedDelay) };
}

/** Runs `fn` over `items` with at most `limit` in flight; every call settles before the first failure is rethrown. */
async function inLanes<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T).then(
        (value) => ({ status: 'fulfilled', value }) as const,
        (reason: unknown) => ({ status: 'rejected', reason }) as const,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  const failures = out.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as unknown);
  // A rate limit or a settings problem says more than whatever else failed alongside it.
  const first = failures.find((e) => findVendorError(e)) ?? failures[0];
  if (failures.length > 0) throw first;
  return out.map((r) => (r as PromiseFulfilledResult<R>).value);
}

/** A failure to read one page that leaves its stored copy in place: the site erred or could not be reached. */
function pageFailure(err: unknown, signal: AbortSignal): string | null {
  if (signal.aborted) return null;
  if (err instanceof VendorHttpError) return err.message;
  if (err instanceof TypeError || (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))) return `unreachable (${err.message})`;
  return null;
}

async function visit(ctx: Ctx, p: WebPage, scope: Scope, queued: Set<string>, e: FrontierEntry): Promise<Visit> {
  const incremental = p.mode === 'incremental';
  // Gone from the crawl (not found, disallowed, redirected away): an incremental sync deletes a stored copy now;
  // a full sync simply does not see it, and its sweep removes it.
  const gone = (): Visit => (incremental && e.stored ? { deleted: e.url, enqueue: [] } : { enqueue: [] });
  const u = new URL(e.url);
  const robots = p.robots[u.origin];
  if (robots && !robotsAllows(robots, u.pathname + u.search)) return gone();
  let f: Fetched;
  try {
    f = await crawlFetch(ctx, e.url, {
      inScope: (x) => scope.inScope(x),
      maxBytes: ctx.settings.max_page_size_mb * 1024 * 1024,
      ...(incremental ? { etag: e.etag, lastModified: e.last_modified } : {}),
    });
  } catch (err) {
    const failure = pageFailure(err, ctx.signal);
    // A seed that cannot be read fails a full sync: its sweep would otherwise remove every page found through it.
    if (failure === null || (e.depth === 0 && !incremental)) throw err;
    ctx.log.warn({ url: e.url, err: failure }, 'page skipped');
    return { skipped: { external_id: e.url, reason: failure }, enqueue: [] };
  }
  // RFC 9110 §15.4.5: not modified since the stored copy. Its links are unchanged too, and the pages they lead to
  // were queued from the store.
  if (f.status === 304) return { enqueue: [] };
  if (f.status !== 200 || !f.body) {
    if (f.tooLarge) ctx.log.info({ url: e.url }, 'page larger than max_page_size_mb: not read');
    if (f.leftScope) ctx.log.info({ url: e.url, to: f.leftScope }, 'redirect out of the crawl scope: not followed');
    return gone();
  }
  const moved = f.url !== e.url;
  if (moved) {
    // Redirected to a URL crawled on its own: that visit indexes it.
    if (queued.has(f.url)) return gone();
    queued.add(f.url);
  }
  let read: Awaited<ReturnType<typeof readFetched>>;
  try {
    read = await readFetched({ ...f, body: f.body }, e.depth);
  } catch (err) {
    // A file that does not parse (a damaged PDF): its stored copy, if any, is kept.
    const reason = `cannot be read: ${err instanceof Error ? err.message : String(err)}`.slice(0, 300);
    ctx.log.warn({ url: f.url, err: reason }, 'page skipped');
    return { skipped: { external_id: f.url, reason }, enqueue: [] };
  }
  const links = read.links.map((url) => ({ url, depth: e.depth + 1 }));
  const movedAway = moved && incremental && e.stored ? { deleted: e.url } : {};
  // The page names another URL of the crawl as its canonical one: that URL is indexed, not this duplicate.
  if (read.canonical && read.canonical !== f.url && scope.inScope(read.canonical)) {
    return { ...(incremental && e.stored ? { deleted: e.url } : {}), enqueue: [{ url: read.canonical, depth: e.depth }, ...links] };
  }
  if (!read.document) {
    // noindex now, or a media type that is not read: a stored copy goes.
    ctx.log.debug({ url: f.url, why: read.why }, 'page not indexed');
    return { ...(incremental && e.stored ? { deleted: e.url } : {}), enqueue: links };
  }
  return { document: read.document, ...movedAway, enqueue: links };
}

/** One step of the crawl: queue the stored pages (incremental), read one sitemap, or fetch the next batch of URLs. */
async function crawlStep(ctx: Ctx, p: WebPage): Promise<Page<WebPage, WebCursor>> {
  const s = ctx.settings;
  const scope = crawlScope(s);
  const next: WebPage = structuredClone(p);
  const queued = new Set(next.queued);
  const enqueue = (e: FrontierEntry): void => {
    if (e.depth > s.max_depth || queued.has(e.url) || queued.size >= s.max_pages) return;
    if (!scope.inScope(e.url) || looksUnreadable(e.url)) return;
    queued.add(e.url);
    next.frontier.push(e);
  };
  const page = (documents: SourceDocument[], extra: Partial<Page<WebPage, WebCursor>> = {}): Page<WebPage, WebCursor> => {
    const more = next.frontier.length > 0 || next.sitemaps.length > 0 || next.revisit_stored;
    return { documents, ...extra, next: more ? { ...next, queued: [...queued] } : null, cursor: more ? null : { crawled_at: ctx.now.toISOString() } };
  };

  if (next.revisit_stored) {
    // Every stored page is asked again, conditionally: unchanged pages answer 304, and a page that went answers 404.
    next.revisit_stored = false;
    const known = new Map(next.frontier.map((e) => [e.url, e]));
    for (const d of await ctx.stored('http')) {
      const m = d.metadata;
      const validators = { stored: true, etag: str(m.etag), last_modified: str(m.last_modified) };
      const seed = known.get(d.external_id);
      if (seed) Object.assign(seed, validators);
      else enqueue({ url: d.external_id, depth: typeof m.depth === 'number' ? m.depth : 0, ...validators });
    }
    return page([]);
  }

  const sitemap = next.sitemaps.shift();
  if (sitemap) {
    const f = await crawlFetch(ctx, sitemap, {
      inScope: (x) => scope.origins.has(new URL(x).origin),
      maxBytes: SITEMAP_MAX_BYTES,
      accept: 'application/xml,text/xml;q=0.9,*/*;q=0.1',
    });
    if (f.status !== 200 || !f.body) {
      const what = `the sitemap ${sitemap} answered ${f.leftScope ? `a redirect to ${f.leftScope}, outside the crawl` : `HTTP ${f.status}`}`;
      // The configured sitemap is gone: a settings problem. A listed one: fail (and retry) rather than sweep its pages.
      if (sitemap === s.sitemap_url && (f.status === 404 || f.status === 410)) throw new SourceSettingsError(`sitemap_url: ${what}`);
      throw new VendorHttpError(what, f.status || 502);
    }
    const parsed = parseSitemap(bodyText(f.body, f.headers));
    for (const child of parsed.sitemaps) {
      const c = normalizeUrl(child, sitemap);
      // sitemaps.org: an index lists sitemaps of its own site.
      if (c && scope.origins.has(new URL(c).origin) && next.sitemaps.length < MAX_SITEMAPS) next.sitemaps.push(c);
    }
    for (const entry of parsed.urls) {
      const url = normalizeUrl(entry.loc, sitemap);
      if (url) enqueue({ url, depth: 0 });
    }
    return page([]);
  }

  const batch = next.frontier.splice(0, BATCH);
  for (const origin of new Set(batch.map((e) => new URL(e.url).origin))) {
    next.robots[origin] ??= await readRobots(ctx, origin);
  }
  const visits = await inLanes(batch, s.concurrency, async (e) => {
    const v = await visit(ctx, next, scope, queued, e);
    const delay = next.robots[new URL(e.url).origin]?.delay_ms ?? s.delay_ms;
    if (delay > 0) await abortableSleep(delay, ctx.signal);
    return v;
  });
  next.fetched += batch.length;
  const documents = new Map<string, SourceDocument>();
  const deleted: string[] = [];
  const skipped: { external_id: string; reason: string }[] = [];
  for (const v of visits) {
    if (v.document) documents.set(v.document.external_id, v.document);
    if (v.deleted) deleted.push(v.deleted);
    if (v.skipped) skipped.push(v.skipped);
    for (const e of v.enqueue) enqueue(e);
  }
  // A URL both deleted (redirected away) and indexed in this batch stays.
  return page([...documents.values()], { deleted: deleted.filter((id) => !documents.has(id)), skipped });
}

/**
 * The crawl: a full sync starts from the seeds and the sitemap and fetches everything it reaches (what it does not
 * reach is swept); an incremental sync also revisits every stored page with a conditional GET (If-None-Match /
 * If-Modified-Since), deletes those that answer 404/410 or are now disallowed, and indexes new pages linked from
 * changed ones.
 */
export const webSync: SyncCapability<WebCredentials, WebSettings, WebCursor, WebPage> = {
  cursorSchema: webCursor,
  pageSchema: webPage,
  start(mode: SyncMode, _since: WebCursor | null, s: WebSettings): WebPage {
    const seeds = [...new Set(s.seed_urls.map((u) => normalizeUrl(u)).filter((u): u is string => u !== null))];
    return {
      mode,
      sitemaps: s.sitemap_url ? [s.sitemap_url] : [],
      revisit_stored: mode === 'incremental',
      frontier: seeds.map((url) => ({ url, depth: 0 })),
      queued: seeds,
      fetched: 0,
      robots: {},
    };
  },
  readPage: (ctx, p) => crawlStep(ctx, p),
};
