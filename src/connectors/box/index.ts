import { type KindDefinition, validateWith } from '../kit/index.ts';
import { boxJson } from './client.ts';
import { type BoxCredentials, type BoxSettings, boxCredentials, boxMe, boxSettings, boxToken } from './schemas.ts';
import { type BoxCursor, type BoxPage, boxSync } from './sync.ts';

/** Box (files): the files of every folder the account can see (or of chosen folders), read through the kit's parsers; incremental through the event stream. */
export const boxKind: KindDefinition<BoxCredentials, BoxSettings, BoxCursor, BoxPage> = {
  type: 'box',
  displayName: 'Box',
  category: 'files',
  group: 'productivity',
  authTypes: ['oauth2', 'api_key'],
  credentials: boxCredentials,
  settings: boxSettings,
  contentTypes: ['files', 'pdfs', 'documents'],
  // Box allows about 1,000 API requests a minute per user (developer.box.com "Rate limits": general API calls); the
  // connector takes 800 of them, leaving room for the user's other apps. 429 with Retry-After is honoured beyond that.
  vendorLimits: { perMinute: 800 },
  hasUsableCredentials: (c) => Boolean(boxToken(c)),
  validate: validateWith(async (ctx) => {
    const me = await boxJson(ctx, '/2.0/users/me', { fields: 'id,name,login' }, boxMe);
    return { account: me.login?.toLowerCase() ?? me.name ?? me.id };
  }),
  sync: boxSync,
  oauth: {
    authorizeUrl: 'https://account.box.com/api/oauth2/authorize',
    tokenUrl: 'https://api.box.com/oauth2/token',
    // Read all files and folders the user can see; refresh tokens come with every Box OAuth 2.0 grant.
    scopes: ['root_readonly'],
  },
};
