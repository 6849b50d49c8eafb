import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/**
 * A GitBook personal access token (Account settings → Developer → Personal access tokens) or an OAuth 2.0 access token
 * (set by the OAuth flow): both are sent as `Authorization: Bearer`. Empty credentials are accepted so a connector can
 * be created before its OAuth redirect.
 */
export const gitbookCredentials = z
  .object({
    access_token: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe('a GitBook personal access token (gb_api_…, Account settings → Developer), or the OAuth 2.0 access token the OAuth flow stores; omit to connect with OAuth'),
  })
  .strict();
export type GitBookCredentials = z.infer<typeof gitbookCredentials>;

const id = z.string().trim().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a GitBook id (the part after /o/ or /s/ in an app.gitbook.com URL)');

export const gitbookSettings = z
  .object({
    organizations: z.array(id).min(1).optional().describe('organization ids to sync; default every organization the token can read'),
    spaces: z.array(id).min(1).optional().describe('space ids to sync; default every space of the organizations'),
    include_hidden: z.boolean().default(true).describe('also sync pages hidden from the table of contents'),
    ...commonSettings,
  })
  .strict();
export type GitBookSettings = z.infer<typeof gitbookSettings>;
