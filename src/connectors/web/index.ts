import { checkEgressOf, type KindDefinition } from '../kit/index.ts';
import { type WebCredentials, type WebSettings, webCredentials, webSettings } from './schemas.ts';
import { type WebCursor, type WebPage, webSync } from './sync.ts';
import { crawlScope } from './url.ts';

/**
 * `web`: a website crawled from seed URLs and/or a sitemap, within its origins, honouring robots.txt (RFC 9309);
 * pages' text through the documents module's HTML parser, linked PDF / DOCX through its file parsers; incremental
 * syncs revisit pages with conditional GETs (RFC 9110 ETag / Last-Modified).
 */
export const webKind: KindDefinition<WebCredentials, WebSettings, WebCursor, WebPage> = {
  type: 'web',
  displayName: 'Website crawler',
  category: 'web',
  group: 'productivity',
  authTypes: ['none'],
  credentials: webCredentials,
  settings: webSettings,
  contentTypes: ['web_pages', 'pdf', 'docx', 'text'],
  // A website documents no API quota: politeness is the crawler's own (`concurrency`, `delay_ms`, robots.txt
  // Crawl-delay); a 429 or a 503 with Retry-After is waited out. requests_per_minute caps it further when set.
  vendorLimits: {},
  hasUsableCredentials: () => true,
  // No credentials to check: every origin the crawl starts from must pass the egress policy (a settings problem if not).
  async validate(ctx) {
    const origins = [...crawlScope(ctx.settings).origins];
    for (const o of origins) await checkEgressOf(ctx, o);
    return { ok: true, account: origins.join(', ') };
  },
  sync: webSync,
};
