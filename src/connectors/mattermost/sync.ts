import { z } from 'zod';
import type { Page, SourceIdentities, SyncCapability, SyncMode } from '../kit/index.ts';
import { allPages, type MattermostCtx, mattermostGet } from './client.ts';
import {
  type ChannelRef,
  changedAt,
  channelGroup,
  displayName,
  isContentPost,
  mattermostAccount,
  mattermostChannel,
  mattermostUser,
  postExternalId,
  postList,
  postToDocument,
} from './map.ts';
import type { MattermostCredentials, MattermostSettings } from './schemas.ts';

/** Posts a page (Mattermost allows up to 200). */
const PER_PAGE = 200;
/** `since` answers at most 1000 posts (the newest-created of those changed): a channel reaching it is re-read by pages. */
const SINCE_LIMIT = 1000;

const channelRef = z.object({ id: z.string(), name: z.string(), display: z.string(), team: z.string(), private: z.boolean() });
export const mattermostPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'team', 'posts']),
  teams: z.array(z.object({ id: z.string(), name: z.string() })),
  teamIndex: z.number().int(),
  users: z.record(z.string(), z.string()),
  channels: z.array(channelRef),
  index: z.number().int(),
  /** The posts page of the current channel when it is read by pages (full, new channel, or `since` overflow). */
  page: z.number().int().nullable(),
  /** Latest change time (ms) seen per channel: the next cursor. */
  last: z.record(z.string(), z.number()),
  since: z.record(z.string(), z.number()),
});
export type MattermostPage = z.infer<typeof mattermostPage>;

export const mattermostCursor = z.object({ channels: z.record(z.string(), z.number()) });
export type MattermostCursor = z.infer<typeof mattermostCursor>;

type Result = Page<MattermostPage, MattermostCursor>;
const cursorOf = (p: MattermostPage): MattermostCursor => ({ channels: p.last });
const team = z.object({ id: z.string(), name: z.string(), display_name: z.string().optional() });
const member = z.object({ user_id: z.string(), channel_id: z.string() });

async function setupPage(ctx: MattermostCtx, p: MattermostPage): Promise<Result> {
  const people = await allPages(ctx, '/users', mattermostUser);
  const users = Object.fromEntries(people.map((u) => [u.id, displayName(u)]));
  const accounts: NonNullable<SourceIdentities['accounts']>[number][] = people
    .filter((u) => !u.delete_at && !u.is_bot)
    .map((u) => ({ account_id: mattermostAccount(u.id), email: u.email ? u.email.toLowerCase() : null, display_name: displayName(u) }));
  const wanted = ctx.settings.teams;
  const teams = z
    .array(team)
    .parse(await mattermostGet<unknown>(ctx, '/users/me/teams'))
    .filter((t) => !wanted || wanted.includes(t.name) || wanted.includes(t.id))
    .map((t) => ({ id: t.id, name: t.name }));
  const next: MattermostPage | null = teams.length > 0 ? { ...p, phase: 'team', teams, teamIndex: 0, users } : null;
  return { documents: [], identities: { accounts }, next, cursor: cursorOf(p) };
}

/** One team's channels: public ones from the team listing, private ones the account is a member of (`sync_private`). */
async function teamPage(ctx: MattermostCtx, p: MattermostPage): Promise<Result> {
  const t = p.teams[p.teamIndex];
  if (!t) return { documents: [], next: null, cursor: cursorOf(p) };
  const wanted = ctx.settings.channels;
  const pick = (c: z.infer<typeof mattermostChannel>) => !c.delete_at && (!wanted || wanted.includes(c.name) || wanted.includes(c.display_name) || wanted.includes(c.id));
  const open = (await allPages(ctx, `/teams/${t.id}/channels`, mattermostChannel)).filter((c) => c.type === 'O' && pick(c));
  const found: ChannelRef[] = open.map((c) => ({ id: c.id, name: c.name, display: c.display_name, team: t.name, private: false }));
  const groups: { group_id: string; members: string[] }[] = [];
  if (ctx.settings.sync_private) {
    const mine = z.array(mattermostChannel).parse(await mattermostGet<unknown>(ctx, `/users/me/teams/${t.id}/channels`));
    for (const c of mine.filter((x) => x.type === 'P' && pick(x))) {
      found.push({ id: c.id, name: c.name, display: c.display_name, team: t.name, private: true });
      // Every sync re-reads the members: someone removed from the channel loses its posts after the next sync.
      const members = await allPages(ctx, `/channels/${c.id}/members`, member);
      groups.push({ group_id: channelGroup(c.id), members: members.map((m) => mattermostAccount(m.user_id)) });
    }
  }
  const here = { ...p, channels: [...p.channels, ...found] };
  const next: MattermostPage | null =
    p.teamIndex + 1 < p.teams.length ? { ...here, teamIndex: p.teamIndex + 1 } : here.channels.length > 0 ? startChannel({ ...here, phase: 'posts', index: 0 }) : null;
  return { documents: [], identities: { groups }, next, cursor: cursorOf(here) };
}

/** A channel seen before is asked for what changed `since` its stored time; otherwise it is read by pages. */
function startChannel(p: MattermostPage): MattermostPage {
  const c = p.channels[p.index];
  const since = c && p.mode === 'incremental' ? p.since[c.id] : undefined;
  return { ...p, page: since === undefined ? 0 : null };
}

function nextChannel(p: MattermostPage): MattermostPage | null {
  return p.index + 1 < p.channels.length ? startChannel({ ...p, index: p.index + 1 }) : null;
}

async function postsPage(ctx: MattermostCtx, p: MattermostPage): Promise<Result> {
  const c = p.channels[p.index];
  if (!c) return { documents: [], next: null, cursor: cursorOf(p) };
  const since = p.page === null ? p.since[c.id] : undefined;
  const query = since !== undefined ? { since } : { page: p.page ?? 0, per_page: PER_PAGE };
  const r = postList.parse(await mattermostGet<unknown>(ctx, `/channels/${c.id}/posts`, query));
  // `posts` may also hold the roots of threads the page's replies belong to: only `order` is this page.
  const posts = r.order.map((id) => r.posts[id]).filter((x) => x !== undefined);
  const documents = posts.filter(isContentPost).map((post) => postToDocument(ctx.settings.site_url, c, post, p.users));
  // `since` returns deleted posts too (delete_at set, message emptied): those leave the index.
  const deleted = since !== undefined ? posts.filter((post) => post.delete_at > 0).map((post) => postExternalId(c.id, post.id)) : [];
  const latest = Math.max(p.last[c.id] ?? 0, ...posts.map(changedAt));
  const here = { ...p, last: latest > 0 ? { ...p.last, [c.id]: latest } : p.last };
  let next: MattermostPage | null;
  if (since !== undefined) next = r.order.length >= SINCE_LIMIT ? { ...here, page: 0 } : nextChannel(here);
  else next = r.order.length === PER_PAGE ? { ...here, page: (p.page ?? 0) + 1 } : nextChannel(here);
  return { documents, deleted, next, cursor: cursorOf(here) };
}

export const mattermostSync: SyncCapability<MattermostCredentials, MattermostSettings, MattermostCursor, MattermostPage> = {
  cursorSchema: mattermostCursor,
  pageSchema: mattermostPage,
  start(mode: SyncMode, since: MattermostCursor | null): MattermostPage {
    const resume = mode === 'incremental' ? (since?.channels ?? {}) : {};
    return { mode, phase: 'setup', teams: [], teamIndex: 0, users: {}, channels: [], index: 0, page: null, last: { ...resume }, since: { ...resume } };
  },
  async readPage(ctx, page) {
    if (page.phase === 'setup') return setupPage(ctx, page);
    if (page.phase === 'team') return teamPage(ctx, page);
    return postsPage(ctx, page);
  },
};
