import { z } from 'zod';
import { bearer, joinUrl, type SourceContext, SourceSettingsError, VendorAuthError, VendorHttpError, vendorJson } from '../kit/index.ts';
import type { ConfluenceCredentials, ConfluenceSettings } from './schemas.ts';

export type Ctx = SourceContext<ConfluenceCredentials, ConfluenceSettings>;

const VENDOR = 'Confluence';
/** Atlassian's API gateway: OAuth (3LO) calls go to /ex/confluence/{cloudId}, the grant's sites to /oauth/token/accessible-resources. */
export const ATLASSIAN_API = 'https://api.atlassian.com';
const AUTH_HINT =
  'use an API token with its account email (HTTP Basic against site_url), or reconnect with OAuth granting read:space, read:page, read:comment, read:attachment, read:permission and read:content-details (Confluence)';

/**
 * Where this connector's requests go. `base`: the API root that `/wiki/api/v2/…` and `/wiki/rest/api/…` are joined to
 * (the site with an API token, the gateway's `/ex/confluence/{cloudId}` with OAuth); `site`: the site's web root for
 * document links; `cloudId` when OAuth found it.
 */
export const targetSchema = z.object({ base: z.string(), site: z.string(), cloudId: z.string().nullable() });
export type Target = z.infer<typeof targetSchema>;

export function authHeaders(c: ConfluenceCredentials): Record<string, string> {
  if (c.access_token) return bearer(c.access_token);
  if (c.email && c.api_token) return { authorization: `Basic ${Buffer.from(`${c.email}:${c.api_token}`).toString('base64')}` };
  throw new VendorAuthError('no Confluence credentials: supply email and api_token, or connect with OAuth');
}

/** `ATRIUM_CONNECTOR_API_URLS.confluence` (a proxy, a test's fake) stands in for both the site and api.atlassian.com. */
function override(ctx: Ctx): string | null {
  return ctx.apiBaseUrl && ctx.apiBaseUrl !== ctx.settings.site_url ? ctx.apiBaseUrl : null;
}

/** One GET to Confluence, classified by the kit (401/403 → credentials, 429 → wait, else VendorHttpError). */
export function cfGet<T>(ctx: Ctx, root: string, path: string, query?: Record<string, string | number | boolean | undefined>): Promise<T> {
  return vendorJson<T>(ctx, joinUrl(root, path), { vendor: VENDOR, authHint: AUTH_HINT, headers: authHeaders(ctx.credentials), query });
}

/** A GET whose 404 means the object is gone (deleted or no longer readable since it was listed): null. */
export async function cfGetOrNull<T>(ctx: Ctx, root: string, path: string, query?: Record<string, string | number | boolean | undefined>): Promise<T | null> {
  try {
    return await cfGet<T>(ctx, root, path, query);
  } catch (err) {
    if (err instanceof VendorHttpError && err.status === 404) return null;
    throw err;
  }
}

const accessibleResources = z.array(z.object({ id: z.string(), url: z.string(), name: z.string().optional(), scopes: z.array(z.string()).default([]) }));

const sameSite = (a: string, b: string) => a.replace(/\/+$/, '').toLowerCase() === b.replace(/\/+$/, '').toLowerCase();

/**
 * The API root and site of this connector. With an API token: the site (`site_url` is required). With OAuth: the site
 * the grant covers (GET api.atlassian.com/oauth/token/accessible-resources), matched by `site_url` or `cloud_id`, or the
 * only Confluence site of the grant; its cloud id makes the gateway root.
 */
export async function resolveTarget(ctx: Ctx): Promise<Target> {
  const proxy = override(ctx);
  const { site_url: siteUrl, cloud_id: cloudId } = ctx.settings;
  if (!ctx.credentials.access_token) {
    if (!siteUrl) throw new SourceSettingsError('settings.site_url is required with an API token (e.g. https://acme.atlassian.net)');
    authHeaders(ctx.credentials);
    return { base: proxy ?? siteUrl, site: siteUrl, cloudId: cloudId ?? null };
  }
  const gateway = proxy ?? ATLASSIAN_API;
  if (cloudId && siteUrl) return { base: joinUrl(gateway, `/ex/confluence/${cloudId}`), site: siteUrl, cloudId };
  const sites = accessibleResources.parse(await cfGet<unknown>(ctx, gateway, '/oauth/token/accessible-resources'));
  const confluence = sites.filter((s) => s.scopes.length === 0 || s.scopes.some((x) => x.includes('confluence')));
  const match = siteUrl
    ? confluence.find((s) => sameSite(s.url, siteUrl))
    : cloudId
      ? confluence.find((s) => s.id === cloudId)
      : confluence.length === 1
        ? confluence[0]
        : undefined;
  if (!match) {
    const known = confluence.map((s) => s.url).join(', ') || 'none';
    const why = siteUrl || cloudId ? `covers no Confluence site ${siteUrl ?? cloudId}` : 'covers several Confluence sites';
    throw new SourceSettingsError(`the OAuth grant ${why} (its sites: ${known}): set settings.site_url to one of them`);
  }
  return { base: joinUrl(gateway, `/ex/confluence/${match.id}`), site: match.url.replace(/\/+$/, ''), cloudId: match.id };
}

/**
 * The next page's path, joined to `base` by the caller. v2 lists answer `_links.next` relative to the API root
 * (`/wiki/api/v2/…?cursor=…`), v1 search relative to `/wiki` (`/rest/api/search?…&cursor=…`). An absolute link keeps
 * only its path below `base` (credentials never go to another host).
 */
export function nextPath(next: string | undefined | null, api: 'v2' | 'v1', base: string): string | null {
  if (!next) return null;
  let path = next;
  if (/^https?:\/\//i.test(next)) {
    const u = new URL(next);
    const prefix = new URL(base).pathname.replace(/\/+$/, '');
    path = `${u.pathname.startsWith(`${prefix}/`) ? u.pathname.slice(prefix.length) : u.pathname}${u.search}`;
  }
  if (!path.startsWith('/')) path = `/${path}`;
  return api === 'v1' && !path.startsWith('/wiki/') ? `/wiki${path}` : path;
}
