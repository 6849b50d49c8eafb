import { type KindDefinition, validateWith } from '../kit/index.ts';
import { getTeams } from './client.ts';
import { type GuruCredentials, type GuruSettings, guruCredentials, guruSettings } from './schemas.ts';
import { type GuruCursor, type GuruSyncPage, guruSync } from './sync.ts';

/** Guru (knowledge base): collections and their cards (HTML as text), incremental by the cards' `lastModified`. */
export const guruKind: KindDefinition<GuruCredentials, GuruSettings, GuruCursor, GuruSyncPage> = {
  type: 'guru',
  displayName: 'Guru',
  category: 'document_workspace',
  group: 'productivity',
  authTypes: ['oauth2', 'api_key'],
  credentials: guruCredentials,
  settings: guruSettings,
  contentTypes: ['collections', 'cards'],
  // Guru publishes no request quota for its REST API (developer.getguru.com documents none); 60 a minute keeps a
  // full sync (one call per 50 cards) well clear of throttling, and a 429 is waited out (Retry-After, else backoff).
  vendorLimits: { perMinute: 60 },
  hasUsableCredentials: (c) => Boolean(c.access_token || (c.username && c.api_token)),
  validate: validateWith(async (ctx) => {
    const teams = await getTeams(ctx);
    const who = ctx.credentials.username ?? 'OAuth user';
    return { account: teams[0]?.name ? `${who} (${teams[0].name})` : who };
  }),
  sync: guruSync,
  oauth: {
    // developer.getguru.com/docs/oauth2-clients: OAuth2 clients (issued on request by Guru support) act for users
    // through the API; `read:*` is the read-only scope.
    authorizeUrl: 'https://api.getguru.com/oauth/authorize',
    tokenUrl: 'https://api.getguru.com/oauth/token',
    scopes: ['read:*'],
  },
};
