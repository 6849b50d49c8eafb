import { type KindDefinition, validateWith } from '../kit/index.ts';
import { getWhoami } from './client.ts';
import { type AirtableCredentials, type AirtableSettings, airtableCredentials, airtableSettings } from './schemas.ts';
import { type AirtableCursor, type AirtablePage, airtableSync } from './sync.ts';

export { cellText, recordToDocument } from './map.ts';

/** Airtable (work management): bases, their tables' schemas, and records rendered as `Field: value` text. */
export const airtableKind: KindDefinition<AirtableCredentials, AirtableSettings, AirtableCursor, AirtablePage> = {
  type: 'airtable',
  displayName: 'Airtable',
  category: 'work_management',
  group: 'productivity',
  authTypes: ['oauth2', 'api_key'],
  credentials: airtableCredentials,
  settings: airtableSettings,
  contentTypes: ['bases', 'tables', 'records'],
  // "The API is limited to 5 requests per second per base" (and 50/s per user for personal access tokens), then a 429
  // to wait out for 30 s (airtable.com/developers/web/api/rate-limits). One bucket per connector at 5/s keeps every
  // base inside its limit.
  vendorLimits: { perSecond: 5 },
  hasUsableCredentials: (c) => Boolean(c.access_token || c.personal_access_token),
  validate: validateWith(async (ctx) => {
    const me = await getWhoami(ctx);
    return { account: me.email ?? `Airtable user ${me.id}` };
  }),
  sync: airtableSync,
  oauth: {
    // PKCE (S256) is required by Airtable; the OAuth flow always sends it, and the client secret as HTTP Basic.
    authorizeUrl: 'https://airtable.com/oauth2/v1/authorize',
    tokenUrl: 'https://airtable.com/oauth2/v1/token',
    scopes: ['data.records:read', 'schema.bases:read'],
  },
};
