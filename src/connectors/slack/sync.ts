import { z } from 'zod';
import type { Page, SourceContext, SyncCapability, SyncMode } from '../contract.ts';
import { slackCall } from './client.ts';
import { isContentMessage, messageToDocument, type SlackChannelRef, type SlackMessage } from './map.ts';
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
  return index >= p.channels.length ? null : { ...p, phase: 'history', index, cursor: null, threads: [] };
}

export interface SlackUser {
  readonly id: string;
  readonly name: string;
  readonly real_name?: string;
  readonly profile?: { real_name?: string };
}
/** The name documents show for a user: profile real name, else real name, else handle. */
export const displayName = (u: SlackUser) => u.profile?.real_name || u.real_name || u.name;

/** Every user's display name by id (users.list, 200 per call). */
export async function listUsers(ctx: Ctx): Promise<Record<string, string>> {
  const users: Record<string, string> = {};
  let cursor: string | null = null;
  do {
    const r: { members: SlackUser[] } & Paged = await slackCall(ctx, 'users.list', { limit: 200, ...(cursor ? { cursor } : {}) });
    for (const u of r.members) users[u.id] = displayName(u);
    cursor = nextCursor(r);
  } while (cursor);
  return users;
}

async function readPage(ctx: Ctx, p: SlackPage): Promise<Page<SlackPage, SlackCursor>> {
  if (p.phase === 'setup') {
    const auth = await slackCall<{ url: string }>(ctx, 'auth.test', {});
    const users = await listUsers(ctx);
    return { documents: [], next: { ...p, phase: 'channels', teamUrl: auth.url, users }, cursor: cursorOf(p) };
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
    return { documents: [], next: channels.length > 0 ? { ...p, channels, phase: 'history', index: 0, cursor: null } : null, cursor: cursorOf(p) };
  }
  const channel = p.channels[p.index];
  if (!channel) return { documents: [], next: null, cursor: cursorOf(p) };
  if (p.phase === 'history') {
    const oldest = p.mode === 'incremental' ? p.since[channel.id] : undefined;
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
    const threads = [...p.threads, ...r.messages.filter((m) => (m.reply_count ?? 0) > 0).map((m) => m.ts)];
    const more = nextCursor(r);
    const next: SlackPage | null = more
      ? { ...p, cursor: more, latest, threads }
      : threads.length > 0
        ? { ...p, phase: 'replies', cursor: null, latest, threads }
        : nextChannel({ ...p, latest, threads });
    return { documents, next, cursor: cursorOf({ ...p, latest }) };
  }
  // replies of one thread per page (paginated), the parent itself excluded
  const [thread, ...rest] = p.threads;
  if (!thread) return { documents: [], next: nextChannel(p), cursor: cursorOf(p) };
  const r = await slackCall<{ messages: SlackMessage[] } & Paged>(ctx, 'conversations.replies', { channel: channel.id, ts: thread, limit: 200, ...(p.cursor ? { cursor: p.cursor } : {}) });
  const documents = r.messages.filter((m) => m.ts !== thread && isContentMessage(m)).map((m) => messageToDocument(p.teamUrl, channel, { ...m, thread_ts: thread }, p.users));
  const more = nextCursor(r);
  const next: SlackPage | null = more ? { ...p, cursor: more } : rest.length > 0 ? { ...p, threads: rest, cursor: null } : nextChannel({ ...p, threads: [] });
  return { documents, next, cursor: cursorOf(p) };
}

export const slackSync: SyncCapability<SlackCredentials, SlackSettings, SlackCursor, SlackPage> = {
  cursorSchema: slackCursor,
  pageSchema: slackPage,
  start(mode: SyncMode, since: SlackCursor | null): SlackPage {
    const latest = since?.latest ?? {};
    return { mode, phase: 'setup', teamUrl: 'https://slack.com', users: {}, channels: [], index: 0, cursor: null, threads: [], latest, since: mode === 'incremental' ? latest : {} };
  },
  readPage,
};
