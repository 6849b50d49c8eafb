import type { SourceContext } from './contract.ts';
import { rateLimitFromResponse, SourceSettingsError, VendorRateLimitedError } from './errors.ts';
import { VendorHttpError } from './http.ts';
import { abortableSleep } from './sleep.ts';

type FetchCtx = Pick<SourceContext<unknown, unknown>, 'fetch' | 'checkEgress' | 'signal'>;

/** Redirects followed per request, each checked against the caller's scope and the egress policy. */
const MAX_REDIRECTS = 5;

/** The egress policy's refusal of a URL is a settings problem (the connector points at a refused address), not worth retrying. */
export async function checkEgressOf(ctx: Pick<SourceContext<unknown, unknown>, 'checkEgress'>, url: string): Promise<void> {
  try {
    await ctx.checkEgress?.(url);
  } catch (err) {
    if (err instanceof Error && err.name === 'EgressDeniedError') throw new SourceSettingsError(`${url}: ${err.message}`);
    throw err;
  }
}

export interface PublicAnswer {
  /** The answer's status; 0 when a redirect was not followed (`leftScope` says where it pointed). */
  readonly status: number;
  /** The URL finally answered, after the redirects followed. */
  readonly url: string;
  readonly headers: Headers;
  /** The body of a 200 (null for other statuses, or when larger than `maxBytes`: then `tooLarge`). */
  readonly body: Uint8Array | null;
  readonly tooLarge?: boolean;
  readonly leftScope?: string;
}

export interface PublicRequest {
  readonly headers: Record<string, string>;
  readonly maxBytes: number;
  /** Where a redirect's Location leads, or null to stop there (out of the caller's scope). */
  readonly follow: (location: string, from: string) => string | null;
}

/**
 * One GET of a public web resource (a crawled page, a feed): under the egress policy on every hop, redirects followed
 * by hand and only where `follow` allows, the body read up to `maxBytes`. A 429 (or 503 with Retry-After) throws
 * `VendorRateLimitedError`; 5xx and 408 throw a transient `VendorHttpError`; other statuses are returned for the
 * caller to judge (304 unchanged, 404/410 gone…).
 */
export async function fetchPublic(ctx: FetchCtx, url: string, req: PublicRequest): Promise<PublicAnswer> {
  let current = url;
  for (let hop = 0; ; hop++) {
    await checkEgressOf(ctx, current);
    const res = await fetchRetryingOnce(ctx, current, { headers: req.headers, redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && res.status !== 304 && location) {
      await res.body?.cancel().catch(() => {});
      const next = req.follow(location, current);
      if (!next || hop >= MAX_REDIRECTS) return { status: 0, url: current, headers: res.headers, body: null, leftScope: next ?? location };
      current = next;
      continue;
    }
    const limited =
      rateLimitFromResponse(res.status, (n) => res.headers.get(n)) ??
      (res.status === 503 && res.headers.get('retry-after') ? rateLimitFromResponse(429, (n) => res.headers.get(n)) : null);
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
    const body = await readLimited(res, req.maxBytes);
    return body ? { status: 200, url: current, headers: res.headers, body } : { status: 200, url: current, headers: res.headers, body: null, tooLarge: true };
  }
}

/**
 * `ctx.fetch`, once more after half a second when the connection itself failed (a reset, a refused connect: fetch's
 * TypeError); timeouts and aborts are not retried here. Only for GETs.
 */
async function fetchRetryingOnce(ctx: FetchCtx, url: string, init: RequestInit): Promise<Response> {
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
