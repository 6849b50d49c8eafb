import type { z } from 'zod';
import { bearer, checkGoogleResponse, joinUrl, type SourceContext, VendorAuthError, VendorHttpError } from '../kit/index.ts';
import type { GmailCredentials, GmailSettings } from './schemas.ts';

type Ctx = SourceContext<GmailCredentials, GmailSettings>;

export const GMAIL_API = 'https://gmail.googleapis.com';
const VENDOR = 'Gmail';
const AUTH_HINT = 'reconnect the connector with OAuth (scope https://www.googleapis.com/auth/gmail.readonly)';

/**
 * Classifies a Gmail answer (the kit's Google classification; Gmail guide "Resolve errors"): 429 and a 403 with a quota reason → VendorRateLimitedError (Retry-After when sent);
 * 401 and any other 403 (missing scope, Gmail disabled for the account) → VendorAuthError; 404 → VendorHttpError 404
 * (an expired `startHistoryId`, a message deleted since it was listed: the sync decides); the rest as the kit does.
 */
export async function checkGmailResponse(res: Response, nowMs: number = Date.now()): Promise<Response> {
  return checkGoogleResponse(res, { vendor: VENDOR, authHint: AUTH_HINT, nowMs });
}

/** Query parameters; an array repeats the parameter (`historyTypes=a&historyTypes=b`, `labelIds=…`). */
export type Query = Record<string, string | number | boolean | readonly string[] | undefined | null>;

export function gmailUrl(base: string | undefined, path: string, query: Query): string {
  const u = new URL(joinUrl(base ?? GMAIL_API, path));
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const x of v as readonly string[]) u.searchParams.append(k, x);
    else u.searchParams.set(k, String(v));
  }
  return u.toString();
}

/** A Gmail API v1 call (`path` under the API host, e.g. `/gmail/v1/users/me/profile`), parsed with `schema`. */
export async function gmailJson<T>(ctx: Ctx, path: string, query: Query, schema: z.ZodType<T>): Promise<T> {
  if (!ctx.credentials.access_token) throw new VendorAuthError(`no ${VENDOR} access token: ${AUTH_HINT}`);
  const res = await ctx.fetch(gmailUrl(ctx.apiBaseUrl, path, query), { headers: { ...bearer(ctx.credentials.access_token), accept: 'application/json' }, signal: ctx.signal });
  await checkGmailResponse(res);
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
