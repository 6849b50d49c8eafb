import { type KindDefinition, validateWith } from '../kit/index.ts';
import { discoverCloudId, getMyself, restBase, usesOAuth } from './client.ts';
import { type JiraCredentials, type JiraSettings, jiraCredentials, jiraSettings } from './schemas.ts';
import { type JiraCursor, type JiraPage, jiraSync } from './sync.ts';
import { jiraWebhook } from './webhook.ts';

/** Jira Cloud (issue tracker): projects, issues (ADF rendered to text) and comments; enhanced JQL search; webhooks. */
export const jiraKind: KindDefinition<JiraCredentials, JiraSettings, JiraCursor, JiraPage> = {
  type: 'jira',
  displayName: 'Jira',
  category: 'issue_tracker',
  group: 'developer_tools',
  authTypes: ['oauth2', 'api_key'],
  credentials: jiraCredentials,
  settings: jiraSettings,
  contentTypes: ['projects', 'issues', 'comments'],
  // Jira Cloud limits are cost-based (points per hour for OAuth apps, per-second burst limits per endpoint for API
  // tokens; developer.atlassian.com/cloud/jira/platform/rate-limiting) and not stated as a request count. 300 requests
  // a minute (5/s on average) stays well inside both; a 429 is waited out by its Retry-After.
  vendorLimits: { perMinute: 300 },
  apiBaseUrl: (s) => s.site_url,
  hasUsableCredentials: (c) => Boolean(c.access_token || (c.email && c.api_token)),
  validate: validateWith(async (ctx) => {
    // OAuth: find the site's cloud id among the grant's sites, and keep it (settings patch) for the API base.
    const cloudId = usesOAuth(ctx.credentials) ? (ctx.settings.cloud_id ?? (await discoverCloudId(ctx))) : undefined;
    const me = await getMyself(ctx, await restBase(ctx, cloudId));
    const host = new URL(ctx.settings.site_url).host;
    return { account: `${me.emailAddress ?? me.displayName ?? me.accountId} on ${host}`, ...(cloudId && !ctx.settings.cloud_id ? { settings: { cloud_id: cloudId } } : {}) };
  }),
  sync: jiraSync,
  webhook: jiraWebhook,
  oauth: {
    authorizeUrl: 'https://auth.atlassian.com/authorize',
    tokenUrl: 'https://auth.atlassian.com/oauth/token',
    scopes: ['read:jira-work', 'read:jira-user', 'offline_access'],
    extraAuthorizeParams: { audience: 'api.atlassian.com', prompt: 'consent' },
  },
};
export { adfToText } from './adf.ts';
export { jiraSignature, verifyJiraDelivery } from './webhook.ts';
