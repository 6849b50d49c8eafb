import { z } from 'zod';
import { type KindDefinition, validateWith } from '../kit/index.ts';
import { discordGet } from './client.ts';
import { type DiscordCredentials, type DiscordSettings, discordCredentials, discordSettings } from './schemas.ts';
import { type DiscordCursor, type DiscordPage, discordSync } from './sync.ts';

const me = z.object({ id: z.string(), username: z.string(), bot: z.boolean().optional() });

/**
 * Discord (chat): guilds' text, announcement and forum channels, their messages and public threads, as the bot.
 * Bot token only: Discord's OAuth 2.0 `bot` scope adds the bot to a guild, but the token it answers is the installing
 * user's, which cannot read channel messages; the bot token is never issued through OAuth (README).
 */
export const discordKind: KindDefinition<DiscordCredentials, DiscordSettings, DiscordCursor, DiscordPage> = {
  type: 'discord',
  displayName: 'Discord',
  category: 'chat',
  group: 'productivity',
  authTypes: ['api_key'],
  credentials: discordCredentials,
  settings: discordSettings,
  contentTypes: ['guilds', 'channels', 'messages', 'threads'],
  // Global limit: 50 requests per second per bot (discord.com/developers/docs/topics/rate-limits#global-rate-limit);
  // per-route buckets are read from the X-RateLimit-* headers of each answer (client.ts), as Discord asks.
  vendorLimits: { perSecond: 50 },
  hasUsableCredentials: (c) => Boolean(c.token),
  validate: validateWith(async (ctx) => {
    const u = me.parse(await discordGet(ctx, '/users/@me'));
    if (u.bot === false || u.bot === undefined) return { ok: false as const, message: `the token belongs to the user ${u.username}, not a bot: supply a bot token` };
    return { account: u.username };
  }),
  sync: discordSync,
};
