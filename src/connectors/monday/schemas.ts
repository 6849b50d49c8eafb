import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/**
 * A personal API token (Profile → Developers → API token; sent in `Authorization`) or OAuth 2.0 (the flow stores
 * `access_token`). Empty credentials are accepted so a connector can be created before its OAuth redirect.
 */
export const mondayCredentials = z
  .object({
    api_token: z.string().trim().min(20, 'a monday.com API token (a long JWT)').optional().describe('a monday.com personal API token (Developers → My access tokens); omit to connect with OAuth'),
    access_token: z.string().min(1).optional().describe('OAuth 2.0 access token; set by the OAuth flow'),
  })
  .strict();
export type MondayCredentials = z.infer<typeof mondayCredentials>;

const id = z.string().trim().regex(/^\d{1,20}$/, 'a numeric monday.com id');

export const mondaySettings = z
  .object({
    board_ids: z.array(id).min(1).optional().describe('board ids to sync; default every active board the token can read'),
    workspace_ids: z.array(id).min(1).optional().describe('workspace ids whose boards to sync; default all'),
    include_updates: z.boolean().default(true).describe('sync item updates (with their replies) as their own documents'),
    ...commonSettings,
  })
  .strict();
export type MondaySettings = z.infer<typeof mondaySettings>;
