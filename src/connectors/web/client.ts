import { gunzipSync } from 'node:zlib';
import { abortableSleep, rateLimitFromResponse, SourceSettingsError, type SourceContext, VendorHttpError, VendorRateLimitedError } from '../kit/index.ts';
import { normalizeUrl } from './url.ts';

/** The product token robots.txt groups name (RFC 9309 §2.2.1) and the User-Agent header that carries it. */
export const ROBOTS_TOKEN = 'AtriumBot';
export const USER_AGENT = 'Mozilla/5.0 (compatible; AtriumBot/1.0; knowledge-service crawler)';

/** Redirects followed per URL, each checked against the crawl's scope and the egress policy. */
const MAX_REDIRECTS = 5;

export interface Fetched {
  /** The answer's status; 0 when a redirect left the crawl's scope (`leftScope` says where). */
  readonly status: number;
  /** The URL finally answered (after in-scope redirects), normalized. */
  readonly url: string;
  readonly headers: Headers;
  /** The body of a 200 (decompressed when it was a gzip file); null otherwise or when larger than allowed. */
  readonly body: Uint8Array | null;
  readonly tooLarge?: boolean;
  readonly leftScope?: string;
}

export interface FetchOptions {
  readonly inScope: (url: string) => boolean;
  readonly maxBytes: number;
  readonly accept?: string;
  /** Validators of the stored copy (RFC 9110 §13.1): a 304 answer means it is unchanged. */
  readonly etag?: string;
  readonly lastModified?: string;
}

/**
 * One GET of a public web resource: under the egress policy (every hop), following redirects itself and only within
 * the crawl's scope, conditional when validators are given, its body read up to `maxBytes`. A 429 (or 503 with
 * Retry-After) throws `VendorRateLimitedError`; 5xx and 408 throw a transient `VendorHttpError`; other statuses are
 * returned for the caller to judge (404/410 gone, 304 unchanged…).
 */
export async function crawlFetch(ctx: Pick<SourceContext<unknown, unknown>, 'fetch' | 'checkEgress' | 'signal'>, url: string, opts: FetchOptions): Promise<Fetched> {
  let current = url;
  for (let hop = 0; ; hop++) {
    await egress(ctx, current);
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: opts.accept ?? 'text/html,application/xhtml+xml,text/plain;q=0.8,application/pdf;q=0.5,*/*;q=0.1' };
    if (opts.etag) headers['if-none-match'] = opts.etag;
    if (opts.lastModified) headers['if-modified-since'] = opts.lastModified;
    const res = await fetchRetryingOnce(ctx, current, { headers, redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && res.status !== 304 && location) {
      await res.body?.cancel().catch(() => {});
      const next = normalizeUrl(location, current);
      if (!next || !opts.inScope(next) || hop >= MAX_REDIRECTS) return { status: 0, url: current, headers: res.headers, body: null, leftScope: next ?? location };
      current = next;
      continue;
    }
    const limited = rateLimitFromResponse(res.status, (n) => res.headers.get(n)) ?? (res.status === 503 && res.headers.get('retry-after') ? rateLimitFromResponse(429, (n) => res.headers.get(n)) : null);
    if (limited) {
      await res.body?.cancel().catch(() => {});
      throw new VendorRateLimitedError(`${new URL(current).host} rate limit (HTTP ${res.status})`, limited.retryAfterMs);
    }
    if (res.status >= 500 || res.status === 408) {
      await res.body?.cancel().catch(() => {});
      throw new VendorHttpError(`${current} answered HTTP ${res.status}`, res.status);
    }
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => {});
      return { status: res.status, url: current, headers: res.headers, body: null };
    }
    const body = await readLimited(res, opts.maxBytes);
    if (!body) return { status: 200, url: current, headers: res.headers, body: null, tooLarge: true };
    return { status: 200, url: current, headers: res.headers, body: gunzipped(body, opts.maxBytes) };
  }
}

/** The egress policy's refusal is a settings problem (the crawl points at a refused address), not worth retrying. */
export async function egress(ctx: Pick<SourceContext<unknown, unknown>, 'checkEgress'>, url: string): Promise<void> {
  try {
    await ctx.checkEgress?.(url);
  } catch (err) {
    if (err instanceof Error && err.name === 'EgressDeniedError') throw new SourceSettingsError(`${url}: ${err.message}`);
    throw err;
  }
}

/**
 * `ctx.fetch`, once more after half a second when the connection itself failed (a reset or a kept-alive socket the
 * server had just closed: fetch's TypeError); timeouts and aborts are not retried here.
 */
async function fetchRetryingOnce(ctx: Pick<SourceContext<unknown, unknown>, 'fetch' | 'signal'>, url: string, init: RequestInit): Promise<Response> {
  try {
    return await ctx.fetch(url, init);
  } catch (err) {
    if (!(err instanceof TypeError) || ctx.signal.aborted) throw err;
    await abortableSleep(500, ctx.signal);
    return ctx.fetch(url, init);
  }
}

async function readLimited(res: Response, maxBytes: number): Promise<Uint8Array | null> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    return null;
  }
  if (!res.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
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
