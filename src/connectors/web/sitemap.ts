import { DOMParser } from '@xmldom/xmldom';

/** What one sitemap file lists (sitemaps.org protocol 0.9): page URLs (a `urlset`) or more sitemaps (a `sitemapindex`). */
export interface Sitemap {
  readonly urls: readonly { readonly loc: string; readonly lastmod?: string }[];
  readonly sitemaps: readonly string[];
}

/** The protocol's limits: 50,000 URLs and 50 MB (uncompressed) per file. */
export const SITEMAP_MAX_URLS = 50_000;

function childText(el: Element, name: string): string | undefined {
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as Element).localName === name) return (n.textContent ?? '').trim() || undefined;
  }
  return undefined;
}

/**
 * Parses a sitemap or sitemap index. Elements are matched by local name, so a sitemap that omits or misspells the
 * namespace still reads. Entity declarations are refused (no expansion bombs); a file that is not XML throws.
 */
export function parseSitemap(xml: string): Sitemap {
  if (/<!ENTITY/i.test(xml)) throw new Error('the sitemap declares XML entities, which are refused');
  let failed: string | null = null;
  const doc = new DOMParser({
    errorHandler: {
      warning: () => {},
      error: (m: string) => {
        failed ??= m;
      },
      fatalError: (m: string) => {
        failed ??= m;
      },
    },
  }).parseFromString(xml, 'text/xml');
  const root = doc?.documentElement;
  if (failed || !root) throw new Error(`the sitemap is not well-formed XML${failed ? `: ${String(failed).slice(0, 120)}` : ''}`);
  const urls: { loc: string; lastmod?: string }[] = [];
  const sitemaps: string[] = [];
  if (root.localName !== 'urlset' && root.localName !== 'sitemapindex') throw new Error(`not a sitemap: the root element is <${root.localName}>`);
  for (let n = root.firstChild; n; n = n.nextSibling) {
    if (n.nodeType !== 1) continue;
    const el = n as Element;
    const loc = childText(el, 'loc');
    if (!loc) continue;
    if (root.localName === 'sitemapindex' && el.localName === 'sitemap') sitemaps.push(loc);
    else if (root.localName === 'urlset' && el.localName === 'url' && urls.length < SITEMAP_MAX_URLS) {
      const lastmod = childText(el, 'lastmod');
      urls.push({ loc, ...(lastmod ? { lastmod } : {}) });
    }
  }
  return { urls, sitemaps };
}
