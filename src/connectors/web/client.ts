import { gunzipSync } from 'node:zlib';
import { fetchPublic, type PublicAnswer, type SourceContext } from '../kit/index.ts';
import { normalizeUrl } from './url.ts';

/** The product token robots.txt groups name (RFC 9309 §2.2.1) and the User-Agent header that carries it. */
export const ROBOTS_TOKEN = 'AtriumBot';
export const USER_AGENT = 'Mozilla/5.0 (compatible; AtriumBot/1.0; knowledge-service crawler)';

/** A crawled resource's answer (kit `fetchPublic`): status 0 when a redirect left the crawl's scope. */
export type Fetched = PublicAnswer;

export interface FetchOptions {
  readonly inScope: (url: string) => boolean;
  readonly maxBytes: number;
  readonly accept?: string;
  /** Validators of the stored copy (RFC 9110 §13.1): a 304 answer means it is unchanged. */
  readonly etag?: string;
  readonly lastModified?: string;
}

/**
 * One GET of a public web resource through the kit's `fetchPublic` (egress policy on every hop, redirects followed
 * only within the crawl's scope, body up to `maxBytes`), conditional when validators are given; a gzip file (a
 * `.xml.gz` sitemap) comes back decompressed.
 */
export async function crawlFetch(ctx: Pick<SourceContext<unknown, unknown>, 'fetch' | 'checkEgress' | 'signal'>, url: string, opts: FetchOptions): Promise<Fetched> {
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: opts.accept ?? 'text/html,application/xhtml+xml,text/plain;q=0.8,application/pdf;q=0.5,*/*;q=0.1' };
  if (opts.etag) headers['if-none-match'] = opts.etag;
  if (opts.lastModified) headers['if-modified-since'] = opts.lastModified;
  const answer = await fetchPublic(ctx, url, {
    headers,
    maxBytes: opts.maxBytes,
    follow: (location, from) => {
      const next = normalizeUrl(location, from);
      return next && opts.inScope(next) ? next : null;
    },
  });
  return answer.body ? { ...answer, body: gunzipped(answer.body, opts.maxBytes) } : answer;
}

/** A gzip file (a `.xml.gz` sitemap served as-is; fetch already undoes a gzip Content-Encoding). */
function gunzipped(body: Uint8Array, maxBytes: number): Uint8Array {
  if (body[0] !== 0x1f || body[1] !== 0x8b) return body;
  try {
    return gunzipSync(body, { maxOutputLength: maxBytes });
  } catch {
    return body;
  }
}

/** The media type of an answer, lower-cased, without parameters. */
export function mediaType(headers: Headers): string {
  return (headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** The body as text in the charset the answer declares (UTF-8 when it declares none or one unknown). */
export function bodyText(body: Uint8Array, headers: Headers): string {
  const charset = /charset\s*=\s*"?([\w-]+)/i.exec(headers.get('content-type') ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
