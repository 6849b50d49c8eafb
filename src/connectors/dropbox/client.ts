import type { z } from 'zod';
import { bearer, checkResponse, joinUrl, parseRetryAfter, type SourceContext, VendorAuthError, VendorHttpError, VendorRateLimitedError } from '../kit/index.ts';
import type { DropboxCredentials, DropboxSettings } from './schemas.ts';

type Ctx = SourceContext<DropboxCredentials, DropboxSettings>;

/** Dropbox serves RPC endpoints and content downloads from two hosts (HTTP docs, "Endpoint formats"). */
export const DROPBOX_API = 'https://api.dropboxapi.com';
export const DROPBOX_CONTENT = 'https://content.dropboxapi.com';
const VENDOR = 'Dropbox';
const AUTH_HINT = 'reconnect with OAuth or generate a new access token (scopes account_info.read, files.metadata.read, files.content.read)';

/**
 * A 409 "endpoint-specific error": the route's own error union, e.g. `path/not_found/..` or `reset/..`. `tags` is the
 * nested `.tag` chain of `error` (`['path', 'not_found']`, `['reset']`, `['unsupported_file']`).
 */
export class DropboxEndpointError extends VendorHttpError {
  constructor(
    message: string,
    readonly summary: string,
    readonly tags: readonly string[],
  ) {
    super(message, 409);
  }
  is(...tags: string[]): boolean {
    return tags.every((t, i) => this.tags[i] === t);
  }
}

interface ErrorBody {
  readonly error_summary?: string;
  readonly error?: unknown;
  readonly user_message?: { text?: string };
}

function parseBody(text: string): ErrorBody | null {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' ? (v as ErrorBody) : null;
  } catch {
    return null;
  }
}

/** The `.tag` chain of a Dropbox union value: `{".tag":"path","path":{".tag":"not_found"}}` → ['path', 'not_found']. */
export function tagChain(error: unknown): string[] {
  const tags: string[] = [];
  let e = error;
  for (let i = 0; i < 5 && e && typeof e === 'object'; i++) {
    const tag = (e as Record<string, unknown>)['.tag'];
    if (typeof tag !== 'string') break;
    tags.push(tag);
    e = (e as Record<string, unknown>)[tag];
  }
  return tags;
}

/**
 * Classifies a Dropbox answer (HTTP docs, "Errors"): 401 (AuthError: `invalid_access_token`, `expired_access_token`,
 * `missing_scope`, …) and 403 (AccessError) → VendorAuthError naming the tag; 409 → DropboxEndpointError with its tags;
 * 429 → VendorRateLimitedError (Retry-After, else the body's `retry_after`); 400 (plain text), 5xx → VendorHttpError.
 */
export async function checkDropboxResponse(res: Response, nowMs: number = Date.now()): Promise<Response> {
  if (res.ok) return res;
  if (![401, 403, 409, 429].includes(res.status)) return checkResponse(res, { vendor: VENDOR, authHint: AUTH_HINT });
  const text = await res.text().catch(() => '');
  const body = parseBody(text);
  const summary = (body?.error_summary ?? text).replace(/\s+/g, ' ').trim().slice(0, 200);
  const tags = tagChain(body?.error);
  if (res.status === 429) {
    const fromBody = body?.error && typeof body.error === 'object' ? (body.error as { retry_after?: unknown }).retry_after : undefined;
    const retryAfter = parseRetryAfter(res.headers.get('retry-after'), nowMs) ?? (typeof fromBody === 'number' ? fromBody * 1000 : null);
    throw new VendorRateLimitedError(`${VENDOR} rate limit (HTTP 429${summary ? ` ${summary}` : ''})`, retryAfter);
  }
  if (res.status === 401 || res.status === 403) {
    const tag = tags.join('/') || summary || 'unauthorized';
    const scope = body?.error && typeof body.error === 'object' ? (body.error as { required_scope?: unknown }).required_scope : undefined;
    throw new VendorAuthError(`${VENDOR} answered ${res.status} ${tag}${typeof scope === 'string' ? ` (needs scope ${scope})` : ''}: ${AUTH_HINT}`);
  }
  throw new DropboxEndpointError(`${VENDOR} answered 409 ${summary || tags.join('/')}`, summary, tags);
}

function token(ctx: Ctx): string {
  if (!ctx.credentials.access_token) throw new VendorAuthError(`no ${VENDOR} access token: ${AUTH_HINT}`);
  return ctx.credentials.access_token;
}

/**
 * JSON for an HTTP header (`Dropbox-API-Arg`): Dropbox requires characters 0x7F and above escaped as `\uXXXX`
 * (HTTP docs, "JSON in HTTP header").
 */
export function headerJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * One RPC call (`POST https://api.dropboxapi.com/2/<route>` with a JSON body; `null` for routes without arguments).
 * With ATRIUM_CONNECTOR_API_URLS.dropbox set, both hosts are that one base (the fake serves both path sets).
 */
export async function rpc<T>(ctx: Ctx, route: string, arg: unknown, schema: z.ZodType<T>): Promise<T> {
  const res = await checkDropboxResponse(
    await ctx.fetch(joinUrl(ctx.apiBaseUrl ?? DROPBOX_API, `/2/${route}`), {
      method: 'POST',
      headers: { ...bearer(token(ctx)), 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(arg),
      signal: ctx.signal,
    }),
    ctx.now.getTime(),
  );
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new VendorHttpError(`${VENDOR} answered ${route} with a body that is not JSON: ${text.slice(0, 120)}`, res.status);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new VendorHttpError(`${VENDOR} answered ${route} in an unexpected shape: ${issue ? `${issue.path.join('.')} ${issue.message}` : 'invalid'}`, res.status);
  }
  return parsed.data;
}

/** A file too large for `max_file_size_mb` (its declared length, or the bytes read). */
export class TooLargeError extends Error {}

/**
 * A file's bytes: `POST https://content.dropboxapi.com/2/files/download` with the argument in `Dropbox-API-Arg` and no
 * body (a "content-download" endpoint: no Content-Type, the file's metadata comes back in `Dropbox-API-Result`).
 */
export async function download(ctx: Ctx, path: string, maxBytes: number): Promise<Uint8Array> {
  const res = await checkDropboxResponse(
    await ctx.fetch(joinUrl(ctx.apiBaseUrl ?? DROPBOX_CONTENT, '/2/files/download'), {
      method: 'POST',
      headers: { ...bearer(token(ctx)), 'dropbox-api-arg': headerJson({ path }) },
      signal: ctx.signal,
    }),
    ctx.now.getTime(),
  );
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new TooLargeError(`larger than max_file_size_mb (${declared} bytes)`);
  }
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (bytes.byteLength > maxBytes) throw new TooLargeError(`larger than max_file_size_mb (${bytes.byteLength} bytes)`);
  return bytes;
}
