import { parseFile, type SourceDocument } from '../kit/index.ts';
import { bodyText, type Fetched, mediaType } from './client.ts';
import { type HtmlPage, readHtml } from './html.ts';

/** What one fetched page gives the crawl: a document (unless it asks to stay out of the index), links, a canonical URL. */
export interface ReadPage {
  readonly document: SourceDocument | null;
  readonly links: readonly string[];
  readonly canonical: string | null;
  /** Why there is no document (noindex, a media type the crawler does not read). */
  readonly why?: string;
}

const FILE_TYPES: Readonly<Record<string, string>> = {
  'application/pdf': 'page.pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'page.docx',
  'text/markdown': 'page.md',
};

/** The last path segment of a URL, decoded, as a fallback title. */
function lastSegment(url: string): string {
  const u = new URL(url);
  const seg = u.pathname.split('/').filter(Boolean).pop();
  try {
    return seg ? decodeURIComponent(seg) : u.host;
  } catch {
    return seg ?? u.host;
  }
}

function httpDate(value: string | null): string | undefined {
  if (!value) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

/**
 * A 200 answer as a document: HTML through the documents module's parser (title from `<title>`, else the first `<h1>`,
 * else the URL), plain text as is, PDF / DOCX / Markdown through the file parsers. `updated_at` is the answer's
 * Last-Modified; the validators (ETag, Last-Modified) go into metadata for the next incremental sync's conditional GET.
 */
export async function readFetched(f: Fetched & { body: Uint8Array }, depth: number): Promise<ReadPage> {
  const type = mediaType(f.headers);
  const meta = {
    content_type: type || undefined,
    etag: f.headers.get('etag') ?? undefined,
    last_modified: f.headers.get('last-modified') ?? undefined,
    depth,
  };
  const base = { external_id: f.url, url: f.url, updated_at: httpDate(f.headers.get('last-modified')) };
  if (type === 'text/html' || type === 'application/xhtml+xml' || type === '') {
    const page: HtmlPage = readHtml(bodyText(f.body, f.headers), f.url);
    const links = page.nofollow ? [] : page.links;
    if (page.noindex) return { document: null, links, canonical: page.canonical, why: 'noindex' };
    const url = page.canonical ?? f.url;
    return {
      document: { ...base, url, title: page.title ?? lastSegment(f.url), content: page.content, document_type: 'web_page', metadata: { ...meta, canonical_url: page.canonical ?? undefined } },
      links,
      canonical: page.canonical,
    };
  }
  if (type === 'text/plain') {
    return { document: { ...base, title: lastSegment(f.url), content: bodyText(f.body, f.headers).trim(), document_type: 'web_file', metadata: meta }, links: [], canonical: null };
  }
  const file = FILE_TYPES[type];
  if (file) {
    const parsed = await parseFile(file, f.body);
    return { document: { ...base, title: parsed.title ?? lastSegment(f.url), content: parsed.content, document_type: 'web_file', metadata: meta }, links: [], canonical: null };
  }
  return { document: null, links: [], canonical: null, why: `media type ${type} is not read` };
}
