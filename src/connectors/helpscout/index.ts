import { type KindDefinition, validateWith } from '../kit/index.ts';
import { docsJson, getMe } from './client.ts';
import { type HelpscoutCredentials, type HelpscoutSettings, helpscoutCredentials, helpscoutSettings } from './schemas.ts';
import { type HelpscoutCursor, type HelpscoutPage, helpscoutSync } from './sync.ts';

/** Help Scout (support): Mailbox API 2.0 conversations with their threads, and Docs articles (Docs API v1). */
export const helpscoutKind: KindDefinition<HelpscoutCredentials, HelpscoutSettings, HelpscoutCursor, HelpscoutPage> = {
  type: 'helpscout',
  displayName: 'Help Scout',
  category: 'support',
  group: 'support',
  authTypes: ['oauth2', 'api_key'],
  credentials: helpscoutCredentials,
  settings: helpscoutSettings,
  contentTypes: ['conversations', 'threads', 'articles'],
  // developer.helpscout.com/mailbox-api/overview/rate-limiting: an account-wide per-minute limit that depends on the
  // plan (200 a minute on the lowest, 400 on most), writes counting double; a 429 names its wait in
  // X-RateLimit-Retry-After. The Docs API has its own per-key limit (developer.helpscout.com/docs-api: 2,000 requests
  // per 10 minutes). 200/min keeps every plan and the Docs key inside their quotas.
  vendorLimits: { perMinute: 200 },
  hasUsableCredentials: (c) => Boolean(c.access_token || (c.client_id && c.client_secret) || c.docs_api_key),
  validate: validateWith(async (ctx) => {
    const parts: string[] = [];
    if (ctx.settings.include_conversations) {
      const me = await getMe(ctx);
      parts.push(me.email ?? ([me.firstName, me.lastName].filter(Boolean).join(' ') || String(me.id)));
    }
    if (ctx.settings.include_articles && ctx.credentials.docs_api_key) {
      await docsJson<unknown>(ctx, '/v1/collections', { page: 1 });
      parts.push('Docs');
    }
    if (!parts.length) return { ok: false as const, message: 'nothing to sync: enable include_conversations (OAuth or app credentials) or include_articles with credentials.docs_api_key' };
    return { account: parts.join(' + ') };
  }),
  sync: helpscoutSync,
  oauth: {
    authorizeUrl: 'https://secure.helpscout.net/authentication/authorizeClientApplication',
    tokenUrl: 'https://api.helpscout.net/v2/oauth2/token',
    // Help Scout takes no scopes: an app acts with the permissions of the user who authorizes it.
    scopes: [],
  },
};
