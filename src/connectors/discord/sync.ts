import { z } from 'zod';
import { type Page, type SourceDocument, type SyncCapability, type SyncMode, VendorHttpError } from '../kit/index.ts';
import { type DiscordCtx, discordGet } from './client.ts';
import {
  type DiscordChannel,
  discordChannel,
  discordMessage,
  type DiscordTarget,
  isContentMessage,
  isPrivateChannel,
  laterId,
  MESSAGE_CHANNELS,
  messageToDocument,
  THREAD_ONLY_CHANNELS,
  ChannelType,
} from './map.ts';
import { readChannelViewers } from './members.ts';
import type { DiscordCredentials, DiscordSettings } from './schemas.ts';

/** The most GET /channels/{id}/messages, /users/@me/guilds and the archived-threads listing return at once. */
const MESSAGE_LIMIT = 100;
const GUILD_LIMIT = 200;
const THREAD_LIMIT = 100;

const target = z.object({
  id: z.string(),
  guild_id: z.string(),
  channel: z.string(),
  thread: z.string().optional(),
  acl_channel: z.string(),
  private: z.boolean(),
  last_message_id: z.string().nullable(),
});
const parent = z.object({ id: z.string(), name: z.string(), private: z.boolean() });

export const discordPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['guilds', 'channels', 'archived', 'messages']),
  /** When this sync began (the next incremental lists archived threads back to here). */
  startedAt: z.string().nullable(),
  guildAfter: z.string().nullable(),
  guilds: z.array(z.string()),
  guildIndex: z.number().int(),
  /** Channel id → name, for `<#id>` mentions. */
  names: z.record(z.string(), z.string()),
  /** The current guild's channels whose threads are listed (archived phase). */
  parents: z.array(parent),
  parentIndex: z.number().int(),
  archivedBefore: z.string().nullable(),
  targets: z.array(target),
  index: z.number().int(),
  after: z.string().nullable(),
  /** Newest message id read per channel or thread: the next cursor. */
  last: z.record(z.string(), z.string()),
  /** Incremental: the stored newest id per channel or thread, and when the last sync began. */
  since: z.record(z.string(), z.string()),
  sinceAt: z.string().nullable(),
});
export type DiscordPage = z.infer<typeof discordPage>;

export const discordCursor = z.object({ channels: z.record(z.string(), z.string()), synced_at: z.string().nullable() });
export type DiscordCursor = z.infer<typeof discordCursor>;

type Result = Page<DiscordPage, DiscordCursor>;
const cursorOf = (p: DiscordPage): DiscordCursor => ({ channels: p.last, synced_at: p.startedAt ?? p.sinceAt });
const threadList = z.object({ threads: z.array(discordChannel), has_more: z.boolean().optional() });

/** 403 (Missing Access) or 404 (Unknown Channel): the bot cannot read this one channel; the rest of the sync goes on. */
async function unlessNoAccess<T>(ctx: DiscordCtx, what: string, call: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof VendorHttpError && (err.status === 403 || err.status === 404)) {
      ctx.log.warn({ what, status: err.status }, 'discord: no access, skipped');
      return fallback;
    }
    throw err;
  }
}

function afterGuild(p: DiscordPage): DiscordPage | null {
  const guildIndex = p.guildIndex + 1;
  if (guildIndex < p.guilds.length) return { ...p, phase: 'channels', guildIndex, parents: [], parentIndex: 0, archivedBefore: null };
  return p.targets.length > 0 ? { ...p, phase: 'messages', index: 0, after: null } : null;
}

async function guildsPage(ctx: DiscordCtx, p: DiscordPage): Promise<Result> {
  const startedAt = p.startedAt ?? ctx.now.toISOString();
  const r = z.array(z.object({ id: z.string(), name: z.string() })).parse(await discordGet(ctx, '/users/@me/guilds', { limit: GUILD_LIMIT, after: p.guildAfter ?? undefined }));
  const wanted = ctx.settings.guilds;
  const guilds = [...p.guilds, ...r.filter((g) => !wanted || wanted.includes(g.id)).map((g) => g.id)];
  const here = { ...p, startedAt, guilds };
  if (r.length === GUILD_LIMIT) return { documents: [], next: { ...here, guildAfter: r.at(-1)?.id ?? null }, cursor: cursorOf(here) };
  return { documents: [], next: guilds.length > 0 ? { ...here, phase: 'channels', guildIndex: 0 } : null, cursor: cursorOf(here) };
}

async function channelsPage(ctx: DiscordCtx, p: DiscordPage): Promise<Result> {
  const guildId = p.guilds[p.guildIndex];
  if (!guildId) return { documents: [], next: afterGuild(p), cursor: cursorOf(p) };
  const all = z.array(discordChannel).parse(await discordGet(ctx, `/guilds/${guildId}/channels`));
  const wanted = ctx.settings.channels;
  const names = { ...p.names };
  const targets = [...p.targets];
  const parents: z.infer<typeof parent>[] = [];
  const privates: { id: string; overwrites: NonNullable<DiscordChannel['permission_overwrites']> }[] = [];
  for (const c of all) {
    const name = c.name ?? c.id;
    names[c.id] = name;
    if (!MESSAGE_CHANNELS.has(c.type) && !THREAD_ONLY_CHANNELS.has(c.type)) continue;
    if (wanted && !wanted.includes(name) && !wanted.includes(c.id)) continue;
    const priv = isPrivateChannel(c, guildId);
    if (priv && !ctx.settings.sync_private) continue;
    parents.push({ id: c.id, name, private: priv });
    if (priv) privates.push({ id: c.id, overwrites: c.permission_overwrites ?? [] });
    if (MESSAGE_CHANNELS.has(c.type)) targets.push({ id: c.id, guild_id: guildId, channel: name, acl_channel: c.id, private: priv, last_message_id: c.last_message_id ?? null });
  }
  const here = { ...p, names, targets };
  // Who reads each private channel (and its threads), re-read on every sync.
  const members = await readChannelViewers(ctx, guildId, privates);
  if (!ctx.settings.include_threads || parents.length === 0) return { documents: [], ...members, next: afterGuild(here), cursor: cursorOf(here) };
  // Active threads are listed for the whole guild (resources/guild#list-active-guild-threads); archived ones per channel.
  const active = threadList.parse(await discordGet(ctx, `/guilds/${guildId}/threads/active`));
  const withThreads = { ...here, targets: addThreads(here.targets, active.threads, parents, guildId) };
  return { documents: [], ...members, next: { ...withThreads, phase: 'archived', parents, parentIndex: 0, archivedBefore: null }, cursor: cursorOf(withThreads) };
}

/** Public and announcement threads of the listed parents (private threads are not read), each once. */
function addThreads(targets: DiscordTarget[], threads: readonly DiscordChannel[], parents: readonly z.infer<typeof parent>[], guildId: string): DiscordTarget[] {
  const seen = new Set(targets.map((t) => t.id));
  const out = [...targets];
  for (const th of threads) {
    const par = parents.find((x) => x.id === th.parent_id);
    if (!par || seen.has(th.id) || (th.type !== ChannelType.publicThread && th.type !== ChannelType.announcementThread)) continue;
    seen.add(th.id);
    out.push({ id: th.id, guild_id: guildId, channel: par.name, thread: th.name ?? th.id, acl_channel: par.id, private: par.private, last_message_id: th.last_message_id ?? null });
  }
  return out;
}

async function archivedPage(ctx: DiscordCtx, p: DiscordPage): Promise<Result> {
  const par = p.parents[p.parentIndex];
  const guildId = p.guilds[p.guildIndex];
  if (!par || !guildId) return { documents: [], next: afterGuild(p), cursor: cursorOf(p) };
  const r = await unlessNoAccess(
    ctx,
    `archived threads of ${par.id}`,
    async () => threadList.parse(await discordGet(ctx, `/channels/${par.id}/threads/archived/public`, { limit: THREAD_LIMIT, before: p.archivedBefore ?? undefined })),
    { threads: [], has_more: false },
  );
  // Newest archive first. Posting in an archived thread unarchives it, so a thread archived before the last sync
  // began has no message that sync did not read: an incremental sync stops listing there.
  const since = p.mode === 'incremental' ? p.sinceAt : null;
  const fresh = since ? r.threads.filter((t) => (t.thread_metadata?.archive_timestamp ?? '') >= since) : r.threads;
  const here = { ...p, targets: addThreads(p.targets, fresh, [par], guildId) };
  const oldest = r.threads.at(-1)?.thread_metadata?.archive_timestamp ?? null;
  if (r.has_more && oldest && fresh.length === r.threads.length) return { documents: [], next: { ...here, archivedBefore: oldest }, cursor: cursorOf(here) };
  const parentIndex = p.parentIndex + 1;
  const next = parentIndex < p.parents.length ? { ...here, parentIndex, archivedBefore: null } : afterGuild(here);
  return { documents: [], next, cursor: cursorOf(here) };
}

/** Nothing new: the channel's newest message is the one the last sync read (or it has none). */
const unchanged = (t: DiscordTarget, since: string | undefined) => !t.last_message_id || (since !== undefined && BigInt(t.last_message_id) <= BigInt(since));

async function messagesPage(ctx: DiscordCtx, p: DiscordPage): Promise<Result> {
  let index = p.index;
  while (p.after === null && p.targets[index] && unchanged(p.targets[index] as DiscordTarget, p.since[(p.targets[index] as DiscordTarget).id])) index++;
  const t = p.targets[index];
  if (!t) return { documents: [], next: null, cursor: cursorOf(p) };
  // `after` reads forward from a message id (0 = the channel's first message): a full and an incremental sync walk
  // the same way, from a different start.
  const after = p.after ?? p.since[t.id] ?? '0';
  const raw = await unlessNoAccess(ctx, `messages of ${t.id}`, () => discordGet<unknown[]>(ctx, `/channels/${t.id}/messages`, { limit: MESSAGE_LIMIT, after }), []);
  const messages = z.array(discordMessage).parse(raw);
  const documents: SourceDocument[] = messages.filter(isContentMessage).map((m) => messageToDocument(t, m, p.names));
  let newest = laterId(p.last[t.id], after === '0' ? null : after);
  for (const m of messages) newest = laterId(newest, m.id);
  const last = newest ? { ...p.last, [t.id]: newest } : p.last;
  const here = { ...p, index, last };
  if (messages.length === MESSAGE_LIMIT && newest) return { documents, next: { ...here, after: newest }, cursor: cursorOf(here) };
  const next = index + 1 < p.targets.length ? { ...here, index: index + 1, after: null } : null;
  return { documents, next, cursor: cursorOf(here) };
}

export const discordSync: SyncCapability<DiscordCredentials, DiscordSettings, DiscordCursor, DiscordPage> = {
  cursorSchema: discordCursor,
  pageSchema: discordPage,
  start(mode: SyncMode, since: DiscordCursor | null): DiscordPage {
    const resume = mode === 'incremental' ? since : null;
    return {
      mode,
      phase: 'guilds',
      startedAt: null,
      guildAfter: null,
      guilds: [],
      guildIndex: 0,
      names: {},
      parents: [],
      parentIndex: 0,
      archivedBefore: null,
      targets: [],
      index: 0,
      after: null,
      last: { ...(resume?.channels ?? {}) },
      since: { ...(resume?.channels ?? {}) },
      sinceAt: resume?.synced_at ?? null,
    };
  },
  async readPage(ctx, page) {
    if (page.phase === 'guilds') return guildsPage(ctx, page);
    if (page.phase === 'channels') return channelsPage(ctx, page);
    if (page.phase === 'archived') return archivedPage(ctx, page);
    return messagesPage(ctx, page);
  },
};
