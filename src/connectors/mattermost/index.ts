import { type KindDefinition, validateWith } from '../kit/index.ts';
import { getMe } from './client.ts';
import { type MattermostCredentials, type MattermostSettings, mattermostCredentials, mattermostSettings } from './schemas.ts';
import { type MattermostCursor, type MattermostPage, mattermostSync } from './sync.ts';

/** Mattermost (chat): teams, public and private channels, posts and thread replies, on a self-hosted or Cloud server. */
export const mattermostKind: KindDefinition<MattermostCredentials, MattermostSettings, MattermostCursor, MattermostPage> = {
  type: 'mattermost',
  displayName: 'Mattermost',
  category: 'chat',
  group: 'productivity',
  authTypes: ['oauth2', 'api_key'],
  credentials: mattermostCredentials,
  settings: mattermostSettings,
  contentTypes: ['teams', 'channels', 'posts', 'threads'],
  // Mattermost's API rate limiting (when enabled, RateLimitSettings): 10 requests per second per user with a burst
  // of 100 by default (docs.mattermost.com configuration settings § Rate limiting); a 429 is waited out by Retry-After.
  vendorLimits: { perSecond: 10 },
  apiBaseUrl: (s) => s.site_url,
  hasUsableCredentials: (c) => Boolean(c.access_token ?? c.token),
  validate: validateWith(async (ctx) => {
    const me = await getMe(ctx);
    return { account: `${me.username} on ${new URL(ctx.settings.site_url).host}` };
  }),
  sync: mattermostSync,
  oauth: {
    // A Mattermost server is its own OAuth 2.0 provider (System Console → Integrations → OAuth 2.0 Service Provider),
    // at <site_url>/oauth/authorize and /oauth/access_token, which a static capability cannot know: operators set
    // ATRIUM_OAUTH_CLIENTS.mattermost.authorize_url / token_url for their server (README), as for Zendesk.
    authorizeUrl: 'https://{your-mattermost-server}/oauth/authorize',
    tokenUrl: 'https://{your-mattermost-server}/oauth/access_token',
    // Mattermost OAuth apps have no scopes: the token acts as the authorizing user.
    scopes: [],
  },
};
