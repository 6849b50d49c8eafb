import { type KindDefinition, validateWith } from '../kit/index.ts';
import { type GitLabCredentials, type GitLabSettings, gitlabCredentials, gitlabSettings } from './schemas.ts';
import { currentUser, type GitLabCursor, type GitLabPage, gitlabSync } from './sync.ts';
import { gitlabWebhook } from './webhook.ts';

/**
 * GitLab (code hosting, gitlab.com and self-managed): projects, issues, merge requests, wiki pages and repository
 * files over REST v4; `X-Gitlab-Token` webhooks.
 */
export const gitlabKind: KindDefinition<GitLabCredentials, GitLabSettings, GitLabCursor, GitLabPage> = {
  type: 'gitlab',
  displayName: 'GitLab',
  category: 'code_hosting',
  group: 'developer_tools',
  authTypes: ['oauth2', 'api_key'],
  credentials: gitlabCredentials,
  settings: gitlabSettings,
  contentTypes: ['projects', 'issues', 'merge_requests', 'wiki_pages', 'files'],
  // GitLab.com allows an authenticated user 2,000 API requests per minute today, and its plan limits (announced,
  // not yet enforced) cap Free users at 100/minute and 5,000/hour. The token's user shares that quota with their
  // other tools, so a connector takes at most 600/minute; Free-plan users set requests_per_minute: 100. A 429 is
  // waited out by its Retry-After. Self-managed instances have whatever limits their administrators set.
  vendorLimits: { perMinute: 600 },
  apiBaseUrl: (s) => `${s.base_url}/api/v4`,
  hasUsableCredentials: (c) => Boolean(c.access_token || c.private_token),
  validate: validateWith(async (ctx) => {
    if (!ctx.credentials.access_token && !ctx.credentials.private_token) return { ok: false, message: 'no GitLab token: supply credentials.private_token or complete OAuth' };
    const user = await currentUser(ctx);
    return { account: user.username };
  }),
  sync: gitlabSync,
  webhook: gitlabWebhook,
  // gitlab.com's endpoints; a self-managed instance's OAuth application is configured with ATRIUM_OAUTH_CLIENTS
  // {"gitlab": {"client_id", "client_secret", "authorize_url": "<base_url>/oauth/authorize", "token_url": "<base_url>/oauth/token"}}.
  oauth: {
    authorizeUrl: 'https://gitlab.com/oauth/authorize',
    tokenUrl: 'https://gitlab.com/oauth/token',
    scopes: ['read_api', 'read_repository'],
    scopeSeparator: ' ',
  },
};
export { verifyGitLabToken } from './webhook.ts';
