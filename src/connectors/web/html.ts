import { parseHtml } from '../kit/index.ts';
import { normalizeUrl } from './url.ts';

/** What the crawler reads from one HTML page besides its text. */
export interface HtmlPage {
  readonly title: string | null;
  readonly content: string;
  /** `<link rel="canonical">`, absolute. */
  readonly canonical: string | null;
  /** `<a href>` targets, absolute and normalized, in document order, each once. */
  readonly links: string[];
  /** `<meta name="robots">` says noindex (keep the page out of the index) / nofollow (follow none of its links). */
  readonly noindex: boolean;
  readonly nofollow: boolean;
}

/** The attributes of one start tag, names lower-cased, character references in values decoded. */
function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g)) {
    const name = m[1]?.toLowerCase();
    if (!name || name in out) continue;
    out[name] = decodeEntities(m[2] ?? m[3] ?? m[4] ?? '');
  }
  return out;
}

function decodeEntities(v: string): string {
  return v.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, e: string) => {
    const l = e.toLowerCase();
    if (l.startsWith('#x')) return String.fromCodePoint(Number.parseInt(l.slice(2), 16));
    if (l.startsWith('#')) return String.fromCodePoint(Number(l.slice(1)));
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[l] ?? _;
  });
}

/** Start tags named `name` (outside comments, scripts and styles), with their attributes. */
function tags(html: string, name: string): Record<string, string>[] {
  const re = new RegExp(`<${name}\\b((?:[^>"']|"[^"]*"|'[^']*')*)>`, 'gi');
  return [...html.matchAll(re)].map((m) => attributes(m[1] ?? ''));
}

/** Reads a page: text and `<title>` through the documents module's HTML parser, the rest from its tags. */
export function readHtml(html: string, pageUrl: string): HtmlPage {
  const markup = html.replace(/<!--[\s\S]*?-->/g, '').replace(/<(script|style|template)\b[\s\S]*?<\/\1\s*>/gi, '');
  const baseHref = tags(markup, 'base')[0]?.href;
  const base = (baseHref && normalizeUrl(baseHref, pageUrl)) || pageUrl;
  const parsed = parseHtml(html);
  const h1 = /<h1\b[^>]*>([\s\S]*?)<\/h1\s*>/i.exec(markup)?.[1];
  const h1Text = h1 ? decodeEntities(h1.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ').trim() : '';
  const canonicalHref = tags(markup, 'link').find((a) => (a.rel ?? '').toLowerCase().split(/\s+/).includes('canonical') && a.href)?.href;
  const robots = tags(markup, 'meta')
    .filter((a) => ['robots', 'atriumbot'].includes((a.name ?? '').toLowerCase()))
    .map((a) => (a.content ?? '').toLowerCase())
    .join(',');
  const links: string[] = [];
  const seen = new Set<string>();
  for (const a of tags(markup, 'a')) {
    if (!a.href) continue;
    const u = normalizeUrl(a.href, base);
    if (u && !seen.has(u)) {
      seen.add(u);
      links.push(u);
    }
  }
  return {
    title: parsed.title || h1Text || null,
    content: parsed.content,
    canonical: canonicalHref ? normalizeUrl(canonicalHref, base) : null,
    links,
    noindex: /\b(noindex|none)\b/.test(robots),
    nofollow: /\b(nofollow|none)\b/.test(robots),
  };
}
