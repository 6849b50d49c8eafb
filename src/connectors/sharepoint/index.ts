import { z } from 'zod';
import { findVendorError, type KindDefinition, SourceSettingsError, VendorAuthError } from '../kit/index.ts';
import { GRAPH_URL, graphGet, LOGIN_URL } from './client.ts';
import { appOnly, graphSite, type SharepointCredentials, type SharepointSettings, sharepointCredentials, sharepointSettings } from './schemas.ts';
import { configuredSites, resolveSite, type SharepointCursor, type SharepointPage, sharepointSync } from './sync.ts';

const me = z.object({ id: z.string(), userPrincipalName: z.string().nullish(), mail: z.string().nullish() });

/**
 * Delegated Microsoft Graph scopes: read every site and file the user can, refresh tokens, /me for the account, and
 * the members of group-connected sites' Microsoft 365 groups (GroupMember.Read.All, admin consent; members.ts).
 */
export const SHAREPOINT_SCOPES = ['offline_access', 'User.Read', 'Sites.Read.All', 'Files.Read.All', 'GroupMember.Read.All'];

/** SharePoint / OneDrive (files): document libraries of SharePoint sites and the user's OneDrive, through Microsoft Graph delta. */
export const sharepointKind: KindDefinition<SharepointCredentials, SharepointSettings, SharepointCursor, SharepointPage> = {
  type: 'sharepoint',
  displayName: 'SharePoint / OneDrive',
  category: 'files',
  group: 'productivity',
  authTypes: ['oauth2'],
  credentials: sharepointCredentials,
  settings: sharepointSettings,
  contentTypes: ['files'],
  // SharePoint meters each app per tenant in resource units: 1,200 RU per minute for the smallest tenants (0-1k licenses);
  // a delta page without a token or a listing costs 2 RU, a delta page with a token or a download 1 RU. 600 requests a
  // minute stays inside the smallest budget; 429/503 with Retry-After are honoured beyond that.
  vendorLimits: { perMinute: 600 },
  apiBaseUrl: (s) => s.graph_url ?? GRAPH_URL,
  hasUsableCredentials: (c) => Boolean(c.access_token) || appOnly(c),
  async validate(ctx) {
    const c = ctx.credentials;
    if (!c.access_token && !appOnly(c)) {
      return { ok: false, message: 'no Microsoft Graph credentials: connect with OAuth (GET /v1/connectors/sharepoint/oauth-url) or supply tenant_id, client_id and client_secret' };
    }
    try {
      let account: string;
      if (c.access_token) {
        const user = await graphGet(ctx, '/me', me);
        account = user.userPrincipalName ?? user.mail ?? user.id;
      } else {
        // App-only tokens have no /me; the tenant's root site names the tenant.
        const root = await graphGet(ctx, '/sites/root', graphSite);
        account = `app ${c.client_id}${root.webUrl ? ` on ${new URL(root.webUrl).hostname}` : ''}`;
      }
      // A configured site that does not resolve is reported now, as a settings error, not at the first sync.
      for (const ref of configuredSites(ctx.settings)) await resolveSite(ctx, ref);
      return { ok: true, account };
    } catch (err) {
      if (err instanceof SourceSettingsError) throw err;
      const vendor = findVendorError(err);
      if (vendor instanceof VendorAuthError) return { ok: false, message: vendor.message };
      throw err;
    }
  },
  sync: sharepointSync,
  oauth: {
    // `organizations`: any work or school tenant; an operator pins one tenant with ATRIUM_OAUTH_CLIENTS' authorize_url / token_url.
    authorizeUrl: `${LOGIN_URL}/organizations/oauth2/v2.0/authorize`,
    tokenUrl: `${LOGIN_URL}/organizations/oauth2/v2.0/token`,
    scopes: SHAREPOINT_SCOPES,
  },
};
