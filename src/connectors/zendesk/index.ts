import { type KindDefinition, validateWith } from '../kit/index.ts';
import { getMe } from './client.ts';
import { type ZendeskCredentials, type ZendeskSettings, zendeskCredentials, zendeskHost, zendeskSettings } from './schemas.ts';
import { type ZendeskCursor, type ZendeskPage, zendeskSync } from './sync.ts';

/** Zendesk (support): Support tickets with their comments (incremental ticket export) and Help Center articles. */
export const zendeskKind: KindDefinition<ZendeskCredentials, ZendeskSettings, ZendeskCursor, ZendeskPage> = {
  type: 'zendesk',
  displayName: 'Zendesk',
  category: 'support',
  group: 'support',
  authTypes: ['oauth2', 'api_key'],
  credentials: zendeskCredentials,
  settings: zendeskSettings,
  contentTypes: ['tickets', 'ticket_comments', 'articles'],
  // Support API: 200 (Team) to 700 (Enterprise) requests a minute by plan, 2,500 with High Volume; the incremental
  // exports on top allow 10 a minute (developer.zendesk.com/api-reference/introduction/rate-limits, …/incremental_exports).
  // The lowest plan's 200/min keeps every plan inside its quota; an export answered 429 is waited out by its Retry-After.
  vendorLimits: { perMinute: 200 },
  apiBaseUrl: (s) => zendeskHost(s),
  hasUsableCredentials: (c) => Boolean(c.access_token || (c.email && c.api_token)),
  validate: validateWith(async (ctx) => {
    const me = await getMe(ctx);
    const account = `${me.email ?? me.name ?? me.id} on ${ctx.settings.subdomain}.zendesk.com`;
    // The incremental ticket export is for admins only; an agent can still sync Help Center articles.
    if (ctx.settings.include_tickets && me.role !== 'admin') {
      return { ok: false as const, message: `${account} is a Zendesk ${me.role ?? 'user'}: the ticket export needs an admin (or set include_tickets to false)` };
    }
    return { account };
  }),
  sync: zendeskSync,
  oauth: {
    // Zendesk's OAuth endpoints live on the customer's subdomain, which a static capability cannot know: operators set
    // ATRIUM_OAUTH_CLIENTS.zendesk.authorize_url / token_url to https://<subdomain>.zendesk.com/oauth/… (README).
    authorizeUrl: 'https://{subdomain}.zendesk.com/oauth/authorizations/new',
    tokenUrl: 'https://{subdomain}.zendesk.com/oauth/tokens',
    scopes: ['read'],
  },
};
