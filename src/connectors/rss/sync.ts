import type { Page, SourceContext, SourceDocument, SyncCapability, SyncMode } from '../kit/index.ts';
import { VendorHttpError } from '../kit/index.ts';
import { fetchFeed } from './client.ts';
import { parseFeed } from './feed.ts';
import { feedPrefix, itemDocument } from './map.ts';
import { type RssCredentials, type RssCursor, type RssPage, type RssSettings, rssCursor, rssPage } from './schemas.ts';

export type { RssCursor, RssPage };

type Ctx = SourceContext<RssCredentials, RssSettings>;

/** A failure to read a feed that keeps its stored items: the site erred or could not be reached. */
function feedFailure(err: unknown, signal: AbortSignal): string | null {
  if (signal.aborted) return null;
  if (err instanceof VendorHttpError) return err.message;
  if (err instanceof TypeError || (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))) return `unreachable (${err.message})`;
  return null;
}

/**
 * One feed per page. A full sync reads every feed unconditionally and stores every item; an incremental sync asks
 * with the feed's last validators (If-None-Match / If-Modified-Since: 304 = nothing new) and stores only items whose
 * content digest moved. Items a feed no longer lists are kept (`kept`: a feed is a window, not the source of truth)
 * unless `delete_missing_items` (then an incremental sync deletes them and a full sync's sweep does).
 */
async function readFeed(ctx: Ctx, p: RssPage): Promise<Page<RssPage, RssCursor>> {
  const s = ctx.settings;
  const feedUrl = s.feed_urls[p.index];
  const feeds = { ...p.feeds };
  const page = (extra: Partial<Page<RssPage, RssCursor>> & { documents?: SourceDocument[] } = {}): Page<RssPage, RssCursor> => {
    const cursor = { feeds: Object.fromEntries(Object.entries(feeds).filter(([u]) => s.feed_urls.includes(u))) };
    return { documents: [], ...extra, next: p.index + 1 < s.feed_urls.length ? { ...p, index: p.index + 1, feeds } : null, cursor };
  };
  if (!feedUrl) return page();
  const full = p.mode === 'full';
  const stored = await ctx.stored(feedPrefix(feedUrl));
  const unreadable = (reason: string) => {
    ctx.log.warn({ feed: feedUrl, reason }, 'feed not read');
    const why = `feed ${feedUrl}: ${reason}`;
    return page({ skipped: stored.length > 0 ? stored.map((d) => ({ external_id: d.external_id, reason: why })) : [{ external_id: feedPrefix(feedUrl), reason: why }] });
  };
  const prior = full ? undefined : p.feeds[feedUrl];
  let answer: Awaited<ReturnType<typeof fetchFeed>>;
  try {
    answer = await fetchFeed(ctx, feedUrl, { etag: prior?.etag, lastModified: prior?.last_modified, maxBytes: s.max_feed_size_mb * 1024 * 1024 });
  } catch (err) {
    const failure = feedFailure(err, ctx.signal);
    if (failure === null) throw err;
    return unreadable(failure);
  }
  // RFC 9110 §15.4.5: the feed did not change since the validators of its last answer.
  if (answer.status === 304) return page();
  if (answer.status !== 200 || answer.body === null) return unreadable(answer.tooLarge ? `larger than max_feed_size_mb (${s.max_feed_size_mb})` : `answered HTTP ${answer.status}`);
  let feed: ReturnType<typeof parseFeed>;
  try {
    feed = parseFeed(answer.body, answer.url);
  } catch (err) {
    return unreadable(err instanceof Error ? err.message : String(err));
  }
  const etag = answer.headers.get('etag');
  const lastModified = answer.headers.get('last-modified');
  feeds[feedUrl] = { ...(etag ? { etag } : {}), ...(lastModified ? { last_modified: lastModified } : {}) };
  const documents = new Map<string, SourceDocument>();
  for (const item of feed.items) {
    const d = itemDocument(feedUrl, feed, item);
    if (!documents.has(d.external_id)) documents.set(d.external_id, d);
  }
  const storedHash = new Map(stored.map((d) => [d.external_id, d.metadata.item_hash]));
  const changed = [...documents.values()].filter((d) => full || storedHash.get(d.external_id) !== d.metadata?.item_hash);
  const missing = stored.map((d) => d.external_id).filter((id) => !documents.has(id));
  if (s.delete_missing_items) return page({ documents: changed, deleted: full ? [] : missing });
  return page({ documents: changed, kept: full ? missing : [] });
}

export const rssSync: SyncCapability<RssCredentials, RssSettings, RssCursor, RssPage> = {
  cursorSchema: rssCursor,
  pageSchema: rssPage,
  start: (mode: SyncMode, since: RssCursor | null) => ({ mode, index: 0, feeds: since?.feeds ?? {} }),
  readPage: (ctx, p) => readFeed(ctx, p),
};
