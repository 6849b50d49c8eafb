import { z } from 'zod';
import { bearer, joinUrl, type SourceContext, VendorAuthError, type VendorRequest, vendorJson } from '../kit/index.ts';
import type { JiraCredentials, JiraSettings } from './schemas.ts';

export type JiraCtx = SourceContext<JiraCredentials, JiraSettings>;

/** Atlassian's API gateway: OAuth (3LO) calls go to `<gateway>/ex/jira/<cloudId>/rest/api/3/…`. */
export const ATLASSIAN_API = 'https://api.atlassian.com';

const HINT_BASIC = 'check the email and API token (id.atlassian.com → Security → API tokens) and that the account can browse the projects';
const HINT_OAUTH = 'reconnect with OAuth, granting read:jira-work read:jira-user offline_access for this site';

/** OAuth wins when both are present: the OAuth tokens are what the latest (re)connect stored. */
export const usesOAuth = (c: JiraCredentials): boolean => Boolean(c.access_token);

function authHeaders(c: JiraCredentials): Record<string, string> {
  if (c.access_token) return bearer(c.access_token);
  if (c.email && c.api_token) return { authorization: `Basic ${Buffer.from(`${c.email}:${c.api_token}`).toString('base64')}` };
  throw new VendorAuthError('no Jira credentials: supply credentials.email + credentials.api_token or connect with OAuth');
}

/**
 * Where the Atlassian gateway is: `ATRIUM_CONNECTOR_API_URLS.jira` (a proxy, the tests' fake) when set — the
 * context's base then differs from the site — else api.atlassian.com.
 */
function gateway(ctx: JiraCtx): string {
  return ctx.apiBaseUrl && ctx.apiBaseUrl !== ctx.settings.site_url ? ctx.apiBaseUrl : ATLASSIAN_API;
}

const accessibleResources = z.array(z.object({ id: z.string(), url: z.string(), name: z.string().optional(), scopes: z.array(z.string()).optional() }));

const sameSite = (a: string, b: string) => a.replace(/\/+$/, '').toLowerCase() === b.replace(/\/+$/, '').toLowerCase();

/** The site's cloud id from `GET /oauth/token/accessible-resources` (the sites the OAuth grant covers). */
export async function discoverCloudId(ctx: JiraCtx): Promise<string> {
  const raw = await vendorJson<unknown>(ctx, joinUrl(gateway(ctx), '/oauth/token/accessible-resources'), { vendor: 'Atlassian', authHint: HINT_OAUTH, headers: authHeaders(ctx.credentials), signal: ctx.signal });
  const sites = accessibleResources.parse(raw);
  const site = sites.find((s) => sameSite(s.url, ctx.settings.site_url));
  if (!site) {
    const covered = sites.map((s) => s.url).join(', ') || 'none';
    throw new VendorAuthError(`the OAuth grant does not cover ${ctx.settings.site_url} (it covers: ${covered}): reconnect and choose that site, or fix settings.site_url`);
  }
  return site.id;
}

/**
 * The REST base of this connector: the site itself for an API token (HTTP Basic), the gateway's
 * `/ex/jira/<cloudId>` for OAuth. `cloudId` = the one this sync already resolved, else the settings', else discovered.
 */
export async function restBase(ctx: JiraCtx, cloudId?: string | null): Promise<string> {
  if (!usesOAuth(ctx.credentials)) return ctx.apiBaseUrl ?? ctx.settings.site_url;
  const id = cloudId ?? ctx.settings.cloud_id ?? (await discoverCloudId(ctx));
  return joinUrl(gateway(ctx), `/ex/jira/${encodeURIComponent(id)}`);
}

/** One Jira REST call: authorized, rate-limited, classified (401/403 → credentials, 429 → Retry-After). */
export function jiraJson<T>(ctx: JiraCtx, base: string, path: string, req: Omit<VendorRequest, 'vendor'> = {}): Promise<T> {
  return vendorJson<T>(ctx, joinUrl(base, path), {
    ...req,
    vendor: 'Jira',
    authHint: usesOAuth(ctx.credentials) ? HINT_OAUTH : HINT_BASIC,
    headers: { ...authHeaders(ctx.credentials), ...(req.headers as Record<string, string> | undefined) },
    signal: ctx.signal,
  });
}

export const myself = z.object({
  accountId: z.string(),
  displayName: z.string().optional(),
  emailAddress: z.string().optional(),
  /** JQL dates are read in this zone (the user's profile time zone). */
  timeZone: z.string().optional(),
});
export type JiraMyself = z.infer<typeof myself>;

export async function getMyself(ctx: JiraCtx, base: string): Promise<JiraMyself> {
  return myself.parse(await jiraJson<unknown>(ctx, base, '/rest/api/3/myself'));
}
