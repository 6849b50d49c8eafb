import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

export const slackCredentials = z
  .object({
    token: z.string().min(1).optional().describe('bot token (xoxb-…) with channels:history, channels:read, users:read (groups:* for private); or connect with OAuth'),
    access_token: z.string().min(1).optional().describe('the bot token from Slack OAuth v2 (set by the OAuth callback)'),
    signing_secret: z.string().min(1).optional().describe("the Slack app's Signing Secret (Basic Information); needed for real-time Events API deliveries"),
  })
  .strict();
export type SlackCredentials = z.infer<typeof slackCredentials>;

export const slackSettings = z
  .object({
    channels: z.array(z.string().min(1)).optional().describe('channel names or ids to sync (default: every channel the bot is in)'),
    sync_private: z.boolean().default(false),
    incremental_lookback_days: z
      .number()
      .int()
      .min(0)
      .max(90)
      .default(7)
      .describe(
        'an incremental sync re-reads this many days of each channel, so edits, deletions and new replies to threads started in that window are caught without the Events API (0 = only new messages)',
      ),
    ...commonSettings,
  })
  .strict();
export type SlackSettings = z.infer<typeof slackSettings>;
