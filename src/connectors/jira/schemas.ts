import { z } from 'zod';
import { commonSettings, siteUrl } from '../kit/index.ts';

/**
 * Either an Atlassian API token (`email` + `api_token`, HTTP Basic against the site) or OAuth 2.0 (3LO): the OAuth
 * result arrives as `access_token`. Empty credentials are accepted so a connector can be created before its OAuth redirect.
 */
export const jiraCredentials = z
  .object({
    email: z.email().optional().describe('the Atlassian account email the API token belongs to (with api_token)'),
    api_token: z.string().min(1).optional().describe('an Atlassian API token (id.atlassian.com → Security → API tokens); omit to connect with OAuth'),
    access_token: z.string().min(1).optional().describe('OAuth 2.0 (3LO) access token; set by the OAuth flow'),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.api_token && !c.email) ctx.addIssue({ code: 'custom', path: ['email'], message: 'an API token needs the email of its Atlassian account' });
    if (c.email && !c.api_token && !c.access_token) ctx.addIssue({ code: 'custom', path: ['api_token'], message: 'email without api_token: add the API token or connect with OAuth' });
  });
export type JiraCredentials = z.infer<typeof jiraCredentials>;

const PROJECT_KEY = /^[A-Z][A-Z0-9_]*$/;

export const jiraSettings = z
  .object({
    site_url: siteUrl('your Jira Cloud site, e.g. https://acme.atlassian.net (issue links point there; API tokens call it)'),
    cloud_id: z.string().trim().min(1).optional().describe('the site\'s Atlassian cloud id (OAuth API base); discovered from accessible-resources when omitted'),
    projects: z
      .array(z.string().regex(PROJECT_KEY, 'a Jira project key in capitals, e.g. "ENG"'))
      .min(1)
      .optional()
      .describe('project keys to sync (default: every project the account can browse)'),
    jql: z
      .string()
      .trim()
      .min(1)
      .max(2000)
      .refine((q) => !/\border\s+by\b/i.test(q), 'a filter only: the connector orders the search itself (remove ORDER BY)')
      .optional()
      .describe('an extra JQL filter ANDed to every search, e.g. labels = customer-facing'),
    include_comments: z.boolean().default(true).describe('index issue comments as their own documents'),
    ...commonSettings,
  })
  .strict();
export type JiraSettings = z.infer<typeof jiraSettings>;
