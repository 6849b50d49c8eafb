import { z } from 'zod';
import { commonSettings, siteUrl } from '../kit/index.ts';

/**
 * A personal access token (`token`, sent as Bearer) or the result of the server's OAuth 2.0 flow (`access_token`).
 * Empty credentials are accepted so a connector can be created before its OAuth redirect.
 */
export const mattermostCredentials = z
  .object({
    token: z
      .string()
      .min(1)
      .optional()
      .describe('a personal access token (Profile → Security → Personal Access Tokens; the server must enable them) of a user or bot that is a member of the teams to sync'),
    access_token: z.string().min(1).optional().describe('OAuth 2.0 access token from the Mattermost server (set by the OAuth flow)'),
  })
  .strict();
export type MattermostCredentials = z.infer<typeof mattermostCredentials>;

export const mattermostSettings = z
  .object({
    site_url: siteUrl('your Mattermost server: https://chat.example.com (Mattermost Cloud: https://<name>.cloud.mattermost.com)'),
    teams: z.array(z.string().min(1)).optional().describe('team names or ids to sync (default: every team the account belongs to)'),
    channels: z.array(z.string().min(1)).optional().describe('channel names, display names or ids to sync (default: every public channel of those teams)'),
    sync_private: z.boolean().default(false).describe('also sync the private channels the account is a member of'),
    ...commonSettings,
  })
  .strict();
export type MattermostSettings = z.infer<typeof mattermostSettings>;
