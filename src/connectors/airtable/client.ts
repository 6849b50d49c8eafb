import { z } from 'zod';
import { bearer, findVendorError, joinUrl, type SourceContext, VendorAuthError, VendorRateLimitedError, type VendorRequest, vendorJson } from '../kit/index.ts';
import type { AirtableCredentials, AirtableSettings } from './schemas.ts';

export type AirtableCtx = SourceContext<AirtableCredentials, AirtableSettings>;

export const AIRTABLE_API = 'https://api.airtable.com';
const HINT = 'reconnect with OAuth or supply a personal access token with the scopes data.records:read and schema.bases:read and access to the bases';

/** Airtable: "If you exceed this rate, you will receive a 429 status code and will need to wait 30 seconds". */
export const RATE_LIMIT_WAIT_MS = 30_000;

/** OAuth wins when both are present: the OAuth tokens are what the latest (re)connect stored. */
function token(c: AirtableCredentials): string {
  const t = c.access_token ?? c.personal_access_token;
  if (!t) throw new VendorAuthError('no Airtable credentials: supply credentials.personal_access_token or connect with OAuth');
  return t;
}

/** A 429 without Retry-After waits the documented 30 s (the kit would back off from 1 s and be refused again). */
export function withAirtableWait(err: unknown): unknown {
  const v = findVendorError(err);
  if (v instanceof VendorRateLimitedError && v.retryAfterMs === null) return new VendorRateLimitedError(v.message, RATE_LIMIT_WAIT_MS);
  return err;
}

/** One Airtable call: bearer token (PAT or OAuth), rate-limited, classified (401/403 → credentials, 429 → wait 30 s). */
export async function airtableJson<T>(ctx: AirtableCtx, path: string, req: Omit<VendorRequest, 'vendor'> = {}): Promise<T> {
  try {
    return await vendorJson<T>(ctx, joinUrl(ctx.apiBaseUrl ?? AIRTABLE_API, path), {
      ...req,
      vendor: 'Airtable',
      authHint: HINT,
      headers: { ...bearer(token(ctx.credentials)), ...(req.headers as Record<string, string> | undefined) },
      signal: ctx.signal,
    });
  } catch (err) {
    throw withAirtableWait(err);
  }
}

const whoami = z.object({ id: z.string(), email: z.string().optional(), scopes: z.array(z.string()).optional() });

/** `GET /v0/meta/whoami`: the user (or service account) the token acts for, and the scopes an OAuth token carries. */
export async function getWhoami(ctx: AirtableCtx): Promise<z.infer<typeof whoami>> {
  return whoami.parse(await airtableJson<unknown>(ctx, '/v0/meta/whoami'));
}
