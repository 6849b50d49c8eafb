import { z } from 'zod';
import { type Page, type SourceContext, type SourceDocument, SourceSettingsError, type SyncCapability, type SyncMode } from '../kit/index.ts';
import { type GraphPage, graphAll, graphGet, graphQuery, isExpiredDelta, isNotFound, seg } from './client.ts';
import { type ChannelRef, channelPrefixes, type GraphMessage, isContentMessage, messageId, messageToDocument, replyId, repliesPrefix } from './map.ts';
import { readChannelReaders } from './members.ts';
import type { TeamsCredentials, TeamsSettings } from './schemas.ts';

type Ctx = SourceContext<TeamsCredentials, TeamsSettings>;

/** Graph's ceiling for `$top` on channel messages and their delta. */
const PAGE_SIZE = 50;
/** A new delta round by `lastModifiedDateTime` starts this much before the time it continues from (clock skew). */
const OVERLAP_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

const channelRef = z.object({ teamId: z.string(), teamName: z.string(), id: z.string(), name: z.string(), membershipType: z.string() });
/** Per channel: the `@odata.deltaLink` to continue from, and when the round that produced it began. */
const channelState = z.object({ deltaLink: z.string().nullable(), syncedAt: z.string() });
export const teamsCursor = z.object({ channels: z.record(z.string(), channelState) });
export type TeamsCursor = z.infer<typeof teamsCursor>;

export const teamsPage = z.object({
  mode: z.enum(['incremental', 'full']),
  /** `list`: GET …/messages (the whole history); `delta`: GET …/messages/delta (changes, or a window by lastModifiedDateTime). */
  phase: z.enum(['setup', 'list', 'delta']),
  channels: z.array(channelRef),
  index: z.number().int(),
  /** The next request of the current phase (an `@odata.nextLink` or a stored deltaLink); null = the phase's first request. */
  link: z.string().nullable(),
  /** A new delta round's `$filter=lastModifiedDateTime gt …`; null = no filter. */
  deltaFrom: z.string().nullable(),
  /** When the current channel's listing began: the delta round after it starts there. */
  listedAt: z.string().nullable(),
  previous: z.record(z.string(), channelState),
  state: z.record(z.string(), channelState),
});
export type TeamsPage = z.infer<typeof teamsPage>;

const minus = (iso: string, ms: number) => new Date(Date.parse(iso) - ms).toISOString();
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

function cursorOf(p: TeamsPage): TeamsCursor {
  const kept = Object.fromEntries(p.channels.filter((c) => p.previous[c.id]).map((c) => [c.id, p.previous[c.id] as z.infer<typeof channelState>]));
  return { channels: { ...kept, ...p.state } };
}

/**
 * How a channel is read. Incremental: follow its stored deltaLink, or (no link) a delta round from when it was last
 * synced. Otherwise (a full sync, a channel new since the last sync): a delta window of `lookback_days`, or the whole
 * history by GET …/messages followed by a delta round from when that listing began (changes made meanwhile + the link).
 */
function enter(p: TeamsPage, ctx: Ctx, index: number): TeamsPage | null {
  const c = p.channels[index];
  if (!c) return null;
  const base: TeamsPage = { ...p, index, link: null, deltaFrom: null, listedAt: null };
  const prev = p.mode === 'incremental' ? p.previous[c.id] : undefined;
  if (prev?.deltaLink) return { ...base, phase: 'delta', link: prev.deltaLink };
  if (prev) return { ...base, phase: 'delta', deltaFrom: minus(prev.syncedAt, OVERLAP_MS) };
  const lookback = ctx.settings.lookback_days;
  if (lookback) return { ...base, phase: 'delta', deltaFrom: minus(ctx.now.toISOString(), lookback * DAY_MS) };
  return { ...base, phase: 'list' };
}

interface TeamRef {
  readonly id: string;
  readonly displayName?: string | null;
}
interface GraphChannel {
  readonly id: string;
  readonly displayName?: string | null;
  readonly membershipType?: string | null;
}

/** The `teams` setting (ids or display names) against the joined teams; an id not joined is looked up with GET /teams/{id}. */
async function resolveTeams(ctx: Ctx): Promise<TeamRef[]> {
  const joined = await graphAll<TeamRef>(ctx, '/me/joinedTeams');
  const wanted = ctx.settings.teams;
  if (!wanted) return joined;
  const picked = new Map<string, TeamRef>();
  const missing: string[] = [];
  for (const w of wanted) {
    const hit = joined.find((t) => t.id === w || sameName(t.displayName ?? '', w));
    if (hit) {
      picked.set(hit.id, hit);
      continue;
    }
    if (GUID.test(w)) {
      try {
        const t = await graphGet<TeamRef>(ctx, `/teams/${seg(w)}`);
        picked.set(t.id, t);
        continue;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    missing.push(w);
  }
  if (missing.length > 0) {
    throw new SourceSettingsError(`Microsoft Teams has no team ${missing.map((m) => `'${m}'`).join(', ')} readable by this account (joined: ${joined.map((t) => t.displayName ?? t.id).join(', ') || 'none'})`);
  }
  return [...picked.values()];
}

/** The channels to sync: every channel of the teams (a shared channel once), narrowed by the `channels` setting. */
async function resolveChannels(ctx: Ctx): Promise<ChannelRef[]> {
  const channels: ChannelRef[] = [];
  for (const t of await resolveTeams(ctx)) {
    for (const ch of await graphAll<GraphChannel>(ctx, `/teams/${seg(t.id)}/channels`)) {
      if (channels.some((c) => c.id === ch.id)) continue;
      channels.push({ teamId: t.id, teamName: t.displayName ?? t.id, id: ch.id, name: ch.displayName ?? ch.id, membershipType: ch.membershipType ?? 'standard' });
    }
  }
  const wanted = ctx.settings.channels;
  if (!wanted) return channels;
  const matches = (c: ChannelRef, w: string) => c.id === w || sameName(c.name, w);
  const missing = wanted.filter((w) => !channels.some((c) => matches(c, w)));
  if (missing.length > 0) {
    throw new SourceSettingsError(`Microsoft Teams has no channel ${missing.map((m) => `'${m}'`).join(', ')} in the selected teams (known: ${[...new Set(channels.map((c) => c.name))].join(', ') || 'none'})`);
  }
  return channels.filter((c) => wanted.some((w) => matches(c, w)));
}

async function storedIds(ctx: Ctx, prefixes: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const prefix of prefixes) out.push(...(await ctx.stored(prefix)).map((r) => r.external_id));
  return out;
}

/**
 * Thread roots (with `$expand=replies`) as documents, and what they say is gone: a root or reply with `deletedDateTime`
 * (or edited down to nothing) is deleted; an incremental sync also deletes stored replies of a changed thread that
 * Graph no longer lists. System events (members added, renames…) are skipped.
 */
async function mapThreads(ctx: Ctx, p: TeamsPage, c: ChannelRef, roots: readonly GraphMessage[]): Promise<{ documents: SourceDocument[]; deleted: string[] }> {
  const documents: SourceDocument[] = [];
  const deleted: string[] = [];
  for (const root of roots) {
    if (root.messageType !== undefined && root.messageType !== 'message') continue;
    if (isContentMessage(root)) documents.push(messageToDocument(c, root));
    else deleted.push(messageId(c.id, root.id));
    if (!ctx.settings.include_replies) continue;
    const replies = [...(root.replies ?? [])];
    // More than 1,000 replies: the rest through replies@odata.nextLink (GET …/messages/{id}/replies pages).
    let more = root['replies@odata.nextLink'];
    while (more) {
      const page: GraphPage<GraphMessage> = await graphGet<GraphPage<GraphMessage>>(ctx, more);
      replies.push(...page.value);
      more = page['@odata.nextLink'];
    }
    const live = new Set<string>();
    for (const r of replies) {
      if (r.messageType !== undefined && r.messageType !== 'message') continue;
      const id = replyId(c.id, root.id, r.id);
      if (isContentMessage(r)) {
        documents.push(messageToDocument(c, r, root.id));
        live.add(id);
      } else deleted.push(id);
    }
    // Stored replies Graph no longer lists are gone, judged only on a live root (a deleted root says nothing of them).
    if (p.mode === 'incremental' && isContentMessage(root)) deleted.push(...(await storedIds(ctx, [repliesPrefix(c.id, root.id)])).filter((id) => !live.has(id) && !deleted.includes(id)));
  }
  return { documents, deleted };
}

const messagesPath = (c: ChannelRef) => `/teams/${seg(c.teamId)}/channels/${seg(c.id)}/messages`;

async function readPage(ctx: Ctx, p: TeamsPage): Promise<Page<TeamsPage, TeamsCursor>> {
  if (p.phase === 'setup') {
    const channels = await resolveChannels(ctx);
    // Incremental: channels no longer synced (deleted, left, or dropped from the settings) take their documents along.
    const gone = p.mode === 'incremental' ? Object.keys(p.previous).filter((id) => !channels.some((c) => c.id === id)) : [];
    const deleted: string[] = [];
    for (const id of gone) deleted.push(...(await storedIds(ctx, channelPrefixes(id))));
    const next = enter({ ...p, channels }, ctx, 0);
    // The teams' and private channels' members, re-read on every sync.
    const members = await readChannelReaders(ctx, channels);
    return { documents: [], deleted, ...members, next, cursor: cursorOf({ ...p, channels }) };
  }
  const c = p.channels[p.index];
  if (!c) return { documents: [], next: null, cursor: cursorOf(p) };
  const expand = ctx.settings.include_replies ? 'replies' : undefined;
  let answer: GraphPage<GraphMessage>;
  let listedAt = p.listedAt;
  try {
    if (p.phase === 'list') {
      listedAt ??= ctx.now.toISOString();
      answer = await graphGet<GraphPage<GraphMessage>>(ctx, p.link ?? `${messagesPath(c)}${graphQuery({ $top: PAGE_SIZE, $expand: expand })}`);
    } else {
      const filter = p.deltaFrom ? `lastModifiedDateTime gt ${p.deltaFrom}` : undefined;
      answer = await graphGet<GraphPage<GraphMessage>>(ctx, p.link ?? `${messagesPath(c)}/delta${graphQuery({ $top: PAGE_SIZE, $expand: expand, $filter: filter })}`);
    }
  } catch (err) {
    if (p.phase === 'delta' && p.link !== null && isExpiredDelta(err)) {
      // Graph dropped the delta state: a new round by lastModifiedDateTime from when this channel was last synced.
      const since = p.deltaFrom ?? (p.previous[c.id] ? minus(p.previous[c.id]?.syncedAt ?? '', OVERLAP_MS) : null);
      ctx.log.info({ channel: c.id, since }, 'Graph delta link expired; starting a new round by lastModifiedDateTime');
      return { documents: [], next: { ...p, link: null, deltaFrom: since }, cursor: cursorOf(p) };
    }
    if (!isNotFound(err)) throw err;
    // The channel was deleted (or the team left) during the sync: its documents go, the other channels carry on.
    const deleted = p.mode === 'incremental' ? await storedIds(ctx, channelPrefixes(c.id)) : [];
    const { [c.id]: _dropped, ...previous } = p.previous;
    const after = { ...p, previous };
    return { documents: [], deleted, next: enter(after, ctx, p.index + 1), cursor: cursorOf(after) };
  }
  const { documents, deleted } = await mapThreads(ctx, p, c, answer.value);
  const nextLink = answer['@odata.nextLink'];
  let next: TeamsPage | null;
  let state = p.state;
  if (nextLink) next = { ...p, link: nextLink, listedAt };
  else if (p.phase === 'list') next = { ...p, phase: 'delta', link: null, deltaFrom: minus(listedAt ?? ctx.now.toISOString(), OVERLAP_MS), listedAt: null };
  else {
    const deltaLink = answer['@odata.deltaLink'] ?? null;
    state = { ...p.state, [c.id]: { deltaLink, syncedAt: ctx.now.toISOString() } };
    next = enter({ ...p, state }, ctx, p.index + 1);
  }
  return { documents, deleted, next, cursor: cursorOf({ ...p, state }) };
}

export const teamsSync: SyncCapability<TeamsCredentials, TeamsSettings, TeamsCursor, TeamsPage> = {
  cursorSchema: teamsCursor,
  pageSchema: teamsPage,
  start(mode: SyncMode, since: TeamsCursor | null): TeamsPage {
    return { mode, phase: 'setup', channels: [], index: 0, link: null, deltaFrom: null, listedAt: null, previous: since?.channels ?? {}, state: {} };
  },
  readPage,
};
