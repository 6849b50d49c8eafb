import { type KindDefinition, validateWith } from '../kit/index.ts';
import { getUserInfo } from './client.ts';
import { type SalesforceCredentials, type SalesforceSettings, salesforceCredentials, salesforceSettings } from './schemas.ts';
import { type SalesforceCursor, type SalesforcePage, salesforceSync } from './sync.ts';

/** Salesforce (CRM): accounts, contacts, opportunities, cases with their comments, knowledge articles; SOQL over REST. */
export const salesforceKind: KindDefinition<SalesforceCredentials, SalesforceSettings, SalesforceCursor, SalesforcePage> = {
  type: 'salesforce',
  displayName: 'Salesforce',
  category: 'crm',
  group: 'crm',
  authTypes: ['oauth2'],
  credentials: salesforceCredentials,
  settings: salesforceSettings,
  contentTypes: ['accounts', 'contacts', 'opportunities', 'cases', 'case_comments', 'knowledge_articles'],
  // Salesforce meters a rolling 24-hour allocation per org (API Request Limits and Allocations: 100,000 + 1,000 per
  // Enterprise licence; 15,000 for Developer Edition), not a per-second rate. 4,000 an hour (96,000 a day) stays within
  // an Enterprise org's base allocation; lower it with requests_per_hour for small orgs (Developer Edition: 600).
  // REQUEST_LIMIT_EXCEEDED is waited out (an hour for the daily allocation, a minute for concurrent requests).
  vendorLimits: { perMinute: 300, perHour: 4000 },
  hasUsableCredentials: (c) => Boolean(c.access_token && c.instance_url),
  validate: validateWith(async (ctx) => {
    const { user } = await getUserInfo(ctx);
    const who = user.preferred_username ?? user.email ?? user.user_id;
    return { account: user.organization_id ? `${who} (org ${user.organization_id})` : who };
  }),
  sync: salesforceSync,
  oauth: {
    authorizeUrl: 'https://login.salesforce.com/services/oauth2/authorize',
    tokenUrl: 'https://login.salesforce.com/services/oauth2/token',
    scopes: ['api', 'refresh_token'],
    tokenFields: ['instance_url'],
  },
};
