import picomatch from 'picomatch';
import type { WebSettings } from './schemas.ts';

/**
 * A URL as the crawler keys it (and stores it as the document's external id): http(s) only, no fragment, no
 * credentials, scheme and host lower-cased and the default port dropped (what `URL` does), an empty path as `/`.
 * Null for anything else (mailto:, javascript:, a malformed href).
 */
export function normalizeUrl(href: string, base?: string): string | null {
  let u: URL;
  try {
    u = new URL(href.trim(), base);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  u.hash = '';
  u.username = '';
  u.password = '';
  return u.toString();
}

/** Which URLs a crawl may fetch: its origins (the seeds', the sitemap's and the allowed ones), then the include/exclude globs. */
export interface Scope {
  readonly origins: ReadonlySet<string>;
  inScope(url: string): boolean;
}

export function crawlScope(s: Pick<WebSettings, 'seed_urls' | 'sitemap_url' | 'allowed_origins' | 'include_patterns' | 'exclude_patterns'>): Scope {
  const origins = new Set<string>([...s.seed_urls.map((u) => new URL(u).origin), ...(s.sitemap_url ? [new URL(s.sitemap_url).origin] : []), ...s.allowed_origins]);
  const include = s.include_patterns.length > 0 ? picomatch(s.include_patterns, { dot: true }) : null;
  const exclude = s.exclude_patterns.length > 0 ? picomatch(s.exclude_patterns, { dot: true }) : null;
  const seeds = new Set(s.seed_urls.map((u) => normalizeUrl(u)));
  return {
    origins,
    inScope(url) {
      const u = new URL(url);
      if (!origins.has(u.origin)) return false;
      if (seeds.has(url)) return true;
      const path = decodeSafe(u.pathname);
      if (exclude?.(path)) return false;
      return include ? include(path) : true;
    },
  };
}

function decodeSafe(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}

/** Extensions that are never pages or documents the crawler can read (saves a request each). */
const SKIPPED_EXTENSIONS = /\.(png|jpe?g|gif|webp|svg|ico|bmp|tiff?|mp[34]|m4[av]|mov|avi|webm|ogg|wav|flac|zip|tar|gz|tgz|bz2|7z|rar|exe|dmg|iso|msi|apk|woff2?|ttf|otf|eot|css|js|mjs|map|wasm|json|xml|rss|atom)$/i;

export function looksUnreadable(url: string): boolean {
  return SKIPPED_EXTENSIONS.test(new URL(url).pathname);
}
