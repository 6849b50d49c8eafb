import { z } from 'zod';
import { type KindDefinition, validateWith } from '../kit/index.ts';
import { tableGet } from './client.ts';
import { type ServicenowCredentials, type ServicenowSettings, servicenowCredentials, servicenowSettings } from './schemas.ts';
import { type ServicenowCursor, type ServicenowPage, servicenowSync } from './sync.ts';

const me = z.object({ result: z.array(z.object({ user_name: z.string(), email: z.string().nullable().optional(), name: z.string().nullable().optional() })) });

/** ServiceNow (support): knowledge articles and incidents (with comments and work notes) through the Table API. */
export const servicenowKind: KindDefinition<ServicenowCredentials, ServicenowSettings, ServicenowCursor, ServicenowPage> = {
  type: 'servicenow',
  displayName: 'ServiceNow',
  category: 'support',
  group: 'support',
  authTypes: ['oauth2', 'api_key'],
  credentials: servicenowCredentials,
  settings: servicenowSettings,
  contentTypes: ['knowledge_articles', 'incidents', 'incident_journal'],
  // ServiceNow publishes no global REST quota: an instance's admins set inbound REST rate limit rules (per user or
  // role, per hour; docs.servicenow.com "Inbound REST API rate limiting"), answered with 429 and Retry-After, and each
  // node serves API calls from a small semaphore pool (API_INT). 5 a second keeps one connector from starving the pool;
  // lower it with requests_per_minute where the instance's rules are stricter.
  vendorLimits: { perSecond: 5 },
  apiBaseUrl: (s) => s.instance_url,
  hasUsableCredentials: (c) => Boolean(c.access_token || (c.username && c.password)),
  validate: validateWith(async (ctx) => {
    // The Table API has no "who am I": the session user's own sys_user row, by the documented gs.getUserID() filter.
    const r = await tableGet(ctx, '/api/now/table/sys_user', { sysparm_query: 'sys_id=javascript:gs.getUserID()', sysparm_fields: 'user_name,email,name', sysparm_limit: 1 });
    const user = me.parse(r.body).result[0];
    const host = new URL(ctx.settings.instance_url).host;
    return { account: `${user?.email || user?.user_name || 'user'} on ${host}` };
  }),
  sync: servicenowSync,
  oauth: {
    // The OAuth endpoints live on the customer's instance, which a static capability cannot know: operators set
    // ATRIUM_OAUTH_CLIENTS.servicenow.authorize_url / token_url to https://<instance>.service-now.com/oauth_auth.do /
    // oauth_token.do (README), as for Zendesk.
    authorizeUrl: 'https://{instance}.service-now.com/oauth_auth.do',
    tokenUrl: 'https://{instance}.service-now.com/oauth_token.do',
    scopes: ['useraccount'],
  },
};
