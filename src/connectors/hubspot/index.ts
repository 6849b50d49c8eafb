import { type KindDefinition, validateWith } from '../kit/index.ts';
import { getAccountDetails, uiDomainOf } from './client.ts';
import { type HubSpotCredentials, type HubSpotSettings, hubspotCredentials, hubspotSettings } from './schemas.ts';
import { type HubSpotCursor, type HubSpotPage, hubspotSync } from './sync.ts';

/** HubSpot CRM (v3 objects API): companies, contacts, deals, tickets and notes with their associations. */
export const hubspotKind: KindDefinition<HubSpotCredentials, HubSpotSettings, HubSpotCursor, HubSpotPage> = {
  type: 'hubspot',
  displayName: 'HubSpot',
  category: 'crm',
  group: 'crm',
  authTypes: ['oauth2', 'api_key'],
  credentials: hubspotCredentials,
  settings: hubspotSettings,
  contentTypes: ['companies', 'contacts', 'deals', 'tickets', 'notes'],
  // developers.hubspot.com/docs/guides/apps/api-usage/usage-details: apps get 100 requests per 10 s (Free/Starter; up to
  // 190 on higher tiers) and 250,000+ a day per account; the CRM search endpoints 4 requests/s per token. The bucket
  // keeps the lowest tier's 10/s and a day's quota spread over hours; searches are additionally spaced to 4/s
  // (client.ts `searchSlot`); a 429 is waited out by the kit.
  vendorLimits: { perSecond: 10, perHour: 10_000 },
  hasUsableCredentials: (c) => Boolean(c.access_token || c.private_app_token),
  validate: validateWith(async (ctx) => {
    const acct = await getAccountDetails(ctx);
    const portalId = String(acct.portalId);
    const uiDomain = uiDomainOf(acct.uiDomain);
    const patch = ctx.settings.portal_id === portalId && ctx.settings.ui_domain === uiDomain ? undefined : { portal_id: portalId, ui_domain: uiDomain };
    return { account: `HubSpot account ${portalId}${acct.accountType && acct.accountType !== 'STANDARD' ? ` (${acct.accountType.toLowerCase()})` : ''}`, ...(patch ? { settings: patch } : {}) };
  }),
  sync: hubspotSync,
  oauth: {
    authorizeUrl: 'https://app.hubspot.com/oauth/authorize',
    tokenUrl: 'https://api.hubapi.com/oauth/v1/token',
    scopes: ['crm.objects.contacts.read', 'crm.objects.companies.read', 'crm.objects.deals.read', 'tickets', 'oauth'],
  },
};
