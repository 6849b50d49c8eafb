import { abortableSleep, rateLimitFromResponse, SourceSettingsError, type SourceContext, VendorHttpError, VendorRateLimitedError } from '../kit/index.ts';

export const USER_AGENT = 'Mozilla/5.0 (compatible; AtriumBot/1.0; feed reader)';
const MAX_REDIRECTS = 5;

export interface FeedAnswer {
  /** 200 with a body, 304 (unchanged since the validators), or another 4xx. */
  readonly status: number;
  readonly url: string;
  readonly headers: Headers;
  readonly body: string | null;
  readonly tooLarge?: boolean;
}

/** The egress policy's refusal is a settings problem (a feed at a refused address), not worth retrying. */
export async function egress(ctx: Pick<SourceContext<unknown, unknown>, 'checkEgress'>, url: string): Promise<void> {
  try {
    await ctx.checkEgress?.(url);
  } catch (err) {
    if (err instanceof Error && err.name === 'EgressDeniedError') throw new SourceSettingsError(`${url}: ${err.message}`);
    throw err;
  }
}

/**
 * GET of one feed: under the egress policy on every hop, redirects followed by hand (feeds move: http → https, a new
 * host), conditional with the validators of the last answer (RFC 9110 §13.1), the body read up to `maxBytes`.
 * 429 (or 503 + Retry-After) → VendorRateLimitedError; 5xx/408 → transient VendorHttpError; other statuses returned.
 */
export async function fetchFeed(
  ctx: Pick<SourceContext<unknown, unknown>, 'fetch' | 'checkEgress' | 'signal'>,
  url: string,
  opts: { etag?: string; lastModified?: string; maxBytes: number },
): Promise<FeedAnswer> {
  let current = url;
  for (let hop = 0; ; hop++) {
    await egress(ctx, current);
    const headers: Record<string, string> = {
      'user-agent': USER_AGENT,
      accept: 'application/atom+xml, application/rss+xml, application/rdf+xml;q=0.9, application/xml;q=0.8, text/xml;q=0.8, */*;q=0.1',
    };
    if (opts.etag) headers['if-none-match'] = opts.etag;
    if (opts.lastModified) headers['if-modified-since'] = opts.lastModified;
    const res = await fetchRetryingOnce(ctx, current, { headers, redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && res.status !== 304 && location && hop < MAX_REDIRECTS) {
      await res.body?.cancel().catch(() => {});
      current = new URL(location, current).toString();
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
    const declared = Number(res.headers.get('content-length'));
    const bytes = Number.isFinite(declared) && declared > opts.maxBytes ? null : await readLimited(res, opts.maxBytes);
    if (!bytes) return { status: 200, url: current, headers: res.headers, body: null, tooLarge: true };
    return { status: 200, url: current, headers: res.headers, body: decode(bytes, res.headers) };
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

/** The charset of the Content-Type, else of the XML declaration, else UTF-8. */
function decode(bytes: Uint8Array, headers: Headers): string {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 200));
  const charset = /charset\s*=\s*"?([\w-]+)/i.exec(headers.get('content-type') ?? '')?.[1] ?? /<\?xml[^>]*encoding\s*=\s*["']([\w-]+)["']/i.exec(head)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}
