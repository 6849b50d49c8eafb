import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/**
 * HTTP Basic with a user's email and user token (read/write) or a collection id and collection token (read-only,
 * that collection only): Settings → Apps & Integrations → API Access. Or an OAuth 2.0 access token (set by the OAuth
 * flow; Guru's OAuth2 clients are issued by Guru support), sent as `Bearer`. Empty credentials are accepted so a
 * connector can be created before its OAuth redirect.
 */
export const guruCredentials = z
  .object({
    username: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe('the Guru user email a user token belongs to, or the collection id of a collection token (the Basic auth user name)'),
    api_token: z.string().trim().min(1).optional().describe('a Guru user token or collection token (the Basic auth password)'),
    access_token: z.string().min(1).optional().describe('an OAuth 2.0 access token (sent as Bearer); set by the OAuth flow'),
  })
  .strict()
  .refine((c) => !c.api_token || c.username, { message: 'username is required with api_token', path: ['username'] });
export type GuruCredentials = z.infer<typeof guruCredentials>;

const id = z.string().trim().regex(/^[A-Za-z0-9-]{1,64}$/, 'a Guru collection id (a UUID)');

export const guruSettings = z
  .object({
    collections: z.array(id).min(1).optional().describe('collection ids to sync; default every collection the credentials can read'),
    ...commonSettings,
  })
  .strict();
export type GuruSettings = z.infer<typeof guruSettings>;
