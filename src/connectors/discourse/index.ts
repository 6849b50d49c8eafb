import { type KindDefinition, validateWith } from '../kit/index.ts';
import { discourseGet } from './client.ts';
import { type DiscourseCredentials, type DiscourseSettings, discourseCredentials, discourseSettings } from './schemas.ts';
import { type DiscourseCursor, type DiscourseSyncPage, discourseSync } from './sync.ts';

interface UserAnswer {
  user?: { username?: string; name?: string | null };
}

/**
 * Discourse (forum, self-hosted or hosted): categories and topics with their posts. Auth is an API key with the
 * username it acts as: Discourse offers no OAuth 2.0 for its API (its User API keys are its own handshake; README § Auth).
 */
export const discourseKind: KindDefinition<DiscourseCredentials, DiscourseSettings, DiscourseCursor, DiscourseSyncPage> = {
  type: 'discourse',
  displayName: 'Discourse',
  category: 'document_workspace',
  group: 'productivity',
  authTypes: ['api_key'],
  credentials: discourseCredentials,
  settings: discourseSettings,
  contentTypes: ['categories', 'topics', 'posts'],
  // Admin API keys: "a limit of 60 requests per minute, shared between all keys" (DISCOURSE_MAX_ADMIN_API_REQS_PER_MINUTE,
  // meta.discourse.org/t/78612 "Available settings for global rate limits and throttling"); a 429 beyond it is waited out.
  vendorLimits: { perMinute: 60 },
  apiBaseUrl: (s) => s.site_url,
  hasUsableCredentials: (c) => Boolean(c.api_key && c.api_username),
  validate: validateWith(async (ctx) => {
    const me = await discourseGet<UserAnswer>(ctx, `/u/${encodeURIComponent(ctx.credentials.api_username)}.json`);
    return { account: me.user?.username ?? ctx.credentials.api_username };
  }),
  sync: discourseSync,
};
