import type { KindDefinition } from '../kit/index.ts';
import { githubActions } from './actions.ts';
import { githubClient, mapGitHubError } from './client.ts';
import { type GitHubCredentials, type GitHubSettings, githubCredentials, githubSettings } from './schemas.ts';
import { type GitHubCursor, type GitHubPage, githubSync } from './sync.ts';
import { githubWebhook } from './webhook.ts';

const REQUIRED_SCOPES = ['repo', 'read:org', 'read:discussion'];

/** GitHub (code hosting): repositories, files, issues, pull requests, discussions, wiki pages; webhooks; issue actions. */
export const githubKind: KindDefinition<GitHubCredentials, GitHubSettings, GitHubCursor, GitHubPage> = {
  type: 'github',
  displayName: 'GitHub',
  category: 'code_hosting',
  group: 'developer_tools',
  authTypes: ['oauth2', 'api_key'],
  credentials: githubCredentials,
  settings: githubSettings,
  contentTypes: ['repositories', 'files', 'issues', 'pull_requests', 'discussions', 'wiki_pages'],
  // 5,000 requests per hour for an authenticated token or OAuth app.
  vendorLimits: { perHour: 5000 },
  hasUsableCredentials: (c) => Boolean(c.access_token),
  async validate(ctx) {
    if (!ctx.credentials.access_token) return { ok: false, message: 'no GitHub token: supply credentials.access_token or complete OAuth' };
    try {
      const r = await githubClient(ctx).request('GET /user');
      const scopes = (r.headers['x-oauth-scopes'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      // Fine-grained tokens send no scope header; classic tokens must carry the documented scopes.
      const missing = r.headers['x-oauth-scopes'] === undefined ? [] : REQUIRED_SCOPES.filter((s) => !scopes.includes(s));
      if (missing.length > 0) return { ok: false, message: `the GitHub token lacks the scopes ${missing.join(', ')}: create a token with repo, read:org, read:discussion` };
      return { ok: true, account: (r.data as { login: string }).login };
    } catch (err) {
      const mapped = mapGitHubError(err);
      if (mapped instanceof Error && mapped.name === 'VendorAuthError') return { ok: false, message: mapped.message };
      throw mapped;
    }
  },
  sync: githubSync,
  webhook: githubWebhook,
  actions: githubActions,
  oauth: {
    authorizeUrl: 'https://github.com/login/oauth/authorize',
    tokenUrl: 'https://github.com/login/oauth/access_token',
    scopes: REQUIRED_SCOPES,
  },
};
