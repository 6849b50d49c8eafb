import { z } from 'zod';
import { bearer, joinUrl, type SourceContext, VendorAuthError, type VendorRequest, vendorJson } from '../kit/index.ts';
import { INTERCOM_REGIONS, type IntercomCredentials, type IntercomSettings } from './schemas.ts';

export type IntercomCtx = SourceContext<IntercomCredentials, IntercomSettings>;

/**
 * The REST API version every request pins (`Intercom-Version`): without it Intercom answers in the version set in the
 * app's settings, which can change under the connector.
 */
export const INTERCOM_VERSION = '2.11';

const HINT = 'check the access token (Developer Hub → your app → Configure → Authentication) or reconnect with OAuth; the app needs read permissions for conversations, contacts, admins and articles';

export function apiBase(ctx: IntercomCtx): string {
  return ctx.apiBaseUrl ?? INTERCOM_REGIONS[ctx.settings.region].api;
}

/** One Intercom REST call: Bearer token, pinned version, rate-limited, classified (401/403 → credentials, 429). */
export function intercomJson<T>(ctx: IntercomCtx, path: string, req: Omit<VendorRequest, 'vendor'> = {}): Promise<T> {
  const token = ctx.credentials.access_token;
  if (!token) throw new VendorAuthError('no Intercom access token: supply credentials.access_token or connect with OAuth');
  return vendorJson<T>(ctx, joinUrl(apiBase(ctx), path), {
    ...req,
    vendor: 'Intercom',
    authHint: HINT,
    headers: { ...bearer(token), 'intercom-version': INTERCOM_VERSION, ...(req.headers as Record<string, string> | undefined) },
    signal: ctx.signal,
  });
}

export const intercomMe = z.object({
  type: z.string().optional(),
  id: z.string(),
  name: z.string().nullable().optional(),
  email: z.string().nullable().optional(),
  app: z.object({ id_code: z.string(), name: z.string().nullable().optional(), region: z.string().nullable().optional() }).nullable().optional(),
});
export type IntercomMe = z.infer<typeof intercomMe>;

/** `GET /me`: the admin the token acts as and its workspace (`app.id_code` is in every inbox URL). */
export async function getMe(ctx: IntercomCtx): Promise<IntercomMe> {
  return intercomMe.parse(await intercomJson<unknown>(ctx, '/me'));
}
