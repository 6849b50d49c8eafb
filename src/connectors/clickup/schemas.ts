import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/**
 * A personal API token (`pk_…`, Settings → Apps → API Token; sent bare in `Authorization`) or OAuth 2.0 (the flow
 * stores `access_token`, sent as `Bearer`). Empty credentials are accepted so a connector can be created before its
 * OAuth redirect.
 */
export const clickupCredentials = z
  .object({
    api_token: z
      .string()
      .trim()
      .regex(/^pk_[A-Za-z0-9_]+$/, 'a ClickUp personal API token starts with pk_')
      .optional()
      .describe('a ClickUp personal API token (pk_…, Settings → Apps → API Token); omit to connect with OAuth'),
    access_token: z.string().min(1).optional().describe('OAuth 2.0 access token; set by the OAuth flow'),
  })
  .strict();
export type ClickUpCredentials = z.infer<typeof clickupCredentials>;

const id = z.string().trim().regex(/^[0-9A-Za-z_-]{1,64}$/, 'a ClickUp id');

export const clickupSettings = z
  .object({
    team_ids: z.array(id).min(1).optional().describe('Workspace (team) ids to sync; default every Workspace the token can read'),
    space_ids: z.array(id).min(1).optional().describe('Space ids to sync; default every Space of the Workspaces'),
    include_comments: z.boolean().default(true).describe('sync task comments as their own documents (one request per changed task)'),
    include_docs: z.boolean().default(true).describe('sync ClickUp Docs (API v3) with their pages as Markdown'),
    ...commonSettings,
  })
  .strict();
export type ClickUpSettings = z.infer<typeof clickupSettings>;
