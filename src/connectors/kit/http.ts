import type { SourceContext } from './contract.ts';
import { rateLimitFromResponse, VendorAuthError, VendorRateLimitedError } from './errors.ts';

/** A vendor answered an HTTP error that is neither a rate limit nor rejected credentials (404, 5xx, …). */
export class VendorHttpError extends Error {
  override readonly name = 'VendorHttpError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
  /** 5xx and 408: worth retrying with the job's backoff; 4xx: the request itself is wrong. */
  get transient(): boolean {
    return this.status >= 500 || this.status === 408;
  }
}

export interface VendorRequest extends Omit<RequestInit, 'body'> {
  /** The vendor's name, for messages ("Confluence answered 401 …"). */
  readonly vendor: string;
  /** What to do about rejected credentials, appended to the message (which scopes or which kind of token). */
  readonly authHint?: string;
  /** Query parameters; undefined values are left out. */
  readonly query?: Record<string, string | number | boolean | undefined | null>;
  /** A JSON body (sets content-type), or a raw body. */
  readonly json?: unknown;
  readonly body?: RequestInit['body'];
  /** 403 means the credentials lack a permission (Atlassian, Graph): treat as rejected credentials. Default true. */
  readonly forbiddenIsAuth?: boolean;
}

/** `base` + `path`, with exactly one slash between them; `path` may be absolute (a vendor's `next` link). */
export function joinUrl(base: string, path: string): string {
  if (/^https?:\/\//.test(path)) return path;
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

function withQuery(url: string, query: VendorRequest['query']): string {
  if (!query) return url;
  const u = new URL(url);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) u.searchParams.set(k, String(v));
  return u.toString();
}

/**
 * The one classification of a vendor's HTTP answer for fetch-based kinds: 429 (or an exhausted quota) →
 * VendorRateLimitedError with its Retry-After; 401 (and 403 unless told otherwise) → VendorAuthError; any other
 * non-2xx → VendorHttpError with a short excerpt of the body. Returns the response when it is a success.
 */
export async function checkResponse(res: Response, req: Pick<VendorRequest, 'vendor' | 'authHint' | 'forbiddenIsAuth'>): Promise<Response> {
  if (res.ok) return res;
  const limited = rateLimitFromResponse(res.status, (name) => res.headers.get(name));
  if (limited) {
    await res.body?.cancel().catch(() => {});
    throw new VendorRateLimitedError(`${req.vendor} rate limit (HTTP ${res.status})`, limited.retryAfterMs);
  }
  const text = (await res.text().catch(() => '')).replace(/\s+/g, ' ').trim().slice(0, 300);
  if (res.status === 401 || (res.status === 403 && req.forbiddenIsAuth !== false)) {
    throw new VendorAuthError(`${req.vendor} answered ${res.status}${text ? ` (${text})` : ''}${req.authHint ? `: ${req.authHint}` : ''}`);
  }
  if (res.status === 503) {
    // A 503 with Retry-After is the vendor asking to slow down (Microsoft Graph, Atlassian): wait as told.
    const retry = rateLimitFromResponse(429, (name) => res.headers.get(name));
    if (res.headers.get('retry-after') && retry) throw new VendorRateLimitedError(`${req.vendor} is throttling (HTTP 503)`, retry.retryAfterMs);
  }
  throw new VendorHttpError(`${req.vendor} answered HTTP ${res.status}${text ? `: ${text}` : ''}`, res.status);
}

/** One request through the connector's rate-limited fetch, classified by `checkResponse`. */
export async function vendorFetch(ctx: Pick<SourceContext<unknown, unknown>, 'fetch'>, url: string, req: VendorRequest): Promise<Response> {
  const { vendor: _v, authHint: _a, query, json, forbiddenIsAuth: _f, ...init } = req;
  const headers = new Headers(init.headers);
  if (json !== undefined) headers.set('content-type', 'application/json');
  if (!headers.has('accept')) headers.set('accept', 'application/json');
  const res = await ctx.fetch(withQuery(url, query), { ...init, headers, body: json !== undefined ? JSON.stringify(json) : init.body });
  return checkResponse(res, req);
}

/** `vendorFetch` and the answer's JSON body. */
export async function vendorJson<T>(ctx: Pick<SourceContext<unknown, unknown>, 'fetch'>, url: string, req: VendorRequest): Promise<T> {
  const res = await vendorFetch(ctx, url, req);
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  try {
    return (text ? JSON.parse(text) : undefined) as T;
  } catch {
    throw new VendorHttpError(`${req.vendor} answered HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 120)}`, res.status);
  }
}

/** The `Authorization` header for a bearer token. */
export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
