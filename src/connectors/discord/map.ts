import { z } from 'zod';
import type { SourceAcl, SourceDocument } from '../kit/index.ts';

/** discord.com: message links open in the web and desktop clients. */
export const DISCORD_APP = 'https://discord.com';

/** Permission bit `VIEW_CHANNEL` (1 << 10), topics/permissions. */
const VIEW_CHANNEL = 1n << 10n;

export const discordUser = z.object({ id: z.string(), username: z.string(), global_name: z.string().nullable().optional(), bot: z.boolean().optional() });
export type DiscordUser = z.infer<typeof discordUser>;

export const discordOverwrite = z.object({ id: z.string(), type: z.union([z.literal(0), z.literal(1)]), allow: z.string(), deny: z.string() });
export const discordChannel = z.object({
  id: z.string(),
  type: z.number(),
  guild_id: z.string().optional(),
  name: z.string().nullable().optional(),
  parent_id: z.string().nullable().optional(),
  last_message_id: z.string().nullable().optional(),
  permission_overwrites: z.array(discordOverwrite).optional(),
  thread_metadata: z.object({ archived: z.boolean(), archive_timestamp: z.string() }).optional(),
});
export type DiscordChannel = z.infer<typeof discordChannel>;

export const discordMessage = z.object({
  id: z.string(),
  channel_id: z.string(),
  type: z.number(),
  content: z.string().default(''),
  author: discordUser,
  timestamp: z.string(),
  edited_timestamp: z.string().nullable().optional(),
  mentions: z.array(discordUser).default([]),
  embeds: z.array(z.object({ title: z.string().optional(), description: z.string().optional(), url: z.string().optional() })).default([]),
  attachments: z.array(z.object({ filename: z.string() })).default([]),
  message_reference: z.object({ message_id: z.string().optional() }).optional(),
});
export type DiscordMessage = z.infer<typeof discordMessage>;

/** Channel types (resources/channel#channel-object-channel-types) whose messages are read. */
export const ChannelType = { text: 0, announcement: 5, announcementThread: 10, publicThread: 11, privateThread: 12, forum: 15, media: 16 } as const;
export const MESSAGE_CHANNELS: ReadonlySet<number> = new Set([ChannelType.text, ChannelType.announcement]);
/** Channels that hold only threads (a forum's posts are threads). */
export const THREAD_ONLY_CHANNELS: ReadonlySet<number> = new Set([ChannelType.forum, ChannelType.media]);
/** DEFAULT and REPLY carry what people wrote; joins, pins, boosts, thread-starter stubs … are housekeeping. */
const CONTENT_TYPES: ReadonlySet<number> = new Set([0, 19]);

/** A channel or thread whose messages are read, with what its documents need. */
export interface DiscordTarget {
  readonly id: string;
  readonly guild_id: string;
  /** The channel's name (a thread: its parent channel's name). */
  readonly channel: string;
  /** A thread's name (absent for a channel). */
  readonly thread?: string;
  /** The channel whose permissions apply (a thread: its parent). */
  readonly acl_channel: string;
  readonly private: boolean;
  readonly last_message_id: string | null;
}

/** A channel is private when an overwrite for @everyone (the role whose id is the guild id) denies VIEW_CHANNEL. */
export function isPrivateChannel(channel: Pick<DiscordChannel, 'permission_overwrites'>, guildId: string): boolean {
  return (channel.permission_overwrites ?? []).some((o) => o.id === guildId && o.type === 0 && (BigInt(o.deny) & VIEW_CHANNEL) !== 0n);
}

export const channelGroup = (channelId: string) => `discord:channel:${channelId}`;
/** Private channels (and their threads) → the channel's group; public ones → anyone in the tenant. */
export function targetAcl(t: Pick<DiscordTarget, 'private' | 'acl_channel'>): SourceAcl {
  return t.private ? { groups: [channelGroup(t.acl_channel)] } : { public: true };
}

export const isContentMessage = (m: DiscordMessage) => CONTENT_TYPES.has(m.type) && messageText(m, {}).trim() !== '';

const nameOf = (u: DiscordUser) => u.global_name || u.username;

/**
 * Discord's markup as plain text: user mentions `<@id>` / `<@!id>` → `@name` (from the message's `mentions`), channel
 * mentions `<#id>` → `#name`, role mentions → `@role`, custom emoji `<:name:id>` → `:name:`, timestamps `<t:unix:style>` →
 * ISO time (reference#message-formatting).
 */
export function renderDiscordText(text: string, mentions: readonly DiscordUser[], channels: Record<string, string>): string {
  const users = new Map(mentions.map((u) => [u.id, nameOf(u)]));
  return text
    .replace(/<@!?(\d+)>/g, (_m, id: string) => `@${users.get(id) ?? id}`)
    .replace(/<#(\d+)>/g, (_m, id: string) => `#${channels[id] ?? id}`)
    .replace(/<@&(\d+)>/g, '@role')
    .replace(/<a?:(\w+):\d+>/g, ':$1:')
    .replace(/<t:(-?\d+)(?::[tTdDfFR])?>/g, (_m, s: string) => new Date(Number(s) * 1000).toISOString());
}

/** The message's text, then each embed's title and description and the attachments' file names. */
export function messageText(m: DiscordMessage, channels: Record<string, string>): string {
  const parts = [renderDiscordText(m.content, m.mentions, channels)];
  for (const e of m.embeds) parts.push(...[e.title, e.description].filter((x): x is string => Boolean(x?.trim())));
  if (m.attachments.length) parts.push(`Attachments: ${m.attachments.map((a) => a.filename).join(', ')}`);
  return parts.filter((x) => x.trim()).join('\n');
}

export const messageExternalId = (channelId: string, messageId: string) => `msg:${channelId}:${messageId}`;

export function messageToDocument(t: DiscordTarget, m: DiscordMessage, channels: Record<string, string>): SourceDocument {
  const author = nameOf(m.author);
  const where = t.thread ? `#${t.channel} › ${t.thread}` : `#${t.channel}`;
  return {
    external_id: messageExternalId(t.id, m.id),
    title: `${where} — ${author}`,
    content: messageText(m, channels),
    url: `${DISCORD_APP}/channels/${t.guild_id}/${t.id}/${m.id}`,
    author,
    document_type: t.thread ? 'thread_message' : 'message',
    created_at: new Date(m.timestamp).toISOString(),
    updated_at: new Date(m.edited_timestamp ?? m.timestamp).toISOString(),
    metadata: {
      guild_id: t.guild_id,
      channel: t.channel,
      channel_id: t.acl_channel,
      ...(t.thread ? { thread: t.thread, thread_id: t.id } : {}),
      message_id: m.id,
      author_id: m.author.id,
      ...(m.message_reference?.message_id ? { reply_to: m.message_reference.message_id } : {}),
    },
    acl: targetAcl(t),
  };
}

/** Snowflakes compare as 64-bit integers, not as strings. */
export const laterId = (a: string | null | undefined, b: string | null | undefined): string | null => {
  if (!a) return b ?? null;
  if (!b) return a;
  return BigInt(a) >= BigInt(b) ? a : b;
};
