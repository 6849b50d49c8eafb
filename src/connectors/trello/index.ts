import { type KindDefinition, validateWith } from '../kit/index.ts';
import { getMe } from './client.ts';
import { type TrelloCredentials, type TrelloSettings, trelloCredentials, trelloSettings } from './schemas.ts';
import { type TrelloCursor, type TrelloPage, trelloSync } from './sync.ts';

/** Trello (work management): boards with their lists, and cards with checklists and comments. */
export const trelloKind: KindDefinition<TrelloCredentials, TrelloSettings, TrelloCursor, TrelloPage> = {
  type: 'trello',
  displayName: 'Trello',
  category: 'work_management',
  group: 'productivity',
  authTypes: ['oauth2', 'api_key'],
  credentials: trelloCredentials,
  settings: trelloSettings,
  contentTypes: ['boards', 'lists', 'cards', 'checklists', 'comments'],
  // developer.atlassian.com/cloud/trello/guides/rest-api/rate-limits: 100 requests per 10 seconds per token, 300 per
  // 10 seconds per API key (shared by every token of the key), 100 per 900 s on /1/members/; 429 with an
  // API_TOKEN_LIMIT_EXCEEDED / API_KEY_LIMIT_EXCEEDED body. 5 a second (half the token's share) leaves room for the key's
  // other tokens; a 429 is waited out (Retry-After when present, else the kit's backoff).
  vendorLimits: { perSecond: 5, perMinute: 300 },
  hasUsableCredentials: (c) => Boolean(c.access_token || (c.api_key && c.token)),
  validate: validateWith(async (ctx) => {
    const me = await getMe(ctx);
    const who = me.email?.toLowerCase() ?? (me.username ? `@${me.username}` : (me.fullName ?? me.id));
    return { account: me.fullName && me.username ? `${me.fullName} (@${me.username})` : who };
  }),
  sync: trelloSync,
  oauth: {
    // Trello's documented authorize route (developer.atlassian.com/cloud/trello/guides/rest-api/authorization). It hands
    // out a token in the URL fragment (response_type=token), not a code, so the platform's code exchange cannot finish
    // it with these defaults: operators point ATRIUM_OAUTH_CLIENTS.trello.authorize_url / token_url at their Trello
    // OAuth 2.0 (3LO, PKCE) client's endpoints, or users supply api_key + token (README § Auth).
    authorizeUrl: 'https://trello.com/1/authorize',
    tokenUrl: 'https://auth.atlassian.com/oauth/token',
    scopes: ['read'],
    scopeSeparator: ',',
    extraAuthorizeParams: { expiration: 'never', name: 'Atrium' },
  },
};
