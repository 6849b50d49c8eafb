import { checkEgressOf, type KindDefinition } from '../kit/index.ts';
import { type RssCredentials, type RssSettings, rssCredentials, rssSettings } from './schemas.ts';
import { type RssCursor, type RssPage, rssSync } from './sync.ts';

/**
 * `rss`: items of RSS 2.0, RSS 1.0 (RDF) and Atom 1.0 feeds as documents; conditional GETs on each feed (RFC 9110
 * ETag / Last-Modified), items stored again only when they change, and kept when they drop out of the feed unless
 * `delete_missing_items`.
 */
export const rssKind: KindDefinition<RssCredentials, RssSettings, RssCursor, RssPage> = {
  type: 'rss',
  displayName: 'RSS / Atom feeds',
  category: 'web',
  group: 'productivity',
  authTypes: ['none'],
  credentials: rssCredentials,
  settings: rssSettings,
  contentTypes: ['feed_items'],
  // A feed documents no API quota: one conditional GET per feed and sync. A 429 (or 503 with Retry-After) is waited out;
  // requests_per_minute caps it when set.
  vendorLimits: {},
  hasUsableCredentials: () => true,
  // No credentials to check: each feed's address must pass the egress policy (a settings problem if not).
  async validate(ctx) {
    for (const u of ctx.settings.feed_urls) await checkEgressOf(ctx, u);
    return { ok: true, account: `${ctx.settings.feed_urls.length} feed(s)` };
  },
  sync: rssSync,
};
