import { type KindDefinition, validateWith } from '../kit/index.ts';
import { getMe } from './client.ts';
import { type AsanaCredentials, type AsanaSettings, asanaCredentials, asanaSettings } from './schemas.ts';
import { type AsanaCursor, type AsanaPage, asanaSync } from './sync.ts';

/** Asana (work management): projects and tasks with their comments, per workspace. */
export const asanaKind: KindDefinition<AsanaCredentials, AsanaSettings, AsanaCursor, AsanaPage> = {
  type: 'asana',
  displayName: 'Asana',
  category: 'work_management',
  group: 'productivity',
  authTypes: ['oauth2', 'api_key'],
  credentials: asanaCredentials,
  settings: asanaSettings,
  contentTypes: ['projects', 'tasks', 'comments'],
  // developers.asana.com/docs/rate-limits: 150 requests a minute per token on free domains, 1,500 on paid ones (plus
  // a concurrency cap of 50 reads); 429 carries Retry-After. The bucket keeps the free quota, so every plan stays inside
  // its limit (requests_per_minute can only lower it); a 429 is waited out by its Retry-After.
  vendorLimits: { perMinute: 150 },
  hasUsableCredentials: (c) => Boolean(c.access_token || c.personal_access_token),
  validate: validateWith(async (ctx) => {
    const me = await getMe(ctx);
    const who = me.email?.toLowerCase() ?? me.name ?? `user ${me.gid}`;
    const spaces = (me.workspaces ?? []).map((w) => w.name ?? w.gid);
    return { account: spaces.length ? `${who} (${spaces.join(', ')})` : who };
  }),
  sync: asanaSync,
  oauth: {
    authorizeUrl: 'https://app.asana.com/-/oauth_authorize',
    tokenUrl: 'https://app.asana.com/-/oauth_token',
    // Apps created with full permissions take `default`; scoped apps list the read scopes they need.
    scopes: ['default'],
  },
};
