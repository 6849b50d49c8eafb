import { type KindDefinition, validateWith } from '../kit/index.ts';
import { getMe } from './client.ts';
import { INTERCOM_REGIONS, type IntercomCredentials, type IntercomSettings, intercomCredentials, intercomSettings } from './schemas.ts';
import { type IntercomCursor, type IntercomPage, intercomSync } from './sync.ts';

/** Intercom (support): conversations with their parts, and Help Center articles; incremental through conversation search. */
export const intercomKind: KindDefinition<IntercomCredentials, IntercomSettings, IntercomCursor, IntercomPage> = {
  type: 'intercom',
  displayName: 'Intercom',
  category: 'support',
  group: 'support',
  authTypes: ['oauth2', 'api_key'],
  credentials: intercomCredentials,
  settings: intercomSettings,
  contentTypes: ['conversations', 'articles'],
  // developers.intercom.com → Rate limiting: 1,000 requests a minute per app by default (10,000 for private apps),
  // enforced per 10-second window (167 per 10 s). 16 a second keeps inside the window; 429 waits for X-RateLimit-Reset.
  vendorLimits: { perSecond: 16, perMinute: 1000 },
  apiBaseUrl: (s) => INTERCOM_REGIONS[s.region].api,
  hasUsableCredentials: (c) => Boolean(c.access_token),
  validate: validateWith(async (ctx) => {
    if (!ctx.credentials.access_token) return { ok: false as const, message: 'no Intercom access token: supply credentials.access_token or connect with OAuth' };
    const me = await getMe(ctx);
    const who = me.email ?? me.name ?? me.id;
    return { account: me.app?.name ? `${who} on ${me.app.name}` : who };
  }),
  sync: intercomSync,
  oauth: {
    authorizeUrl: 'https://app.intercom.com/oauth',
    tokenUrl: 'https://api.intercom.io/auth/eagle/token',
    // Intercom takes no scopes on the authorize URL: an app's permissions are chosen in the Developer Hub.
    scopes: [],
  },
};
