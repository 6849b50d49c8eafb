import type { z } from 'zod';
import { bearer, checkResponse, joinUrl, type SourceContext, VendorAuthError, VendorHttpError, vendorFetch } from '../kit/index.ts';
import { type BoxCredentials, type BoxEvent, type BoxSettings, boxToken, eventPage } from './schemas.ts';

type Ctx = SourceContext<BoxCredentials, BoxSettings>;
type Query = Record<string, string | number | boolean | undefined | null>;

export const BOX_API = 'https://api.box.com';
const VENDOR = 'Box';
export const AUTH_HINT = 'reconnect the connector with OAuth (scope root_readonly) or supply a fresh developer token (they expire after 60 minutes)';

/** A file the account may list but cannot download now (404 since listed, 403 by a Shield policy, 202 not ready, too large). */
export class BoxFileError extends VendorHttpError {
  constructor(
    message: string,
    status: number,
    readonly reason: string,
  ) {
    super(message, status);
  }
}

function token(ctx: Ctx): string {
  const t = boxToken(ctx.credentials);
  if (!t) throw new VendorAuthError(`no ${VENDOR} token: ${AUTH_HINT}`);
  return t;
}

const base = (ctx: Ctx) => ctx.apiBaseUrl ?? BOX_API;

/** A Box API v2 JSON call (`path` like `/2.0/folders/0/items`), parsed with `schema`. */
export async function boxJson<T>(ctx: Ctx, path: string, query: Query, schema: z.ZodType<T>): Promise<T> {
  const res = await vendorFetch(ctx, joinUrl(base(ctx), path), { vendor: VENDOR, authHint: AUTH_HINT, query, headers: bearer(token(ctx)), signal: ctx.signal });
  return parseBody(res, path, schema);
}

async function parseBody<T>(res: Response, path: string, schema: z.ZodType<T>): Promise<T> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new VendorHttpError(`${VENDOR} answered HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 120)}`, res.status);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new VendorHttpError(`${VENDOR} answered ${path} in an unexpected shape: ${parsed.error.issues[0]?.message ?? 'invalid'}`, res.status);
  return parsed.data;
}

/**
 * `next_stream_position` is a 64-bit integer that Box sends as a JSON number (larger than JavaScript's safe integers),
 * or as a string: read it from the raw body so no digit is lost.
 */
export function streamPosition(body: string): string | null {
  const m = /"next_stream_position"\s*:\s*"?([0-9]+|now)"?/.exec(body);
  return m?.[1] ?? null;
}

/** One chunk of the user's `changes` event stream from `position` (`now`: no events, only the current position). */
export async function boxEvents(ctx: Ctx, position: string, limit: number): Promise<{ position: string; entries: BoxEvent[] }> {
  const res = await vendorFetch(ctx, joinUrl(base(ctx), '/2.0/events'), {
    vendor: VENDOR,
    authHint: AUTH_HINT,
    query: { stream_type: 'changes', stream_position: position, limit },
    headers: bearer(token(ctx)),
    signal: ctx.signal,
  });
  const text = await res.text();
  const next = streamPosition(text);
  if (!next) throw new VendorHttpError(`${VENDOR} answered /2.0/events without next_stream_position: ${text.slice(0, 120)}`, res.status);
  const page = await parseBody(new Response(text, { status: res.status }), '/2.0/events', eventPage);
  return { position: next, entries: page.entries };
}

async function fileFailure(res: Response): Promise<never> {
  const body = await res.text().catch(() => '');
  let code = res.status === 404 ? 'not_found' : 'forbidden';
  try {
    const c = (JSON.parse(body) as { code?: unknown }).code;
    if (typeof c === 'string') code = c;
  } catch {
    // Box's download host answers errors without a JSON body.
  }
  throw new BoxFileError(`${VENDOR} answered ${res.status} ${code} for the file content`, res.status, code);
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * A file's bytes: `GET /2.0/files/{id}/content` answers 302 to a short-lived download URL (dl.boxcloud.com), which is
 * fetched without the Authorization header (the URL itself grants access; the token must not leave api.box.com).
 * 202 (not ready yet), 403 (e.g. a Shield policy) and 404 throw BoxFileError; so does a file larger than `maxBytes`.
 */
export async function boxDownload(ctx: Ctx, fileId: string, maxBytes: number): Promise<Uint8Array> {
  const url = joinUrl(base(ctx), `/2.0/files/${encodeURIComponent(fileId)}/content`);
  let res = await ctx.fetch(url, { headers: { ...bearer(token(ctx)), accept: '*/*' }, redirect: 'manual', signal: ctx.signal });
  if (REDIRECTS.has(res.status)) {
    const location = res.headers.get('location');
    await res.body?.cancel().catch(() => {});
    if (!location) throw new VendorHttpError(`${VENDOR} answered ${res.status} without a Location for file ${fileId}`, res.status);
    res = await ctx.fetch(new URL(location, url).toString(), { headers: { accept: '*/*' }, redirect: 'follow', signal: ctx.signal });
  }
  if (res.status === 202) {
    await res.body?.cancel().catch(() => {});
    throw new BoxFileError(`${VENDOR} has not made the file downloadable yet (HTTP 202)`, 202, 'not_ready');
  }
  if (res.status === 403 || res.status === 404) return fileFailure(res);
  await checkResponse(res, { vendor: VENDOR, authHint: AUTH_HINT });
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new BoxFileError(`larger than max_file_size_mb (${declared} bytes)`, 413, 'too_large');
  }
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (bytes.byteLength > maxBytes) throw new BoxFileError(`larger than max_file_size_mb (${bytes.byteLength} bytes)`, 413, 'too_large');
  return bytes;
}
