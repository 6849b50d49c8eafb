import { createHash } from 'node:crypto';
import { parseHtml, type SourceDocument } from '../kit/index.ts';
import type { Feed, FeedItem } from './feed.ts';

/** The prefix of every item of one feed (its configured URL): what deletions and the stored lookup use. */
export const feedPrefix = (feedUrl: string) => `${feedUrl}#`;

/** An item's key within its feed: its guid / id, else its link, else a hash of its title and date. */
export function itemKey(item: FeedItem): string {
  return item.id ?? item.link ?? `sha256:${createHash('sha256').update(`${item.title}\n${item.published ?? item.updated ?? ''}`).digest('hex').slice(0, 32)}`;
}

/** A digest of everything the document is made of: an incremental sync stores an item again only when it moved. */
export function itemHash(item: FeedItem): string {
  return createHash('sha256')
    .update(JSON.stringify([item.title, item.link, item.author, item.published, item.updated, item.body, item.categories]))
    .digest('hex')
    .slice(0, 32);
}

function plain(value: string): string {
  return /<[a-z!/][^>]*>|&[#a-z0-9]+;/i.test(value) ? parseHtml(`<body>${value}</body>`).content : value.trim();
}

/**
 * One feed item as a document: title (markup stripped; else the start of the text), the item's link as `url`,
 * author (an email lower-cased, else the name), published → created_at, updated (else published) → updated_at,
 * the content HTML (`content:encoded` / Atom content, else the description / summary) as text.
 */
export function itemDocument(feedUrl: string, feed: Feed, item: FeedItem): SourceDocument {
  const content = item.body ? ('html' in item.body ? parseHtml(`<body>${item.body.html}</body>`).content : item.body.text) : '';
  const title = plain(item.title) || content.split('\n')[0]?.slice(0, 120) || item.link || 'Untitled item';
  return {
    external_id: feedPrefix(feedUrl) + itemKey(item),
    title,
    content: content || title,
    ...(item.link ? { url: item.link } : {}),
    ...(item.author ? { author: item.author } : {}),
    document_type: 'feed_item',
    ...(item.published ? { created_at: item.published } : {}),
    ...((item.updated ?? item.published) ? { updated_at: item.updated ?? item.published } : {}),
    metadata: {
      feed_url: feedUrl,
      feed_title: plain(feed.title) || undefined,
      feed_format: feed.format,
      guid: item.id,
      categories: item.categories.length > 0 ? item.categories : undefined,
      item_hash: itemHash(item),
    },
  };
}
