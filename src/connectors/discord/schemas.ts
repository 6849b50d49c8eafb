import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

/** A Discord id: a snowflake, a 64-bit integer sent as a decimal string. */
const snowflake = z.string().regex(/^\d{1,20}$/, 'a Discord id (snowflake): digits only');

export const discordCredentials = z
  .object({
    token: z
      .string()
      .min(1)
      .describe('the bot token (Developer Portal → your application → Bot → Reset Token), sent as `Authorization: Bot <token>`; the bot needs View Channels and Read Message History, and the Message Content intent'),
  })
  .strict();
export type DiscordCredentials = z.infer<typeof discordCredentials>;

export const discordSettings = z
  .object({
    guilds: z.array(snowflake).optional().describe('guild (server) ids to sync (default: every guild the bot was added to)'),
    channels: z.array(z.string().min(1)).optional().describe('channel names or ids to sync (default: every text and announcement channel, and forum channels for their threads)'),
    sync_private: z.boolean().default(false).describe('also sync private channels (those whose permission overwrites deny View Channel to @everyone) the bot can read'),
    include_threads: z.boolean().default(true).describe('sync the messages of active and archived public threads (and forum posts)'),
    ...commonSettings,
  })
  .strict();
export type DiscordSettings = z.infer<typeof discordSettings>;
