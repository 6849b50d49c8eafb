import { type KindDefinition, validateWith } from '../kit/index.ts';
import { getMe } from './client.ts';
import { type FrontCredentials, type FrontSettings, frontCredentials, frontSettings } from './schemas.ts';
import { type FrontCursor, type FrontPage, frontSync } from './sync.ts';

/** Front (support): conversations with their messages and internal comments; incremental through conversation search. */
export const frontKind: KindDefinition<FrontCredentials, FrontSettings, FrontCursor, FrontPage> = {
  type: 'front',
  displayName: 'Front',
  category: 'support',
  group: 'support',
  authTypes: ['oauth2', 'api_key'],
  credentials: frontCredentials,
  settings: frontSettings,
  contentTypes: ['conversations', 'messages', 'comments'],
  // dev.frontapp.com/docs/rate-limiting: 50 (Starter), 100 (Growth), 200 (Scale) or 500 (Premier) requests a minute per
  // company, the search endpoint at 40% of it; a 429 carries Retry-After. The lowest plan's 50/min keeps every plan
  // inside its quota (raise nothing: lower it further with requests_per_minute when other apps share the quota).
  vendorLimits: { perMinute: 50 },
  hasUsableCredentials: (c) => Boolean(c.access_token || c.api_token),
  validate: validateWith(async (ctx) => {
    if (!ctx.credentials.access_token && !ctx.credentials.api_token) return { ok: false as const, message: 'no Front credentials: supply credentials.api_token or connect with OAuth' };
    const me = await getMe(ctx);
    return { account: me.name ? `${me.name} (${me.id})` : me.id };
  }),
  sync: frontSync,
  oauth: {
    authorizeUrl: 'https://app.frontapp.com/oauth/authorize',
    tokenUrl: 'https://app.frontapp.com/oauth/token',
    // Front takes no scopes on the authorize URL: an OAuth app's scopes are chosen in its settings (Developers → Apps).
    scopes: [],
  },
};
