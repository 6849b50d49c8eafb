import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/**
 * A personal access token (Asana developer console → Personal access tokens) or OAuth 2.0: both are sent as
 * `Authorization: Bearer`; the OAuth result arrives as `access_token`. Empty credentials are accepted so a connector
 * can be created before its OAuth redirect.
 */
export const asanaCredentials = z
  .object({
    personal_access_token: z.string().min(1).optional().describe('an Asana personal access token (sent as a bearer token); omit to connect with OAuth'),
    access_token: z.string().min(1).optional().describe('OAuth 2.0 access token; set by the OAuth flow'),
  })
  .strict();
export type AsanaCredentials = z.infer<typeof asanaCredentials>;

/** Asana object ids (gids) are decimal strings. */
const gid = z.string().regex(/^\d{1,30}$/, 'an Asana gid: digits only, e.g. "1201234567890123"');

export const asanaSettings = z
  .object({
    workspaces: z.array(gid).max(50).optional().describe('workspace gids to sync (default: every workspace the token can see)'),
    projects: z.array(gid).max(500).optional().describe('project gids to sync (default: every project of the synced workspaces)'),
    include_comments: z.boolean().default(true).describe("append each task's comments (stories of type comment) to its text; one request a task"),
    include_archived_projects: z.boolean().default(false).describe('also sync archived projects and their tasks'),
    ...commonSettings,
  })
  .strict();
export type AsanaSettings = z.infer<typeof asanaSettings>;
