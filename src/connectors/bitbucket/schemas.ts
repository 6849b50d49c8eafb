import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/**
 * HTTP Basic with `username` + `app_password` (Bitbucket app passwords) or `email` + `api_token` (Atlassian API tokens
 * with Bitbucket scopes, which replace app passwords), or OAuth 2.0, whose result arrives as `access_token` (Bearer).
 * Empty credentials are accepted so a connector can be created before its OAuth redirect.
 */
export const bitbucketCredentials = z
  .object({
    username: z.string().trim().min(1).optional().describe('your Bitbucket username (Personal settings → Account settings), with app_password'),
    app_password: z.string().min(1).optional().describe('a Bitbucket app password with Repositories, Pull requests, Issues and Account read permissions'),
    email: z.email().optional().describe('the Atlassian account email an API token belongs to (with api_token)'),
    api_token: z.string().min(1).optional().describe('an Atlassian API token with Bitbucket read scopes (repository, pull request, issue, account)'),
    access_token: z.string().min(1).optional().describe('OAuth 2.0 access token; set by the OAuth flow'),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.app_password && !c.username) ctx.addIssue({ code: 'custom', path: ['username'], message: 'an app password needs the Bitbucket username it belongs to' });
    if (c.username && !c.app_password && !c.access_token) ctx.addIssue({ code: 'custom', path: ['app_password'], message: 'username without app_password: add the app password or connect with OAuth' });
    if (c.api_token && !c.email) ctx.addIssue({ code: 'custom', path: ['email'], message: 'an API token needs the email of its Atlassian account' });
    if (c.email && !c.api_token && !c.access_token) ctx.addIssue({ code: 'custom', path: ['api_token'], message: 'email without api_token: add the API token or connect with OAuth' });
  });
export type BitbucketCredentials = z.infer<typeof bitbucketCredentials>;

/** Workspace slugs and repository slugs: lower-case letters, digits, `-`, `_`, `.`. */
const SLUG = /^[a-z0-9][a-z0-9._-]*$/;

export const bitbucketSettings = z
  .object({
    workspaces: z
      .array(z.string().trim().toLowerCase().regex(SLUG, 'a workspace slug as in bitbucket.org/<workspace>, e.g. "acme"'))
      .min(1)
      .optional()
      .describe('workspace slugs to sync (default: every workspace the account can access, GET /2.0/user/workspaces)'),
    repositories: z
      .array(z.string().trim().toLowerCase().regex(/^[a-z0-9][a-z0-9._-]*\/[a-z0-9][a-z0-9._-]*$/, 'a repository as <workspace>/<repo slug>, e.g. "acme/api"'))
      .min(1)
      .optional()
      .describe('repositories to sync as <workspace>/<repo slug> (default: every repository of the workspaces)'),
    include_pull_requests: z.boolean().default(true).describe('index pull requests (open, merged, declined) with their comments'),
    include_issues: z.boolean().default(true).describe('index issues with their comments, for repositories whose issue tracker is enabled'),
    include_readme: z.boolean().default(true).describe("index each repository's README.md from its main branch"),
    ...commonSettings,
  })
  .strict();
export type BitbucketSettings = z.infer<typeof bitbucketSettings>;
