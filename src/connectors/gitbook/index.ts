import { type KindDefinition, validateWith } from '../kit/index.ts';
import { getUser } from './client.ts';
import { type GitBookCredentials, type GitBookSettings, gitbookCredentials, gitbookSettings } from './schemas.ts';
import { type GitBookCursor, type GitBookSyncPage, gitbookSync } from './sync.ts';

/** GitBook (document workspace): organizations → spaces → pages as Markdown, incremental by each space's revision. */
export const gitbookKind: KindDefinition<GitBookCredentials, GitBookSettings, GitBookCursor, GitBookSyncPage> = {
  type: 'gitbook',
  displayName: 'GitBook',
  category: 'document_workspace',
  group: 'productivity',
  authTypes: ['oauth2', 'api_key'],
  credentials: gitbookCredentials,
  settings: gitbookSettings,
  contentTypes: ['spaces', 'pages'],
  // gitbook.com/docs/developers/gitbook-api/rate-limiting: limits differ by method and are told by X-RateLimit-Limit /
  // -Remaining / -Reset (the documented example: a limit of 60). The bucket keeps that 60 a minute; a 429 is waited out
  // until X-RateLimit-Reset (the kit reads it when X-RateLimit-Remaining is 0).
  vendorLimits: { perMinute: 60 },
  hasUsableCredentials: (c) => Boolean(c.access_token),
  validate: validateWith(async (ctx) => {
    const me = await getUser(ctx);
    return { account: me.email ?? me.displayName ?? me.id };
  }),
  sync: gitbookSync,
  oauth: {
    // The API's `oauth` security scheme (api.gitbook.com/openapi.json): authorization code at oauth.gitbook.com.
    authorizeUrl: 'https://oauth.gitbook.com/authorize',
    tokenUrl: 'https://oauth.gitbook.com/token',
    scopes: ['user:read', 'organization:read', 'space:read'],
  },
};
