import { type KindDefinition, validateWith } from '../kit/index.ts';
import { getUser } from './client.ts';
import { type ClickUpCredentials, type ClickUpSettings, clickupCredentials, clickupSettings } from './schemas.ts';
import { type ClickUpCursor, type ClickUpPage, clickupSync } from './sync.ts';

/** ClickUp (API v2, Docs through v3): spaces, folders, lists, tasks with comments, and Docs. */
export const clickupKind: KindDefinition<ClickUpCredentials, ClickUpSettings, ClickUpCursor, ClickUpPage> = {
  type: 'clickup',
  displayName: 'ClickUp',
  category: 'work_management',
  group: 'productivity',
  authTypes: ['oauth2', 'api_key'],
  credentials: clickupCredentials,
  settings: clickupSettings,
  contentTypes: ['spaces', 'folders', 'lists', 'tasks', 'comments', 'docs'],
  // developer.clickup.com/docs/rate-limits: per token, by the Workspace's plan — 100 requests a minute (Free Forever,
  // Unlimited, Business), 1,000 (Business Plus), 10,000 (Enterprise). The bucket keeps the lowest tier; a 429 is
  // waited out until X-RateLimit-Reset.
  vendorLimits: { perMinute: 100 },
  hasUsableCredentials: (c) => Boolean(c.access_token || c.api_token),
  validate: validateWith(async (ctx) => {
    const u = await getUser(ctx);
    return { account: u.email ? `${u.email.toLowerCase()}${u.username ? ` (${u.username})` : ''}` : (u.username ?? `ClickUp user ${u.id}`) };
  }),
  sync: clickupSync,
  oauth: {
    authorizeUrl: 'https://app.clickup.com/api',
    tokenUrl: 'https://api.clickup.com/api/v2/oauth/token',
    // ClickUp OAuth has no scopes: the user picks the Workspaces the app may read on the consent page.
    scopes: [],
  },
};
