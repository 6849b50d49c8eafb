import { DOMParser, XMLSerializer } from '@xmldom/xmldom';

/**
 * Feeds in the three formats in use, read into one shape: RSS 2.0 (the RSS Advisory Board's specification), RSS 1.0
 * (RDF Site Summary, with the content and Dublin Core modules) and Atom 1.0 (RFC 4287).
 */
export interface FeedItem {
  /** RSS `<guid>`, Atom `<id>`, RSS 1.0 `rdf:about`; absent when the feed gives none. */
  readonly id?: string;
  readonly title: string;
  readonly link?: string;
  readonly author?: string;
  readonly published?: string;
  readonly updated?: string;
  /** The richest body the item has: HTML (`content:encoded`, Atom html/xhtml, RSS `description`) or plain text. */
  readonly body: { readonly html: string } | { readonly text: string } | null;
  readonly categories: readonly string[];
}

export interface Feed {
  readonly format: 'rss2' | 'rss1' | 'atom';
  readonly title: string;
  readonly link?: string;
  readonly items: readonly FeedItem[];
}

const NS = {
  atom: 'http://www.w3.org/2005/Atom',
  rss1: 'http://purl.org/rss/1.0/',
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  content: 'http://purl.org/rss/1.0/modules/content/',
  dc: 'http://purl.org/dc/elements/1.1/',
} as const;

/** Items read per feed at most. */
export const MAX_ITEMS = 2000;

function elements(parent: Node, local: string, ns: string | null): Element[] {
  const out: Element[] = [];
  for (let n = parent.firstChild; n; n = n.nextSibling) {
    if (n.nodeType !== 1) continue;
    const e = n as Element;
    if (e.localName === local && (e.namespaceURI || null) === ns) out.push(e);
  }
  return out;
}

function text(parent: Node, local: string, ns: string | null): string | undefined {
  const e = elements(parent, local, ns)[0];
  const t = e?.textContent?.trim();
  return t || undefined;
}

function isoDate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

/** A link resolved against `xml:base` (Atom) and the feed's URL. */
function resolve(href: string | undefined, el: Element, feedUrl: string): string | undefined {
  if (!href) return undefined;
  const bases: string[] = [];
  for (let n: Node | null = el; n && n.nodeType === 1; n = n.parentNode) {
    const b = (n as Element).getAttribute('xml:base');
    if (b) bases.unshift(b);
  }
  try {
    const base = bases.reduce((acc, b) => new URL(b, acc).toString(), feedUrl);
    return new URL(href.trim(), base).toString();
  } catch {
    return undefined;
  }
}

/** An Atom text construct (RFC 4287 §3.1): text, html (escaped markup) or xhtml (a `<div>` of markup). */
function atomText(el: Element | undefined): { html: string } | { text: string } | null {
  if (!el) return null;
  const type = (el.getAttribute('type') || 'text').toLowerCase();
  if (type === 'xhtml') {
    const div = elements(el, 'div', 'http://www.w3.org/1999/xhtml')[0] ?? el;
    const s = new XMLSerializer();
    let html = '';
    for (let n = div.firstChild; n; n = n.nextSibling) html += s.serializeToString(n);
    return { html };
  }
  const value = el.textContent ?? '';
  if (!value.trim()) return null;
  return type === 'html' || type === 'text/html' ? { html: value } : { text: value.trim() };
}

/** `jo@example.com (Jo Doe)` / `Jo Doe <jo@example.com>` → the email, lower-cased; else the text as a name. */
function person(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const email = /[^\s<>()"]+@[^\s<>()"]+\.[^\s<>()"]+/.exec(value)?.[0];
  return email ? email.toLowerCase() : value.trim() || undefined;
}

function atomAuthor(parent: Element): string | undefined {
  const a = elements(parent, 'author', NS.atom)[0];
  if (!a) return undefined;
  return person(text(a, 'email', NS.atom)) ?? text(a, 'name', NS.atom);
}

function atomFeed(root: Element, feedUrl: string): Feed {
  const feedAuthor = atomAuthor(root);
  const link = (el: Element) => {
    const links = elements(el, 'link', NS.atom);
    const alt = links.find((l) => (l.getAttribute('rel') || 'alternate') === 'alternate') ?? links[0];
    return resolve(alt?.getAttribute('href') ?? undefined, alt ?? el, feedUrl);
  };
  const items = elements(root, 'entry', NS.atom)
    .slice(0, MAX_ITEMS)
    .map((e): FeedItem => {
      const content = elements(e, 'content', NS.atom)[0];
      // Out-of-line content (`src`) is not fetched: the summary stands in.
      const body = (content && !content.getAttribute('src') ? atomText(content) : null) ?? atomText(elements(e, 'summary', NS.atom)[0]);
      const title = atomText(elements(e, 'title', NS.atom)[0]);
      return {
        id: text(e, 'id', NS.atom),
        title: title ? ('html' in title ? title.html : title.text) : '',
        link: link(e),
        author: atomAuthor(e) ?? (elements(e, 'source', NS.atom)[0] ? atomAuthor(elements(e, 'source', NS.atom)[0] as Element) : undefined) ?? feedAuthor,
        published: isoDate(text(e, 'published', NS.atom)),
        updated: isoDate(text(e, 'updated', NS.atom)),
        body,
        categories: elements(e, 'category', NS.atom)
          .map((c) => c.getAttribute('label') || c.getAttribute('term') || '')
          .filter(Boolean),
      };
    });
  const title = atomText(elements(root, 'title', NS.atom)[0]);
  return { format: 'atom', title: title ? ('html' in title ? title.html : title.text) : '', link: link(root), items };
}

/** An RSS 2.0 `<item>` or RSS 1.0 `<item>` (`ns` = the format's element namespace: none, or the RSS 1.0 one). */
function rssItem(e: Element, ns: string | null, feedUrl: string): FeedItem {
  const guid = text(e, 'guid', ns) ?? (e.getAttributeNS(NS.rdf, 'about') || undefined);
  const encoded = text(e, 'encoded', NS.content);
  const description = text(e, 'description', ns);
  return {
    id: guid,
    title: text(e, 'title', ns) ?? '',
    link: resolve(text(e, 'link', ns), e, feedUrl),
    author: person(text(e, 'author', ns)) ?? text(e, 'creator', NS.dc),
    published: isoDate(text(e, 'pubDate', ns) ?? text(e, 'date', NS.dc)),
    updated: undefined,
    // RSS 2.0 `description` is "entity-encoded HTML is allowed": treat it as HTML.
    body: encoded ? { html: encoded } : description ? { html: description } : null,
    categories: [...elements(e, 'category', ns).map((c) => c.textContent?.trim() ?? ''), ...elements(e, 'subject', NS.dc).map((c) => c.textContent?.trim() ?? '')].filter(Boolean),
  };
}

/** Parses a feed; throws on anything that is not well-formed XML in one of the three formats. Entity declarations are refused. */
export function parseFeed(xml: string, feedUrl: string): Feed {
  if (/<!ENTITY/i.test(xml)) throw new Error('the feed declares XML entities, which are refused');
  let failed: string | null = null;
  const onError = (m: string) => {
    failed ??= m;
  };
  const doc = new DOMParser({ errorHandler: { warning: () => {}, error: onError, fatalError: onError } }).parseFromString(xml, 'text/xml');
  const root = doc?.documentElement;
  if (failed || !root) throw new Error(`the feed is not well-formed XML${failed ? `: ${String(failed).slice(0, 120)}` : ''}`);
  if (root.localName === 'feed' && root.namespaceURI === NS.atom) return atomFeed(root, feedUrl);
  if (root.localName === 'rss') {
    const channel = elements(root, 'channel', null)[0];
    if (!channel) throw new Error('an RSS feed without <channel>');
    return {
      format: 'rss2',
      title: text(channel, 'title', null) ?? '',
      link: resolve(text(channel, 'link', null), channel, feedUrl),
      items: elements(channel, 'item', null)
        .slice(0, MAX_ITEMS)
        .map((e) => rssItem(e, null, feedUrl)),
    };
  }
  if (root.localName === 'RDF' && root.namespaceURI === NS.rdf) {
    const channel = elements(root, 'channel', NS.rss1)[0];
    return {
      format: 'rss1',
      title: channel ? (text(channel, 'title', NS.rss1) ?? '') : '',
      link: channel ? resolve(text(channel, 'link', NS.rss1), channel, feedUrl) : undefined,
      // RSS 1.0 items are siblings of the channel, under rdf:RDF.
      items: elements(root, 'item', NS.rss1)
        .slice(0, MAX_ITEMS)
        .map((e) => rssItem(e, NS.rss1, feedUrl)),
    };
  }
  throw new Error(`not an RSS or Atom feed: the root element is <${root.localName}>`);
}
