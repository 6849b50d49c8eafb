import { z } from 'zod';
import type { Page, SourceDocument, SourceIdentities, SyncCapability, SyncMode } from '../kit/index.ts';
import { type ZulipCtx, zulipGet } from './client.ts';
import { type StreamRef, streamGroup, topicExternalId, topicToDocument, zulipAccount, type ZulipMessage, zulipMessage, zulipStream } from './map.ts';
import type { ZulipCredentials, ZulipSettings } from './schemas.ts';

/** Zulip recommends at most 1000 messages a request (5000 is the hard maximum). */
const BATCH = 1000;
/** Topics re-read per engine page (one checkpoint). */
const TOPICS_PER_PAGE = 20;

const streamRef = z.object({ id: z.number(), name: z.string(), private: z.boolean() });
export const zulipPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'stream', 'walk', 'topics']),
  streams: z.array(streamRef),
  index: z.number().int(),
  /** Incremental walk: the anchor of the next request (exclusive). */
  anchor: z.number().int().nullable(),
  /** Topics of the current stream still to read. */
  topics: z.array(z.string()),
  /** Newest message id seen per stream: the next cursor. */
  newest: z.record(z.string(), z.number()),
  since: z.record(z.string(), z.number()),
});
export type ZulipPage = z.infer<typeof zulipPage>;

export const zulipCursor = z.object({ streams: z.record(z.string(), z.number()) });
export type ZulipCursor = z.infer<typeof zulipCursor>;

type Result = Page<ZulipPage, ZulipCursor>;
const cursorOf = (p: ZulipPage): ZulipCursor => ({ streams: p.newest });

const messagesAnswer = z.object({ messages: z.array(zulipMessage), found_newest: z.boolean().optional() });

/** The `narrow` of a channel (and a topic): `stream` is the operator every server version knows (9.0 added `channel`). */
function narrow(streamId: number, topic?: string): string {
  return JSON.stringify([{ operator: 'stream', operand: streamId }, ...(topic === undefined ? [] : [{ operator: 'topic', operand: topic }])]);
}

/** Up to BATCH messages after `anchor` (exclusive) in a narrow, oldest first; `anchor` null = from the oldest. */
async function messagesAfter(ctx: ZulipCtx, narrowJson: string, anchor: number | null): Promise<{ messages: ZulipMessage[]; done: boolean }> {
  const r = messagesAnswer.parse(
    await zulipGet<unknown>(ctx, '/messages', {
      anchor: anchor === null ? 'oldest' : anchor,
      include_anchor: anchor === null,
      num_before: 0,
      num_after: BATCH,
      narrow: narrowJson,
      apply_markdown: false,
    }),
  );
  return { messages: r.messages, done: r.found_newest ?? r.messages.length < BATCH };
}

/** Every message of one topic, oldest first. */
async function topicMessages(ctx: ZulipCtx, streamId: number, topic: string): Promise<ZulipMessage[]> {
  const out: ZulipMessage[] = [];
  let anchor: number | null = null;
  for (;;) {
    const r = await messagesAfter(ctx, narrow(streamId, topic), anchor);
    out.push(...r.messages);
    const last = r.messages.at(-1);
    if (r.done || !last) return out;
    anchor = last.id;
  }
}

const users = z.object({ members: z.array(z.object({ user_id: z.number(), email: z.string(), delivery_email: z.string().nullable().optional(), full_name: z.string(), is_active: z.boolean().optional() })) });

async function setupPage(ctx: ZulipCtx, p: ZulipPage): Promise<Result> {
  const all = z.object({ streams: z.array(zulipStream) }).parse(await zulipGet<unknown>(ctx, '/streams'));
  const wanted = ctx.settings.channels;
  const streams: StreamRef[] = all.streams
    .filter((s) => (wanted ? wanted.includes(s.name) || wanted.includes(String(s.stream_id)) : true))
    .filter((s) => ctx.settings.sync_private || !s.invite_only)
    .filter((s) => ctx.settings.include_archived || !s.is_archived)
    .map((s) => ({ id: s.stream_id, name: s.name, private: s.invite_only }));
  // Private channels' ACL: their subscribers (`zulip:<user id>`), re-read on every sync; emails where the server shows them.
  const identities: { accounts: NonNullable<SourceIdentities['accounts']>[number][]; groups: { group_id: string; members: string[] }[] } = { accounts: [], groups: [] };
  if (streams.some((s) => s.private)) {
    const u = users.parse(await zulipGet<unknown>(ctx, '/users'));
    identities.accounts = u.members.filter((m) => m.is_active !== false).map((m) => ({ account_id: zulipAccount(m.user_id), email: (m.delivery_email ?? m.email).toLowerCase(), display_name: m.full_name }));
    for (const s of streams.filter((x) => x.private)) {
      const subs = z.object({ subscribers: z.array(z.number()) }).parse(await zulipGet<unknown>(ctx, `/streams/${s.id}/members`));
      identities.groups.push({ group_id: streamGroup(s.id), members: subs.subscribers.map(zulipAccount) });
    }
  }
  const next = streams.length > 0 ? startStream({ ...p, streams, index: 0 }) : null;
  return { documents: [], identities, next, cursor: cursorOf(p) };
}

/** A stream seen before is walked from its stored newest id (incremental); otherwise its topics are listed. */
function startStream(p: ZulipPage): ZulipPage {
  const s = p.streams[p.index];
  const since = s ? p.since[String(s.id)] : undefined;
  return { ...p, phase: p.mode === 'incremental' && since !== undefined ? 'walk' : 'stream', anchor: since ?? null, topics: [] };
}

function nextStream(p: ZulipPage): ZulipPage | null {
  return p.index + 1 < p.streams.length ? startStream({ ...p, index: p.index + 1 }) : null;
}

/** Full (or a stream new to this connector): every topic, from `GET /users/me/{stream_id}/topics`. */
async function streamPage(ctx: ZulipCtx, p: ZulipPage, s: StreamRef): Promise<Result> {
  const r = z.object({ topics: z.array(z.object({ name: z.string(), max_id: z.number() })) }).parse(await zulipGet<unknown>(ctx, `/users/me/${s.id}/topics`));
  const max = Math.max(p.newest[String(s.id)] ?? 0, ...r.topics.map((t) => t.max_id));
  const here = { ...p, newest: max > 0 ? { ...p.newest, [String(s.id)]: max } : p.newest };
  const next = r.topics.length > 0 ? { ...here, phase: 'topics' as const, topics: r.topics.map((t) => t.name) } : nextStream(here);
  return { documents: [], next, cursor: cursorOf(here) };
}

/** Incremental: the stream's messages after the stored id (`anchor=<id>`, `include_anchor=false`) name the topics to re-read. */
async function walkPage(ctx: ZulipCtx, p: ZulipPage, s: StreamRef): Promise<Result> {
  const r = await messagesAfter(ctx, narrow(s.id), p.anchor);
  const topics = [...new Set([...p.topics, ...r.messages.map((m) => m.subject)])];
  const last = r.messages.at(-1)?.id;
  const newest = last ? { ...p.newest, [String(s.id)]: Math.max(last, p.newest[String(s.id)] ?? 0) } : p.newest;
  const here = { ...p, topics, newest };
  if (!r.done && last) return { documents: [], next: { ...here, anchor: last }, cursor: cursorOf(here) };
  return { documents: [], next: topics.length > 0 ? { ...here, phase: 'topics', anchor: null } : nextStream(here), cursor: cursorOf(here) };
}

/** Each topic re-read whole and stored as one document; a topic with no messages left (deleted or moved) is deleted. */
async function topicsPage(ctx: ZulipCtx, p: ZulipPage, s: StreamRef): Promise<Result> {
  const batch = p.topics.slice(0, TOPICS_PER_PAGE);
  const documents: SourceDocument[] = [];
  const deleted: string[] = [];
  for (const topic of batch) {
    const messages = await topicMessages(ctx, s.id, topic);
    if (messages.length === 0) deleted.push(topicExternalId(s.id, topic));
    else documents.push(topicToDocument(ctx.settings.site_url, s, topic, messages));
  }
  const rest = p.topics.slice(batch.length);
  const next = rest.length > 0 ? { ...p, topics: rest } : nextStream({ ...p, topics: [] });
  return { documents, deleted, next, cursor: cursorOf(p) };
}

export const zulipSync: SyncCapability<ZulipCredentials, ZulipSettings, ZulipCursor, ZulipPage> = {
  cursorSchema: zulipCursor,
  pageSchema: zulipPage,
  start(mode: SyncMode, since: ZulipCursor | null): ZulipPage {
    const resume = mode === 'incremental' ? (since?.streams ?? {}) : {};
    return { mode, phase: 'setup', streams: [], index: 0, anchor: null, topics: [], newest: { ...resume }, since: { ...resume } };
  },
  async readPage(ctx, page) {
    if (page.phase === 'setup') return setupPage(ctx, page);
    const s = page.streams[page.index];
    if (!s) return { documents: [], next: null, cursor: cursorOf(page) };
    if (page.phase === 'stream') return streamPage(ctx, page, s);
    if (page.phase === 'walk') return walkPage(ctx, page, s);
    return topicsPage(ctx, page, s);
  },
};
