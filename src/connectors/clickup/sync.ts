import { z } from 'zod';
import type { Page, SourceAcl, SourceDocument, SourceIdentities, SyncCapability, SyncMode } from '../kit/index.ts';
import { type ClickUpCtx, clickupJson, type ClickUpTeam, teamsAnswer } from './client.ts';
import {
  aclFor,
  type Comment,
  comment,
  commentToDocument,
  doc,
  docPage,
  docToDocument,
  externalIds,
  folder,
  folderToDocument,
  groupOf,
  list,
  type ListPlace,
  listToDocument,
  msIso,
  personRef,
  space,
  spaceToDocument,
  type Task,
  task,
  taskToDocument,
} from './map.ts';
import type { ClickUpCredentials, ClickUpSettings } from './schemas.ts';

/** `date_updated_gt` is compared with ClickUp's own clock: an incremental read starts this long before the cursor. */
const OVERLAP_MS = 60_000;
/** Get Task Comments answers at most 25 comments a call: a shorter page is the last. */
const COMMENTS_PAGE = 25;
/** Docs v3 pages up to 100 a call. */
const DOCS_LIMIT = 50;

const acl = z.object({ public: z.boolean().optional(), groups: z.array(z.string()).readonly().optional() });
const place = z.object({ listId: z.string(), path: z.string(), acl });

export const clickupPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'hierarchy', 'tasks', 'docs', 'deleted_docs']),
  startedAt: z.number().nullable(),
  teams: z.array(z.string()),
  teamIndex: z.number().int(),
  /** The current Workspace's lists (with their place and ACL), read by its hierarchy page. */
  lists: z.array(place),
  /** ACL of the Workspace's spaces, folders and lists (`space:<id>`, …), for Docs placed in them. */
  acls: z.record(z.string(), acl),
  listIndex: z.number().int(),
  taskPage: z.number().int(),
  docCursor: z.string().nullable(),
  since: z.number().nullable(),
  seen: z.number().nullable(),
});
export type ClickUpPage = z.infer<typeof clickupPage>;
export const clickupCursor = z.object({ since: z.number() });
export type ClickUpCursor = z.infer<typeof clickupCursor>;

/** The latest change read (else the previous cursor, else the sync's start), never past the sync's start. */
export function cursorOf(p: ClickUpPage): ClickUpCursor | null {
  if (p.startedAt === null) return null;
  const v = p.seen ?? p.since ?? p.startedAt;
  return { since: Math.min(v, p.startedAt) };
}

const later = (a: number | null, v: string | number | null | undefined): number | null => {
  const n = Number(v);
  if (v === null || v === undefined || !Number.isFinite(n) || n <= 0) return a;
  return a === null || n > a ? n : a;
};

function identitiesOf(teams: readonly ClickUpTeam[]): SourceIdentities {
  const accounts = new Map<string, { account_id: string; email: string | null; display_name: string | null }>();
  const groups = teams.map((t) => ({
    group_id: groupOf.team(t.id),
    members: t.members.map(({ user }) => {
      accounts.set(user.id, { account_id: `clickup:${user.id}`, email: user.email?.toLowerCase() ?? null, display_name: user.username ?? null });
      return personRef(user) ?? `clickup:${user.id}`;
    }),
  }));
  return { accounts: [...accounts.values()], groups };
}

function nextTeam(p: ClickUpPage): ClickUpPage | null {
  const i = p.teamIndex + 1;
  return i < p.teams.length ? { ...p, phase: 'hierarchy', teamIndex: i, lists: [], acls: {}, listIndex: 0, taskPage: 0, docCursor: null } : null;
}

function afterTasks(p: ClickUpPage, s: ClickUpSettings): ClickUpPage | null {
  return s.include_docs ? { ...p, phase: 'docs', docCursor: null } : nextTeam(p);
}

/** Stored ids under `prefix` of Workspace `teamId` that `seen` lacks: gone at the source. */
async function vanished(ctx: ClickUpCtx, prefix: string, teamId: string, seen: ReadonlySet<string>): Promise<string[]> {
  return (await ctx.stored(prefix)).filter((r) => r.metadata.team_id === teamId && !seen.has(r.external_id)).map((r) => r.external_id);
}

async function readHierarchy(ctx: ClickUpCtx, p: ClickUpPage, teamId: string): Promise<Page<ClickUpPage, ClickUpCursor>> {
  const filter = ctx.settings.space_ids;
  const spaces = z
    .object({ spaces: z.array(space) })
    .parse(await clickupJson<unknown>(ctx, `/api/v2/team/${teamId}/space`, { archived: false }))
    .spaces.filter((s) => !filter || filter.includes(s.id));
  const documents: SourceDocument[] = [];
  const lists: ListPlace[] = [];
  const acls: Record<string, SourceAcl> = {};
  const groups: { group_id: string; members: string[] }[] = [];
  for (const s of spaces) {
    const folders = z.object({ folders: z.array(folder) }).parse(await clickupJson<unknown>(ctx, `/api/v2/space/${s.id}/folder`, { archived: false })).folders;
    const loose = z.object({ lists: z.array(list) }).parse(await clickupJson<unknown>(ctx, `/api/v2/space/${s.id}/list`, { archived: false })).lists;
    documents.push(spaceToDocument(teamId, s, folders, loose));
    acls[`space:${s.id}`] = aclFor(teamId, s);
    // A private Space's answer lists who may see it: mirrored as its group.
    if (s.private && s.members) groups.push({ group_id: groupOf.space(s.id), members: s.members.map(({ user }) => personRef(user) ?? `clickup:${user.id}`) });
    for (const f of folders) {
      documents.push(folderToDocument(teamId, s, f));
      acls[`folder:${f.id}`] = aclFor(teamId, s);
    }
    const placed = [...folders.flatMap((f) => f.lists.map((l) => ({ f, l }))), ...loose.map((l) => ({ f: null, l }))];
    for (const { f, l } of placed) {
      documents.push(listToDocument(teamId, s, f, l));
      const a = aclFor(teamId, s, l);
      acls[`list:${l.id}`] = a;
      lists.push({ teamId, listId: l.id, path: [s.name, f?.name, l.name].filter(Boolean).join(' / '), acl: a });
    }
  }
  // The hierarchy is read whole every sync: an incremental sync reports the spaces, folders and lists gone since.
  let deleted: string[] = [];
  if (p.mode === 'incremental') {
    const seen = new Set(documents.map((d) => d.external_id));
    deleted = [...(await vanished(ctx, 'space:', teamId, seen)), ...(await vanished(ctx, 'folder:', teamId, seen)), ...(await vanished(ctx, 'list:', teamId, seen))];
  }
  const here: ClickUpPage = { ...p, lists: lists.map(({ listId, path, acl: a }) => ({ listId, path, acl: a })), acls, listIndex: 0, taskPage: 0 };
  const next = lists.length > 0 ? { ...here, phase: 'tasks' as const } : afterTasks(here, ctx.settings);
  return { documents, deleted, ...(groups.length ? { identities: { groups } } : {}), next, cursor: cursorOf(next ?? here) };
}

/** Every comment of a task: newest first, 25 a call, older pages by `start` (date) and `start_id` of the last one. */
async function readComments(ctx: ClickUpCtx, taskId: string): Promise<Comment[]> {
  const out: Comment[] = [];
  let start: { date: string; id: string } | null = null;
  for (;;) {
    const query: Record<string, string> | undefined = start ? { start: start.date, start_id: start.id } : undefined;
    const page: Comment[] = z.object({ comments: z.array(comment) }).parse(await clickupJson<unknown>(ctx, `/api/v2/task/${taskId}/comment`, query)).comments;
    const fresh = page.filter((c) => !out.some((o) => o.id === c.id));
    out.push(...fresh);
    const last: Comment | undefined = page.at(-1);
    if (page.length < COMMENTS_PAGE || fresh.length === 0 || !last || last.date === null || last.date === undefined) return out;
    start = { date: String(last.date), id: last.id };
  }
}

/** A task an incremental read's overlap brings back at the version already stored. */
async function unchanged(ctx: ClickUpCtx, p: ClickUpPage, t: Task): Promise<boolean> {
  if (p.mode !== 'incremental' || p.since === null || Number(t.date_updated) > p.since) return false;
  const ext = externalIds.task(t.id);
  return (await ctx.stored(ext)).find((s) => s.external_id === ext)?.metadata.modified === msIso(t.date_updated);
}

async function readTasks(ctx: ClickUpCtx, p: ClickUpPage, teamId: string): Promise<Page<ClickUpPage, ClickUpCursor>> {
  const l = p.lists[p.listIndex];
  if (!l) {
    const next = afterTasks(p, ctx.settings);
    return { documents: [], next, cursor: cursorOf(next ?? p) };
  }
  const since = p.mode === 'incremental' && p.since !== null ? p.since - OVERLAP_MS : undefined;
  const r = z
    .object({ tasks: z.array(task), last_page: z.boolean().optional() })
    .parse(
      await clickupJson<unknown>(ctx, `/api/v2/list/${l.listId}/task`, {
        page: p.taskPage,
        archived: false,
        include_closed: true,
        subtasks: true,
        order_by: 'updated',
        date_updated_gt: since,
      }),
    );
  const where: ListPlace = { teamId, listId: l.listId, path: l.path, acl: l.acl };
  const documents: SourceDocument[] = [];
  const deleted: string[] = [];
  let seen = p.seen;
  for (const t of r.tasks) {
    seen = later(seen, t.date_updated);
    if (await unchanged(ctx, p, t)) continue;
    documents.push(taskToDocument(t, where));
    if (!ctx.settings.include_comments) continue;
    const comments = await readComments(ctx, t.id);
    documents.push(...comments.filter((c) => c.comment_text.trim()).map((c) => commentToDocument(t, c, where)));
    if (p.mode === 'incremental') {
      const live = new Set(comments.map((c) => externalIds.comment(t.id, c.id)));
      deleted.push(...(await ctx.stored(`comment:${t.id}:`)).map((s) => s.external_id).filter((id) => !live.has(id)));
    }
  }
  const here: ClickUpPage = { ...p, seen };
  // An empty page also ends the list (an answer without `last_page`).
  const more = r.tasks.length > 0 && r.last_page === false;
  const next: ClickUpPage | null = more
    ? { ...here, taskPage: p.taskPage + 1 }
    : p.listIndex + 1 < p.lists.length
      ? { ...here, listIndex: p.listIndex + 1, taskPage: 0 }
      : afterTasks(here, ctx.settings);
  return { documents, deleted, next, cursor: cursorOf(next ?? here) };
}

const docsAnswer = z.object({ docs: z.array(doc), next_cursor: z.string().nullish() });

/** The ACL of a Doc from where it lives (a space, folder or list of the synced hierarchy), else null (not synced). */
function docAcl(p: ClickUpPage, teamId: string, parent: { id: string; type: number } | null | undefined, filtered: boolean): SourceAcl | null {
  const kind = parent?.type === 4 ? 'space' : parent?.type === 5 ? 'folder' : parent?.type === 6 ? 'list' : null;
  if (kind && parent) return p.acls[`${kind}:${parent.id}`] ?? (filtered ? null : { groups: [groupOf.team(teamId)] });
  // Workspace-level Docs (parent type 12, 7 Everything) belong to no Space: left out when only some Spaces are synced.
  return filtered ? null : { groups: [groupOf.team(teamId)] };
}

async function readDocs(ctx: ClickUpCtx, p: ClickUpPage, teamId: string): Promise<Page<ClickUpPage, ClickUpCursor>> {
  const deletedPhase = p.phase === 'deleted_docs';
  const r = docsAnswer.parse(
    await clickupJson<unknown>(ctx, `/api/v3/workspaces/${teamId}/docs`, { deleted: deletedPhase, archived: false, limit: DOCS_LIMIT, cursor: p.docCursor ?? undefined }),
  );
  const next_cursor = r.next_cursor || null;
  if (deletedPhase) {
    const deleted = r.docs.map((d) => externalIds.doc(d.id));
    const next = next_cursor ? { ...p, docCursor: next_cursor } : nextTeam(p);
    return { documents: [], deleted, next, cursor: cursorOf(next ?? p) };
  }
  const documents: SourceDocument[] = [];
  let seen = p.seen;
  for (const d of r.docs) {
    if (d.deleted) continue;
    const a = docAcl(p, teamId, d.parent, Boolean(ctx.settings.space_ids));
    if (!a) continue;
    const modified = d.date_updated ?? d.date_created;
    seen = later(seen, modified);
    if (p.mode === 'incremental' && p.since !== null && Number(modified) <= p.since) {
      const ext = externalIds.doc(d.id);
      const stored = (await ctx.stored(ext)).find((s) => s.external_id === ext);
      if (stored && stored.metadata.modified === msIso(modified)) {
        // Unchanged: keep it (a full sync would count it seen by upserting; incremental needs nothing).
        continue;
      }
    }
    const pages = z
      .array(docPage)
      .parse(await clickupJson<unknown>(ctx, `/api/v3/workspaces/${teamId}/docs/${d.id}/pages`, { max_page_depth: -1, content_format: 'text/md' }));
    documents.push(docToDocument(teamId, d, pages, a, d.creator !== null && d.creator !== undefined ? `clickup:${d.creator}` : undefined));
  }
  const here: ClickUpPage = { ...p, seen };
  const next: ClickUpPage | null = next_cursor ? { ...here, docCursor: next_cursor } : p.mode === 'incremental' ? { ...here, phase: 'deleted_docs', docCursor: null } : nextTeam(here);
  return { documents, next, cursor: cursorOf(next ?? here) };
}

async function readPage(ctx: ClickUpCtx, p: ClickUpPage): Promise<Page<ClickUpPage, ClickUpCursor>> {
  if (p.phase === 'setup') {
    const all = teamsAnswer.parse(await clickupJson<unknown>(ctx, '/api/v2/team')).teams;
    const teams = all.filter((t) => !ctx.settings.team_ids || ctx.settings.team_ids.includes(t.id));
    const started: ClickUpPage = { ...p, startedAt: ctx.now.getTime(), teams: teams.map((t) => t.id), teamIndex: -1 };
    const next = nextTeam(started);
    return { documents: [], identities: identitiesOf(teams), next, cursor: cursorOf(next ?? started) };
  }
  const teamId = p.teams[p.teamIndex];
  if (!teamId) return { documents: [], next: null, cursor: cursorOf(p) };
  if (p.phase === 'hierarchy') return readHierarchy(ctx, p, teamId);
  if (p.phase === 'tasks') return readTasks(ctx, p, teamId);
  return readDocs(ctx, p, teamId);
}

export const clickupSync: SyncCapability<ClickUpCredentials, ClickUpSettings, ClickUpCursor, ClickUpPage> = {
  cursorSchema: clickupCursor,
  pageSchema: clickupPage,
  start(mode: SyncMode, since: ClickUpCursor | null): ClickUpPage {
    return {
      mode,
      phase: 'setup',
      startedAt: null,
      teams: [],
      teamIndex: -1,
      lists: [],
      acls: {},
      listIndex: 0,
      taskPage: 0,
      docCursor: null,
      since: mode === 'incremental' ? (since?.since ?? null) : null,
      seen: null,
    };
  },
  readPage,
};
