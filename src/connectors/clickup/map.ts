import { z } from 'zod';
import type { SourceAcl, SourceDocument } from '../kit/index.ts';
import { clickupUser, type ClickUpUser } from './client.ts';

/** ClickUp API answers (v2 hierarchy, tasks, comments; v3 docs and pages) and their pure mapping to documents. */
const idStr = z.union([z.number(), z.string()]).transform(String);
const msTime = z.union([z.number(), z.string()]).nullish();

export const space = z.object({ id: idStr, name: z.string(), private: z.boolean().nullish(), archived: z.boolean().nullish(), members: z.array(z.object({ user: clickupUser })).nullish() });
export type Space = z.infer<typeof space>;
export const list = z.object({
  id: idStr,
  name: z.string(),
  content: z.string().nullish(),
  /** Not in ClickUp's reference schema for lists; honoured when an answer carries it. */
  private: z.boolean().nullish(),
  archived: z.boolean().nullish(),
  status: z.object({ status: z.string().nullish() }).nullish(),
  due_date: msTime,
});
export type List = z.infer<typeof list>;
export const folder = z.object({ id: idStr, name: z.string(), hidden: z.boolean().nullish(), archived: z.boolean().nullish(), lists: z.array(list).default([]) });
export type Folder = z.infer<typeof folder>;

export const task = z.object({
  id: z.string(),
  custom_id: z.string().nullish(),
  name: z.string(),
  text_content: z.string().nullish(),
  description: z.string().nullish(),
  status: z.object({ status: z.string(), type: z.string().nullish() }).nullish(),
  date_created: msTime,
  date_updated: msTime,
  date_closed: msTime,
  archived: z.boolean().nullish(),
  creator: clickupUser.nullish(),
  assignees: z.array(clickupUser).default([]),
  tags: z.array(z.object({ name: z.string() })).default([]),
  parent: z.string().nullish(),
  priority: z.object({ priority: z.string() }).nullish(),
  due_date: msTime,
  url: z.string().nullish(),
  checklists: z
    .array(z.object({ name: z.string(), items: z.array(z.object({ name: z.string(), resolved: z.boolean().nullish() })).default([]) }))
    .default([]),
  list: z.object({ id: idStr }).nullish(),
});
export type Task = z.infer<typeof task>;

export const comment = z.object({ id: idStr, comment_text: z.string().default(''), user: clickupUser.nullish(), date: msTime, resolved: z.boolean().nullish() });
export type Comment = z.infer<typeof comment>;

export const doc = z.object({
  id: z.string(),
  name: z.string(),
  date_created: msTime,
  date_updated: msTime,
  parent: z.object({ id: idStr, type: z.number() }).nullish(),
  public: z.boolean().nullish(),
  creator: z.union([z.number(), z.string()]).nullish(),
  deleted: z.boolean().nullish(),
});
export type Doc = z.infer<typeof doc>;
export interface DocPage {
  readonly id: string;
  readonly name?: string | null | undefined;
  readonly content?: string | null | undefined;
  readonly pages?: readonly DocPage[] | null | undefined;
}
export const docPage: z.ZodType<DocPage> = z.lazy(() =>
  z.object({ id: z.string(), name: z.string().nullish(), content: z.string().nullish(), pages: z.array(docPage).nullish() }),
);

/** ClickUp times are Unix milliseconds (as strings in v2, numbers in v3). */
export function msIso(v: string | number | null | undefined): string | undefined {
  if (v === null || v === undefined || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n > 0 ? new Date(n).toISOString() : undefined;
}
const day = (v: string | number | null | undefined) => msIso(v)?.slice(0, 10);

export const groupOf = {
  team: (id: string) => `clickup:team:${id}`,
  space: (id: string) => `clickup:space:${id}`,
  list: (id: string) => `clickup:list:${id}`,
};

/** A private list → its own group; else a private space → the space's group; else everyone in the Workspace. */
export function aclFor(teamId: string, s: Pick<Space, 'id' | 'private'>, l?: Pick<List, 'id' | 'private'>): SourceAcl {
  if (l?.private) return { groups: [groupOf.list(l.id)] };
  if (s.private) return { groups: [groupOf.space(s.id)] };
  return { groups: [groupOf.team(teamId)] };
}

/** A user as the shared ACL shape names people: the lower-cased email, else `clickup:<user id>`. */
export const personRef = (u: ClickUpUser | null | undefined) => (u ? (u.email ? u.email.toLowerCase() : `clickup:${u.id}`) : undefined);
const personName = (u: ClickUpUser) => u.username || u.email || `user ${u.id}`;

const app = 'https://app.clickup.com';
export const urls = {
  space: (team: string, id: string) => `${app}/${team}/v/s/${id}`,
  folder: (team: string, id: string) => `${app}/${team}/v/f/${id}`,
  list: (team: string, id: string) => `${app}/${team}/v/li/${id}`,
  task: (id: string) => `${app}/t/${id}`,
  doc: (team: string, id: string) => `${app}/${team}/v/dc/${id}`,
};

export const externalIds = {
  space: (id: string) => `space:${id}`,
  folder: (id: string) => `folder:${id}`,
  list: (id: string) => `list:${id}`,
  task: (id: string) => `task:${id}`,
  comment: (taskId: string, id: string) => `comment:${taskId}:${id}`,
  doc: (id: string) => `doc:${id}`,
};

const lines = (pairs: [string, string | null | undefined][]) => pairs.filter(([, v]) => v).map(([k, v]) => `${k}: ${v}`);
const join = (...blocks: string[]) => blocks.map((b) => b.trim()).filter(Boolean).join('\n\n');

export function spaceToDocument(teamId: string, s: Space, folders: readonly Folder[], lists: readonly List[]): SourceDocument {
  const content = join(
    `Space: ${s.name}${s.private ? ' (private)' : ''}`,
    lines([
      ['Folders', folders.map((f) => f.name).join(', ')],
      ['Lists', lists.map((l) => l.name).join(', ')],
    ]).join('\n'),
  );
  return { external_id: externalIds.space(s.id), title: s.name, content, url: urls.space(teamId, s.id), document_type: 'space', acl: aclFor(teamId, s), metadata: { team_id: teamId, space_id: s.id, private: Boolean(s.private) } };
}

export function folderToDocument(teamId: string, s: Space, f: Folder): SourceDocument {
  const content = join(`Folder: ${f.name}`, lines([['Space', s.name], ['Lists', f.lists.map((l) => l.name).join(', ')]]).join('\n'));
  return { external_id: externalIds.folder(f.id), title: f.name, content, url: urls.folder(teamId, f.id), document_type: 'folder', acl: aclFor(teamId, s), metadata: { team_id: teamId, space_id: s.id, folder_id: f.id } };
}

export function listToDocument(teamId: string, s: Space, f: Folder | null, l: List): SourceDocument {
  const content = join(
    l.content ?? '',
    lines([
      ['List', l.name],
      ['Location', [s.name, f?.name].filter(Boolean).join(' / ')],
      ['Status', l.status?.status],
      ['Due', day(l.due_date)],
    ]).join('\n'),
  );
  return {
    external_id: externalIds.list(l.id),
    title: l.name,
    content,
    url: urls.list(teamId, l.id),
    document_type: 'list',
    acl: aclFor(teamId, s, l),
    metadata: { team_id: teamId, space_id: s.id, folder_id: f?.id ?? null, list_id: l.id },
  };
}

/** Where a task lives, for its text and ACL. */
export interface ListPlace {
  readonly teamId: string;
  readonly listId: string;
  readonly path: string;
  readonly acl: SourceAcl;
}

export function taskToDocument(t: Task, place: ListPlace): SourceDocument {
  const body = (t.text_content ?? '').trim() || (t.description ?? '').trim();
  const checklists = t.checklists.map((c) => [`Checklist ${c.name}:`, ...c.items.map((i) => `- [${i.resolved ? 'x' : ' '}] ${i.name}`)].join('\n'));
  const content = join(
    body,
    lines([
      ['Status', t.status?.status],
      ['Priority', t.priority?.priority],
      ['Assignees', t.assignees.map(personName).join(', ')],
      ['Tags', t.tags.map((x) => x.name).join(', ')],
      ['Due', day(t.due_date)],
      ['List', place.path],
      ['Parent task', t.parent],
    ]).join('\n'),
    checklists.join('\n\n'),
  );
  return {
    external_id: externalIds.task(t.id),
    title: t.custom_id ? `${t.custom_id}: ${t.name}` : t.name,
    content,
    url: t.url || urls.task(t.id),
    ...(personRef(t.creator) ? { author: personRef(t.creator) } : {}),
    document_type: 'task',
    ...(msIso(t.date_created) ? { created_at: msIso(t.date_created) } : {}),
    ...(msIso(t.date_updated) ? { updated_at: msIso(t.date_updated) } : {}),
    acl: place.acl,
    metadata: {
      team_id: place.teamId,
      list_id: place.listId,
      task_id: t.id,
      custom_id: t.custom_id ?? null,
      status: t.status?.status ?? null,
      status_type: t.status?.type ?? null,
      priority: t.priority?.priority ?? null,
      parent: t.parent ?? null,
      assignees: t.assignees.map((a) => personRef(a)),
      tags: t.tags.map((x) => x.name),
      modified: msIso(t.date_updated) ?? null,
    },
  };
}

export function commentToDocument(t: Task, c: Comment, place: ListPlace): SourceDocument {
  return {
    external_id: externalIds.comment(t.id, c.id),
    title: `Comment on ${t.name}`,
    content: c.comment_text.trim(),
    url: `${t.url || urls.task(t.id)}?comment=${c.id}`,
    ...(personRef(c.user) ? { author: personRef(c.user) } : {}),
    document_type: 'comment',
    ...(msIso(c.date) ? { created_at: msIso(c.date), updated_at: msIso(c.date) } : {}),
    acl: place.acl,
    metadata: { team_id: place.teamId, list_id: place.listId, task_id: t.id, comment_id: c.id, resolved: Boolean(c.resolved) },
  };
}

/** A Doc's pages (nested sub-pages in order) as Markdown, each under its page name. */
export function pagesText(pages: readonly DocPage[], depth = 0): string {
  return pages
    .map((p) => join(p.name ? `${'#'.repeat(Math.min(6, depth + 1))} ${p.name}` : '', p.content ?? '', pagesText(p.pages ?? [], depth + 1)))
    .filter(Boolean)
    .join('\n\n');
}

export function docToDocument(teamId: string, d: Doc, pages: readonly DocPage[], acl: SourceAcl, creator: string | undefined): SourceDocument {
  return {
    external_id: externalIds.doc(d.id),
    title: d.name,
    content: pagesText(pages),
    url: urls.doc(teamId, d.id),
    ...(creator ? { author: creator } : {}),
    document_type: 'doc',
    ...(msIso(d.date_created) ? { created_at: msIso(d.date_created) } : {}),
    ...(msIso(d.date_updated ?? d.date_created) ? { updated_at: msIso(d.date_updated ?? d.date_created) } : {}),
    // A Doc shared publicly (on the web) is readable by anyone.
    acl: d.public ? { public: true } : acl,
    metadata: { team_id: teamId, doc_id: d.id, parent_id: d.parent?.id ?? null, parent_type: d.parent?.type ?? null, modified: msIso(d.date_updated ?? d.date_created) ?? null },
  };
}
