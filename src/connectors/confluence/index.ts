import { type KindDefinition, validateWith } from '../kit/index.ts';
import { cfGet, resolveTarget } from './client.ts';
import { type ConfluenceCredentials, type ConfluenceSettings, confluenceCredentials, confluenceSettings } from './schemas.ts';
import { type ConfluenceCursor, type ConfluencePage, confluenceSync } from './sync.ts';

/** Granular OAuth scopes of the endpoints the connector calls (v2 lists, v1 CQL search, user lookup, restrictions). */
const SCOPES = [
  'read:space:confluence',
  'read:page:confluence',
  'read:comment:confluence',
  'read:attachment:confluence',
  'read:permission:confluence',
  'read:content-details:confluence',
  'offline_access',
];

/** Confluence Cloud (document workspace): spaces, pages and blog posts (storage format as text), comments, attachment names. */
export const confluenceKind: KindDefinition<ConfluenceCredentials, ConfluenceSettings, ConfluenceCursor, ConfluencePage> = {
  type: 'confluence',
  displayName: 'Confluence',
  category: 'document_workspace',
  group: 'productivity',
  authTypes: ['oauth2', 'api_key'],
  credentials: confluenceCredentials,
  settings: confluenceSettings,
  contentTypes: ['pages', 'blog_posts', 'comments', 'attachments'],
  // Atlassian publishes no fixed request count: API tokens meet burst limits, OAuth apps a points-based hourly quota
  // (1 point per request plus per object returned, developer.atlassian.com/cloud/confluence/rate-limiting). 600 requests
  // a minute stays under the burst limits; 429 Retry-After (and 503 with Retry-After) are honoured by the kit.
  vendorLimits: { perMinute: 600 },
  apiBaseUrl: (s) => s.site_url,
  hasUsableCredentials: (c) => Boolean(c.access_token || (c.email && c.api_token)),
  validate: validateWith(async (ctx) => {
    const target = await resolveTarget(ctx);
    const me = await cfGet<{ displayName?: string; email?: string; accountId?: string }>(ctx, target.base, '/wiki/rest/api/user/current');
    const who = me.email || me.displayName || me.accountId || 'unknown user';
    const host = new URL(target.site).host;
    return { account: `${who}@${host}`, ...(target.cloudId && !ctx.settings.cloud_id ? { settings: { cloud_id: target.cloudId, site_url: target.site } } : {}) };
  }),
  sync: confluenceSync,
  oauth: {
    authorizeUrl: 'https://auth.atlassian.com/authorize',
    tokenUrl: 'https://auth.atlassian.com/oauth/token',
    scopes: SCOPES,
    // Atlassian 3LO: the audience names the API gateway; prompt=consent lets the user pick the site.
    extraAuthorizeParams: { audience: 'api.atlassian.com', prompt: 'consent' },
  },
};
