import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/**
 * An Airtable personal access token (`pat…`, sent as a bearer token like OAuth's) or OAuth 2.0: the OAuth result arrives
 * as `access_token`. Empty credentials are accepted so a connector can be created before its OAuth redirect.
 */
export const airtableCredentials = z
  .object({
    personal_access_token: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe('an Airtable personal access token (airtable.com/create/tokens; scopes data.records:read schema.bases:read); omit to connect with OAuth'),
    access_token: z.string().min(1).optional().describe('OAuth 2.0 access token (scopes data.records:read schema.bases:read); set by the OAuth flow'),
  })
  .strict();
export type AirtableCredentials = z.infer<typeof airtableCredentials>;

/** An Airtable base id: `app` and 14 letters or digits. */
export const BASE_ID = /^app[A-Za-z0-9]{14}$/;

export const airtableSettings = z
  .object({
    bases: z
      .array(z.string().trim().regex(BASE_ID, 'an Airtable base id such as appAbCdEfGhIjKlMn (from the base URL)'))
      .min(1)
      .optional()
      .describe('base ids to sync (appXXXXXXXXXXXXXX); default every base the token can read'),
    ...commonSettings,
  })
  .strict();
export type AirtableSettings = z.infer<typeof airtableSettings>;
