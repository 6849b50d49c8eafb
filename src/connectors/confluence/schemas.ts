import { z } from 'zod';
import { commonSettings, siteUrl } from '../kit/index.ts';

export const confluenceCredentials = z
  .object({
    access_token: z.string().min(1).optional().describe('OAuth 2.0 (3LO) access token: filled by the OAuth flow'),
    email: z.string().email().optional().describe('the Atlassian account email the API token belongs to (with api_token)'),
    api_token: z.string().min(1).optional().describe('an API token from id.atlassian.com → Security → API tokens (with email; sent as HTTP Basic to site_url)'),
  })
  .strict()
  .refine((c) => !c.email === !c.api_token, { message: 'email and api_token go together', path: ['api_token'] });
export type ConfluenceCredentials = z.infer<typeof confluenceCredentials>;

export const confluenceSettings = z
  .object({
    site_url: siteUrl('the Confluence Cloud site, e.g. https://acme.atlassian.net (required with an API token; with OAuth it picks the site when the grant covers several)').optional(),
    cloud_id: z
      .string()
      .regex(/^[A-Za-z0-9-]+$/, 'an Atlassian cloud id (a UUID)')
      .optional()
      .describe("the site's Atlassian cloud id, discovered with OAuth (https://api.atlassian.com/ex/confluence/{cloud_id})"),
    spaces: z
      .array(z.string().regex(/^[A-Za-z0-9~_-]+$/, 'a space key, e.g. "ENG" or "~5b10ac8d82e05b22cc7d4ef5"'))
      .min(1)
      .optional()
      .describe('space keys to index (default: every space the credentials can read)'),
    include_blog_posts: z.boolean().default(true).describe('index blog posts as well as pages'),
    include_comments: z.boolean().default(true).describe('index footer and inline comments of pages and blog posts (one document per comment)'),
    include_attachments: z.boolean().default(true).describe("list each page's attachment names (and media types) in its text and metadata; the files themselves are not downloaded"),
    include_restrictions: z
      .boolean()
      .default(true)
      .describe("read each page's view restrictions for its ACL (one more request per page read); off: every document carries its space's ACL"),
    ...commonSettings,
  })
  .strict();
export type ConfluenceSettings = z.infer<typeof confluenceSettings>;
