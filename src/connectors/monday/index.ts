import { type KindDefinition, validateWith } from '../kit/index.ts';
import { getMe } from './client.ts';
import { type MondayCredentials, type MondaySettings, mondayCredentials, mondaySettings } from './schemas.ts';
import { type MondayCursor, type MondayPage, mondaySync } from './sync.ts';

/** monday.com (GraphQL API v2): boards, items with their column values, and item updates with replies. */
export const mondayKind: KindDefinition<MondayCredentials, MondaySettings, MondayCursor, MondayPage> = {
  type: 'monday',
  displayName: 'Monday.com',
  category: 'work_management',
  group: 'productivity',
  authTypes: ['oauth2', 'api_key'],
  credentials: mondayCredentials,
  settings: mondaySettings,
  contentTypes: ['boards', 'items', 'updates'],
  // developer.monday.com/api-reference/docs/rate-limits: a complexity budget per minute (5M-10M points for API and app
  // tokens, 1M on trial/free), a per-minute request limit by plan (1,000+ requests), and a daily call limit per
  // account (200 free/trial, 1,000 Basic/Standard, 10,000 Pro, 25,000 Enterprise). The bucket keeps 60 calls a minute
  // and 400 an hour (Pro's daily quota spread over the day; lower requests_per_hour on Basic/Standard); a 429 or a
  // COMPLEXITY_BUDGET_EXHAUSTED error is waited out for its retry_in_seconds.
  vendorLimits: { perMinute: 60, perHour: 400 },
  hasUsableCredentials: (c) => Boolean(c.access_token || c.api_token),
  validate: validateWith(async (ctx) => {
    const me = await getMe(ctx);
    const who = me.email?.toLowerCase() ?? me.name ?? `user ${me.id}`;
    return { account: `${who} on ${me.account.name ?? me.account.slug ?? `account ${me.account.id}`}` };
  }),
  sync: mondaySync,
  oauth: {
    authorizeUrl: 'https://auth.monday.com/oauth2/authorize',
    tokenUrl: 'https://auth.monday.com/oauth2/token',
    scopes: ['me:read', 'boards:read', 'updates:read', 'users:read', 'workspaces:read', 'account:read'],
  },
};
