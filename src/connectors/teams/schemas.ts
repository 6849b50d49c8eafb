import { z } from 'zod';
import { commonSettings, siteUrl } from '../kit/index.ts';

export const teamsCredentials = z
  .object({
    access_token: z
      .string()
      .min(1)
      .optional()
      .describe(
        'a Microsoft Graph delegated access token (filled by the OAuth flow) with Team.ReadBasic.All, Channel.ReadBasic.All, ChannelMessage.Read.All and User.Read',
      ),
  })
  .strict();
export type TeamsCredentials = z.infer<typeof teamsCredentials>;

/** Graph's delta for channel messages only reaches back eight months (chatMessage: delta). */
export const MAX_LOOKBACK_DAYS = 240;

export const teamsSettings = z
  .object({
    teams: z.array(z.string().min(1)).optional().describe('team ids or display names to sync (default: every team the signed-in user has joined)'),
    channels: z.array(z.string().min(1)).optional().describe('channel ids or display names to sync within those teams (default: every channel the user can read)'),
    include_replies: z.boolean().default(true).describe('index replies to channel messages, one document per reply'),
    lookback_days: z
      .number()
      .int()
      .min(1)
      .max(MAX_LOOKBACK_DAYS)
      .optional()
      .describe('index only reply chains changed in the last N days (at most 240: Graph delta covers eight months); default: the whole channel history'),
    graph_url: siteUrl('the Microsoft Graph endpoint of a national cloud, e.g. https://graph.microsoft.us (default https://graph.microsoft.com)').optional(),
    ...commonSettings,
  })
  .strict();
export type TeamsSettings = z.infer<typeof teamsSettings>;
