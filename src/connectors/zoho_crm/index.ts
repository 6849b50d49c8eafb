import { type KindDefinition, validateWith } from '../kit/index.ts';
import { apiBase, getCurrentUser } from './client.ts';
import { type ZohoCredentials, type ZohoSettings, zohoCredentials, zohoSettings } from './schemas.ts';
import { type ZohoCursor, type ZohoPage, zohoSync } from './sync.ts';

/** Zoho CRM (API v2): leads, contacts, accounts, deals and notes; incremental with If-Modified-Since; per data centre. */
export const zohoCrmKind: KindDefinition<ZohoCredentials, ZohoSettings, ZohoCursor, ZohoPage> = {
  type: 'zoho_crm',
  displayName: 'Zoho CRM',
  category: 'crm',
  group: 'crm',
  authTypes: ['oauth2'],
  credentials: zohoCredentials,
  settings: zohoSettings,
  contentTypes: ['leads', 'contacts', 'accounts', 'deals', 'notes'],
  // Zoho CRM meters API credits per 24 hours (API Limits: Free Edition 5,000; paid editions 50,000 + 250 to 2,000 per
  // licence) and concurrent calls per org (429 TOO_MANY_REQUESTS). 2,000 an hour (48,000 a day) stays inside a paid
  // edition's base; Free Edition orgs should set requests_per_hour: 200.
  vendorLimits: { perMinute: 100, perHour: 2000 },
  hasUsableCredentials: (c) => Boolean(c.access_token),
  validate: validateWith(async (ctx) => {
    const { user } = await getCurrentUser(ctx);
    const who = user?.email ?? user?.full_name ?? user?.id ?? 'unknown user';
    return { account: `${who} on ${new URL(apiBase(ctx)).host}` };
  }),
  sync: zohoSync,
  oauth: {
    // The US accounts server; other data centres (accounts.zoho.eu, .in, .com.au, .jp, …): authorize_url/token_url in ATRIUM_OAUTH_CLIENTS.
    authorizeUrl: 'https://accounts.zoho.com/oauth/v2/auth',
    tokenUrl: 'https://accounts.zoho.com/oauth/v2/token',
    scopes: ['ZohoCRM.modules.READ', 'ZohoCRM.users.READ', 'ZohoCRM.org.READ'],
    scopeSeparator: ',',
    extraAuthorizeParams: { access_type: 'offline', prompt: 'consent' },
    tokenFields: ['api_domain'],
  },
};
