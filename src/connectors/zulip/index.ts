import { type KindDefinition, validateWith } from '../kit/index.ts';
import { getMe } from './client.ts';
import { type ZulipCredentials, type ZulipSettings, zulipCredentials, zulipSettings } from './schemas.ts';
import { type ZulipCursor, type ZulipPage, zulipSync } from './sync.ts';

/**
 * Zulip (chat): channels (streams), topics and their messages, on zulipchat.com or a self-hosted server. API key only:
 * Zulip's REST API authenticates with an email and API key; the server offers no OAuth 2.0 provider for third-party
 * apps (its OAuth support is for signing in to Zulip with GitHub, Google…).
 */
export const zulipKind: KindDefinition<ZulipCredentials, ZulipSettings, ZulipCursor, ZulipPage> = {
  type: 'zulip',
  displayName: 'Zulip',
  category: 'chat',
  group: 'productivity',
  authTypes: ['api_key'],
  credentials: zulipCredentials,
  settings: zulipSettings,
  contentTypes: ['channels', 'topics', 'messages'],
  // Zulip's default configuration: 200 API requests per minute per user (zulip.com/api/rest-error-handling § Rate
  // limits); servers may configure others, and a 429 `RATE_LIMIT_HIT` is waited out by its Retry-After.
  vendorLimits: { perMinute: 200 },
  apiBaseUrl: (s) => s.site_url,
  hasUsableCredentials: (c) => Boolean(c.email && c.api_key),
  validate: validateWith(async (ctx) => {
    const me = await getMe(ctx);
    return { account: `${me.full_name} on ${new URL(ctx.settings.site_url).host}` };
  }),
  sync: zulipSync,
};
