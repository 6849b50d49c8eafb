import { z } from 'zod';
import { bearer, joinUrl, type SourceContext, VendorAuthError, type VendorRequest, vendorJson } from '../kit/index.ts';
import type { HubSpotCredentials, HubSpotSettings } from './schemas.ts';

export type HubSpotCtx = SourceContext<HubSpotCredentials, HubSpotSettings>;

export const HUBSPOT_API = 'https://api.hubapi.com';
const HINT =
  'reconnect with OAuth (scopes crm.objects.contacts.read crm.objects.companies.read crm.objects.deals.read tickets oauth) or supply a private app token with those scopes';

/** OAuth wins when both are present: the OAuth tokens are what the latest (re)connect stored. */
function token(c: HubSpotCredentials): string {
  const t = c.access_token ?? c.private_app_token;
  if (!t) throw new VendorAuthError('no HubSpot credentials: supply credentials.private_app_token or connect with OAuth');
  return t;
}

/** One HubSpot call: bearer token (private app or OAuth), rate-limited, classified (401/403 → credentials, 429 → wait). */
export function hubspotJson<T>(ctx: HubSpotCtx, path: string, req: Omit<VendorRequest, 'vendor'> = {}): Promise<T> {
  return vendorJson<T>(ctx, joinUrl(ctx.apiBaseUrl ?? HUBSPOT_API, path), {
    ...req,
    vendor: 'HubSpot',
    authHint: HINT,
    headers: { ...bearer(token(ctx.credentials)), ...(req.headers as Record<string, string> | undefined) },
    signal: ctx.signal,
  });
}

export const accountDetails = z.object({
  portalId: z.number().int(),
  uiDomain: z.string().optional(),
  accountType: z.string().optional(),
  timeZone: z.string().optional(),
});
export type AccountDetails = z.infer<typeof accountDetails>;

export async function getAccountDetails(ctx: HubSpotCtx): Promise<AccountDetails> {
  return accountDetails.parse(await hubspotJson<unknown>(ctx, '/account-info/v3/details'));
}

/** The app domain for record links: what the account reported, else app.hubspot.com (a foreign value is not trusted). */
export function uiDomainOf(value: string | undefined): string {
  return value && /^app(-[a-z0-9]+)?\.hubspot\.com$/.test(value) ? value : 'app.hubspot.com';
}

/**
 * HubSpot's search endpoints allow 4 requests a second per token, below the app's general limit (the kit's bucket):
 * searches of one connector in this process are spaced so no second holds more than four. A 429 that still happens
 * (another process, another app on the token) is waited out by the kit.
 */
const SEARCH_PER_SECOND = 4;
const recentSearches = new Map<string, number[]>();

export async function searchSlot(connectorId: string, signal: AbortSignal, now: () => number = Date.now): Promise<void> {
  for (;;) {
    const t = now();
    const recent = (recentSearches.get(connectorId) ?? []).filter((at) => t - at < 1000);
    if (recent.length < SEARCH_PER_SECOND) {
      recent.push(t);
      recentSearches.set(connectorId, recent);
      return;
    }
    const wait = 1000 - (t - (recent[0] ?? t)) + 1;
    await new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const timer = setTimeout(resolve, wait);
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }
}
