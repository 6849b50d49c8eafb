import { z } from 'zod';
import type { Page, SourceContext, SourceIdentities, StoredRef, SyncCapability, SyncMode } from '../kit/index.ts';
import { slackCall } from './client.ts';
import { channelGroup, isContentMessage, messageToDocument, type SlackChannelRef, type SlackMessage } from './map.ts';
import type { SlackCredentials, SlackSettings } from './schemas.ts';

type Ctx = SourceContext<SlackCredentials, SlackSettings>;

export const slackCursor = z.object({ latest: z.record(z.string(), z.string()) });
export type SlackCursor = z.infer<typeof slackCursor>;
export const slackPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'channels', 'history', 'replies']),
  teamUrl: z.string(),
  users: z.record(z.string(), z.string()),
  channels: z.array(z.object({ id: z.string(), name: z.string(), is_private: z.boolean() })),
  index: z.number().int(),
  cursor: z.string().nullable(),
  threads: z.array(z.string()),
  latest: z.record(z.string(), z.string()),
  since: z.record(z.string(), z.string()),
  /** Incremental: the window of the current channel being re-read (`oldest`), when the listing began, and the ts listed. */
  window: z.object({ oldest: z.string(), listedAt: z.string(), seen: z.array(z.string()) }).nullable().default(null),
  /** Incremental: reply ts seen so far in the thread being re-read (to find replies deleted at Slack). */
  replies: z.array(z.string()).default([]),
});
export type SlackPage = z.infer<typeof slackPage>;

interface Paged {
  response_metadata?: { next_cursor?: string };
}
const nextCursor = (r: Paged) => r.response_metadata?.next_cursor || null;
const cursorOf = (p: SlackPage): SlackCursor => ({ latest: p.latest });
const later = (a: string | undefined, b: string) => (a === undefined || Number(b) > Number(a) ? b : a);

function nextChannel(p: SlackPage): SlackPage | null {
  const index = p.index + 1;
  return index >= p.channels.length ? null : { ...p, phase: 'history', index, cursor: null, threads: [], window: null, replies: [] };
}

const DAY_S = 86_400;
/** A Slack timestamp (`seconds.micro`) for a time. */
const slackTs = (seconds: number) => `${Math.floor(seconds)}.000000`;
const isReplyRef = (ref: StoredRef) => typeof ref.metadata.thread_ts === 'string';
const tsOf = (ref: StoredRef) => (typeof ref.metadata.ts === 'string' ? ref.metadata.ts : (ref.external_id.split(':').pop() ?? ''));

export interface SlackUser {
  readonly id: string;
  readonly name: string;
  readonly real_name?: string;
  readonly deleted?: boolean;
  readonly is_bot?: boolean;
  /** `profile.email` needs the `users:read.email` scope; without it Slack leaves it out (the account stays unresolved). */
  readonly profile?: { real_name?: string; email?: string };
}
/** The name documents show for a user: profile real name, else real name, else handle. */
export const displayName = (u: SlackUser) => u.profile?.real_name || u.real_name || u.name;

/** Slack user `U…` as the identity directory and ACLs name it. */
export const slackAccount = (userId: string) => `slack:${userId}`;

/** Every user's display name by id (users.list, 200 per call), and the accounts for the identity directory. */
export async function listUsers(ctx: Ctx): Promise<Record<string, string>> {
  return (await listUsersWithAccounts(ctx)).names;
}

async function listUsersWithAccounts(ctx: Ctx): Promise<{ names: Record<string, string>; accounts: NonNullable<SourceIdentities['accounts']>[number][] }> {
  const names: Record<string, string> = {};
  const accounts: NonNullable<SourceIdentities['accounts']>[number][] = [];
  let cursor: string | null = null;
  do {
    const r: { members: SlackUser[] } & Paged = await slackCall(ctx, 'users.list', { limit: 200, ...(cursor ? { cursor } : {}) });
    for (const u of r.members) {
      names[u.id] = displayName(u);
      if (!u.deleted && !u.is_bot) accounts.push({ account_id: slackAccount(u.id), email: u.profile?.email?.toLowerCase() ?? null, display_name: displayName(u) });
    }
    cursor = nextCursor(r);
  } while (cursor);
  return { names, accounts };
}

/** A private channel's whole member list (conversations.members, 200 per call): who may read its messages. */
async function channelMembers(ctx: Ctx, channelId: string): Promise<string[]> {
  const members: string[] = [];
  let cursor: string | null = null;
  do {
    const r: { members: string[] } & Paged = await slackCall(ctx, 'conversations.members', { channel: channelId, limit: 200, ...(cursor ? { cursor } : {}) });
    members.push(...r.members.map(slackAccount));
    cursor = nextCursor(r);
  } while (cursor);
  return members;
}

async function readPage(ctx: Ctx, p: SlackPage): Promise<Page<SlackPage, SlackCursor>> {
  if (p.phase === 'setup') {
    const auth = await slackCall<{ url: string }>(ctx, 'auth.test', {});
    const { names: users, accounts } = await listUsersWithAccounts(ctx);
    return { documents: [], identities: { accounts }, next: { ...p, phase: 'channels', teamUrl: auth.url, users }, cursor: cursorOf(p) };
  }
  if (p.phase === 'channels') {
    const types = ctx.settings.sync_private ? 'public_channel,private_channel' : 'public_channel';
    const r = await slackCall<{ channels: { id: string; name: string; is_private?: boolean; is_member?: boolean; is_archived?: boolean }[] } & Paged>(ctx, 'conversations.list', {
      types,
      limit: 200,
      exclude_archived: true,
      ...(p.cursor ? { cursor: p.cursor } : {}),
    });
    const wanted = ctx.settings.channels;
    const found: SlackChannelRef[] = r.channels
      .filter((c) => (wanted ? wanted.includes(c.name) || wanted.includes(c.id) : c.is_member !== false))
      .map((c) => ({ id: c.id, name: c.name, is_private: c.is_private ?? false }));
    const channels = [...p.channels, ...found];
    const more = nextCursor(r);
    if (more) return { documents: [], next: { ...p, channels, cursor: more }, cursor: cursorOf(p) };
    // Every sync (incremental too) re-reads the private channels' members: a member removed at Slack loses the
    // channel's messages after the next sync (private channel ACL = group slack:<channel id>).
    const groups = [];
    for (const c of channels.filter((x) => x.is_private)) groups.push({ group_id: channelGroup(c.id), members: await channelMembers(ctx, c.id) });
    return {
      documents: [],
      identities: { groups },
      next: channels.length > 0 ? { ...p, channels, phase: 'history', index: 0, cursor: null } : null,
      cursor: cursorOf(p),
    };
  }
  const channel = p.channels[p.index];
  if (!channel) return { documents: [], next: null, cursor: cursorOf(p) };
  if (p.phase === 'history') {
    // Incremental: from the newest ts seen last time, or `incremental_lookback_days` back if that is earlier, so
    // edits, deletions and new replies to recent threads are seen without the Events API. A channel never read
    // before is read whole.
    const since = p.mode === 'incremental' ? p.since[channel.id] : undefined;
    const nowS = ctx.now.getTime() / 1000;
    const lookback = ctx.settings.incremental_lookback_days;
    const window =
      p.window ??
      (since !== undefined && lookback > 0
        ? { oldest: Number(since) < nowS - lookback * DAY_S ? since : slackTs(nowS - lookback * DAY_S), listedAt: slackTs(nowS), seen: [] }
        : null);
    const oldest = window?.oldest ?? since;
    const r = await slackCall<{ messages: SlackMessage[]; has_more?: boolean } & Paged>(ctx, 'conversations.history', {
      channel: channel.id,
      limit: 200,
      ...(oldest ? { oldest } : {}),
      ...(p.cursor ? { cursor: p.cursor } : {}),
    });
    const content = r.messages.filter(isContentMessage);
    const documents = content.map((m) => messageToDocument(p.teamUrl, channel, m, p.users));
    const latest = { ...p.latest };
    for (const m of r.messages) latest[channel.id] = later(latest[channel.id], m.ts);
    // Threads: all in a full sync; incrementally those with a reply since the last sync (or a new root).
    const active = (m: SlackMessage) => since === undefined || Number(m.latest_reply ?? m.ts) > Number(since);
    const threads = [...p.threads, ...r.messages.filter((m) => (m.reply_count ?? 0) > 0 && active(m)).map((m) => m.ts)];
    const listed = window ? { ...window, seen: [...window.seen, ...content.map((m) => m.ts)] } : null;
    const more = nextCursor(r);
    if (more) return { documents, next: { ...p, cursor: more, latest, threads, window: listed }, cursor: cursorOf({ ...p, latest }) };
    // The window is listed whole: a top-level message stored in it that Slack no longer lists was deleted (or
    // became housekeeping). Messages stored after the listing began (Events API) are left alone.
    let deleted: string[] = [];
    if (listed) {
      const seen = new Set(listed.seen);
      deleted = (await ctx.stored(`msg:${channel.id}:`))
        .filter((ref) => !isReplyRef(ref) && Number(tsOf(ref)) > Number(listed.oldest) && Number(tsOf(ref)) < Number(listed.listedAt) && !seen.has(tsOf(ref)))
        .map((ref) => ref.external_id);
    }
    const next: SlackPage | null =
      threads.length > 0 ? { ...p, phase: 'replies', cursor: null, latest, threads, window: listed, replies: [] } : nextChannel({ ...p, latest, threads });
    return { documents, deleted, next, cursor: cursorOf({ ...p, latest }) };
  }
  // replies of one thread per page (paginated), the parent itself excluded
  const [thread, ...rest] = p.threads;
  if (!thread) return { documents: [], next: nextChannel(p), cursor: cursorOf(p) };
  const r = await slackCall<{ messages: SlackMessage[] } & Paged>(ctx, 'conversations.replies', { channel: channel.id, ts: thread, limit: 200, ...(p.cursor ? { cursor: p.cursor } : {}) });
  const replies = r.messages.filter((m) => m.ts !== thread && isContentMessage(m));
  const documents = replies.map((m) => messageToDocument(p.teamUrl, channel, { ...m, thread_ts: thread }, p.users));
  const seen = [...p.replies, ...replies.map((m) => m.ts)];
  const more = nextCursor(r);
  if (more) return { documents, next: { ...p, cursor: more, replies: seen }, cursor: cursorOf(p) };
  // The thread is listed whole: in an incremental sync, its stored replies Slack no longer lists were deleted
  // (a full sync removes whatever it did not see anyway).
  let deleted: string[] = [];
  if (p.mode === 'incremental') {
    const listed = new Set(seen);
    deleted = (await ctx.stored(`msg:${channel.id}:`)).filter((ref) => ref.metadata.thread_ts === thread && !listed.has(tsOf(ref))).map((ref) => ref.external_id);
  }
  const next: SlackPage | null = rest.length > 0 ? { ...p, threads: rest, cursor: null, replies: [] } : nextChannel({ ...p, threads: [] });
  return { documents, deleted, next, cursor: cursorOf(p) };
}

export const slackSync: SyncCapability<SlackCredentials, SlackSettings, SlackCursor, SlackPage> = {
  cursorSchema: slackCursor,
  pageSchema: slackPage,
  start(mode: SyncMode, since: SlackCursor | null): SlackPage {
    const latest = since?.latest ?? {};
    return {
      mode,
      phase: 'setup',
      teamUrl: 'https://slack.com',
      users: {},
      channels: [],
      index: 0,
      cursor: null,
      threads: [],
      latest,
      since: mode === 'incremental' ? latest : {},
      window: null,
      replies: [],
    };
  },
  readPage,
};
