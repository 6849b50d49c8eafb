import { type KindDefinition, validateWith } from '../kit/index.ts';
import { getMe } from './client.ts';
import { type FreshdeskCredentials, type FreshdeskSettings, freshdeskCredentials, freshdeskHost, freshdeskSettings } from './schemas.ts';
import { type FreshdeskCursor, type FreshdeskPage, freshdeskSync } from './sync.ts';

/** Freshdesk (support): tickets with their conversations and published solution articles (API v2). */
export const freshdeskKind: KindDefinition<FreshdeskCredentials, FreshdeskSettings, FreshdeskCursor, FreshdeskPage> = {
  type: 'freshdesk',
  displayName: 'Freshdesk',
  category: 'support',
  group: 'support',
  authTypes: ['oauth2', 'api_key'],
  credentials: freshdeskCredentials,
  settings: freshdeskSettings,
  contentTypes: ['tickets', 'conversations', 'solution_articles'],
  // Freshdesk API v2 limits are per account and plan: 200 (Growth), 400 (Pro), 700 (Enterprise) calls a minute, 50 on
  // trials, with per-endpoint sub-limits (developers.freshdesk.com/api/#ratelimit; X-RateLimit-Total/-Remaining headers,
  // 429 with Retry-After). 200/min is the lowest paid plan; a trial account sets requests_per_minute: 50.
  vendorLimits: { perMinute: 200 },
  apiBaseUrl: (s) => freshdeskHost(s),
  hasUsableCredentials: (c) => Boolean(c.access_token || c.api_key),
  validate: validateWith(async (ctx) => {
    const me = await getMe(ctx);
    return { account: `${me.contact?.email ?? me.contact?.name ?? me.id} on ${ctx.settings.domain}` };
  }),
  sync: freshdeskSync,
  oauth: {
    // Freshdesk's API reference documents only API keys; Freshworks' organisation-level OAuth (FreshID) is what
    // Freshworks documents for apps calling its products' APIs. Its endpoints live on the customer's Freshworks org
    // (https://<org>.myfreshworks.com/org/oauth/v2/…): operators set ATRIUM_OAUTH_CLIENTS.freshdesk.authorize_url /
    // token_url for their org (README). Scope names follow the Freshworks `<product>.<resource>.view` pattern.
    authorizeUrl: 'https://{org}.myfreshworks.com/org/oauth/v2/authorize',
    tokenUrl: 'https://{org}.myfreshworks.com/org/oauth/v2/token',
    scopes: ['freshdesk.tickets.view', 'freshdesk.solutions.view', 'freshdesk.agents.view'],
  },
};
