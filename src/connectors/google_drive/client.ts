import type { z } from 'zod';
import { bearer, checkGoogleResponse, joinUrl, type SourceContext, VendorAuthError, VendorHttpError } from '../kit/index.ts';
import type { DriveCredentials, DriveSettings } from './schemas.ts';

type Ctx = SourceContext<DriveCredentials, DriveSettings>;

export const DRIVE_API = 'https://www.googleapis.com';
const VENDOR = 'Google Drive';
const AUTH_HINT = 'reconnect the connector with OAuth (scope https://www.googleapis.com/auth/drive.readonly)';

/** 403s about one file (cannot be exported or downloaded, not readable): that file is skipped, the sync goes on. */
const FILE_REASONS = new Set([
  'insufficientFilePermissions',
  'cannotExportFile',
  'exportSizeLimitExceeded',
  'fileNotDownloadable',
  'cannotDownloadAbusiveFile',
  'appNotAuthorizedToFile',
  'downloadQuotaExceeded',
]);

/** A file the account may list but cannot read (403 with a per-file reason, or 404 since it was listed). */
export class DriveFileError extends VendorHttpError {
  constructor(
    message: string,
    status: number,
    readonly reason: string,
  ) {
    super(message, status);
  }
}

/**
 * Classifies a Drive answer (the kit's Google classification). 429, and 403 whose reason is a quota → VendorRateLimitedError (Retry-After when sent);
 * 401, 403 `insufficientPermissions` (missing scope) and any other 403 on a listing → VendorAuthError; on a file's
 * content (`perFile`), a per-file 403 or a 404 → DriveFileError (skipped); the rest as the kit classifies it.
 */
export async function checkDriveResponse(res: Response, perFile: boolean, nowMs: number = Date.now()): Promise<Response> {
  return checkGoogleResponse(res, {
    vendor: VENDOR,
    authHint: AUTH_HINT,
    nowMs,
    // Drive's own quota reason (sharing notifications), beside Google's common ones.
    moreRateLimitReasons: ['sharingRateLimitExceeded'],
    special: (e) =>
      perFile && (e.status === 404 || (e.status === 403 && e.reasons.some((r) => FILE_REASONS.has(r))))
        ? new DriveFileError(`${VENDOR} answered ${e.status} ${e.reason}: ${e.message}`, e.status, e.reason)
        : undefined,
  });
}

type Query = Record<string, string | number | boolean | undefined | null>;

function driveUrl(ctx: Ctx, path: string, query: Query): string {
  const u = new URL(joinUrl(ctx.apiBaseUrl ?? DRIVE_API, path));
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) u.searchParams.set(k, String(v));
  return u.toString();
}

function headers(ctx: Ctx, accept: string): Record<string, string> {
  if (!ctx.credentials.access_token) throw new VendorAuthError(`no ${VENDOR} access token: ${AUTH_HINT}`);
  return { ...bearer(ctx.credentials.access_token), accept };
}

/** A Drive v3 JSON call (`path` under the API host, e.g. `/drive/v3/files`), parsed with `schema`. */
export async function driveJson<T>(ctx: Ctx, path: string, query: Query, schema: z.ZodType<T>): Promise<T> {
  const res = await checkDriveResponse(await ctx.fetch(driveUrl(ctx, path, query), { headers: headers(ctx, 'application/json'), signal: ctx.signal }), false);
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

/** A file's bytes (`alt=media` download or `/export`); per-file failures throw DriveFileError; larger than `maxBytes` → DriveFileError. */
export async function driveBytes(ctx: Ctx, path: string, query: Query, maxBytes: number): Promise<Uint8Array> {
  const res = await checkDriveResponse(await ctx.fetch(driveUrl(ctx, path, query), { headers: headers(ctx, '*/*'), signal: ctx.signal }), true);
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new DriveFileError(`larger than max_file_size_mb (${declared} bytes)`, 413, 'tooLarge');
  }
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (bytes.byteLength > maxBytes) throw new DriveFileError(`larger than max_file_size_mb (${bytes.byteLength} bytes)`, 413, 'tooLarge');
  return bytes;
}
