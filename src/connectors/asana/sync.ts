import { z } from 'zod';
import type { Page, SourceAcl, SourceDocument, SyncCapability, SyncMode } from '../kit/index.ts';
import { type AsanaCtx, asanaAll, asanaPage } from './client.ts';
import { asanaProject, asanaStory, type AsanaStory, asanaTask, mergeAcls, PROJECT_FIELDS, projectAcl, projectToDocument, STORY_FIELDS, TASK_FIELDS, taskToDocument } from './map.ts';
import type { AsanaCredentials, AsanaSettings } from './schemas.ts';

/** Tasks per page: each costs a stories request, so one engine page (one checkpoint) stays near fifty requests. */
const TASK_PAGE = 50;
/**
 * The next incremental sync asks `modified_since` a minute before the newest `modified_at` it saw: Asana's clock
 * decides what changed (not ours), and the overlap covers a task saved while another project was being read.
 */
const OVERLAP_MS = 60_000;

const aclSchema = z.object({ public: z.boolean().optional(), groups: z.array(z.string()).optional() });

export const asanaPageSchema = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['projects', 'tasks']),
  /** The stored cursor's `modified_since` (incremental), else null. */
  since: z.string().nullable(),
  /** The newest `modified_at` read so far in this sync. */
  high: z.string().nullable(),
  /** Every synced project, in order, with the ACL its tasks inherit. */
  projects: z.array(z.object({ gid: z.string(), acl: aclSchema })),
  index: z.number().int().min(0),
  /** `next_page.offset` of the current project's task list; null = its first page. */
  offset: z.string().nullable(),
});
export type AsanaPage = z.infer<typeof asanaPageSchema>;

export const asanaCursor = z.object({ modified_since: z.string().nullable() });
export type AsanaCursor = z.infer<typeof asanaCursor>;

const later = (a: string | null, b: string | null): string | null => (!a ? b : !b ? a : Date.parse(a) >= Date.parse(b) ? a : b);

export function cursorOf(p: Pick<AsanaPage, 'since' | 'high'>): AsanaCursor {
  const back = p.high ? new Date(Date.parse(p.high) - OVERLAP_MS).toISOString() : null;
  return { modified_since: later(p.since, back) };
}

const changedSince = (modified: string | null | undefined, since: string | null): boolean => !since || !modified || Date.parse(modified) >= Date.parse(since);

/** Workspaces, then their projects (one page: both lists are short); project documents; the task phase's queue. */
async function projectPage(ctx: AsanaCtx, p: AsanaPage): Promise<Page<AsanaPage, AsanaCursor>> {
  const wanted = ctx.settings.workspaces;
  const workspaces = z.array(z.object({ gid: z.string() })).parse(await asanaAll(ctx, '/workspaces', {})).filter((w) => !wanted || wanted.includes(w.gid));
  const only = ctx.settings.projects;
  const documents: SourceDocument[] = [];
  const projects: AsanaPage['projects'] = [];
  let high = p.high;
  for (const w of workspaces) {
    const raw = await asanaAll(ctx, '/projects', { workspace: w.gid, archived: ctx.settings.include_archived_projects ? undefined : 'false', opt_fields: PROJECT_FIELDS });
    for (const item of raw) {
      const project = asanaProject.parse(item);
      if (only && !only.includes(project.gid)) continue;
      projects.push({ gid: project.gid, acl: projectAcl(project) as z.infer<typeof aclSchema> });
      if (changedSince(project.modified_at, p.since)) documents.push(projectToDocument(project));
      high = later(high, project.modified_at ?? null);
    }
  }
  const here: AsanaPage = { ...p, high, projects };
  return { documents, next: projects.length ? { ...here, phase: 'tasks', index: 0, offset: null } : null, cursor: cursorOf(here) };
}

async function storiesOf(ctx: AsanaCtx, taskGid: string): Promise<AsanaStory[]> {
  if (!ctx.settings.include_comments) return [];
  return (await asanaAll(ctx, `/tasks/${taskGid}/stories`, { opt_fields: STORY_FIELDS })).map((s) => asanaStory.parse(s));
}

/** One page of one project's tasks (`modified_since` on incremental syncs), each with its comments. */
async function taskPage(ctx: AsanaCtx, p: AsanaPage): Promise<Page<AsanaPage, AsanaCursor>> {
  const current = p.projects[p.index];
  if (!current) return { documents: [], next: null, cursor: cursorOf(p) };
  const aclOf = new Map(p.projects.map((x) => [x.gid, x.acl as SourceAcl]));
  const r = await asanaPage(ctx, '/tasks', { project: current.gid, opt_fields: TASK_FIELDS, limit: TASK_PAGE, offset: p.offset, modified_since: p.since });
  const documents: SourceDocument[] = [];
  let high = p.high;
  for (const raw of r.data) {
    const t = asanaTask.parse(raw);
    high = later(high, t.modified_at ?? null);
    const synced = (t.memberships ?? []).map((m) => m.project?.gid).filter((g): g is string => Boolean(g && aclOf.has(g)));
    // A task in several synced projects is read once: with the first of them in the queue's order.
    const owner = p.projects.find((x) => synced.includes(x.gid))?.gid ?? current.gid;
    if (owner !== current.gid) continue;
    const acl = mergeAcls((synced.length ? synced : [current.gid]).map((g) => aclOf.get(g) ?? {}));
    documents.push(taskToDocument(t, await storiesOf(ctx, t.gid), acl));
  }
  const here: AsanaPage = { ...p, high };
  let next: AsanaPage | null = null;
  if (r.offset) next = { ...here, offset: r.offset };
  else if (p.index + 1 < p.projects.length) next = { ...here, index: p.index + 1, offset: null };
  return { documents, next, cursor: cursorOf(here) };
}

/**
 * Incremental by `modified_since` on each project's task list (Asana's documented filter) and by `modified_at` on the
 * project list. Deleted tasks and projects are in no listing: the full sync's sweep removes them.
 */
export const asanaSync: SyncCapability<AsanaCredentials, AsanaSettings, AsanaCursor, AsanaPage> = {
  cursorSchema: asanaCursor,
  pageSchema: asanaPageSchema,
  start(mode: SyncMode, since: AsanaCursor | null): AsanaPage {
    const from = mode === 'incremental' ? (since?.modified_since ?? null) : null;
    return { mode, phase: 'projects', since: from, high: null, projects: [], index: 0, offset: null };
  },
  readPage(ctx, page) {
    return page.phase === 'projects' ? projectPage(ctx, page) : taskPage(ctx, page);
  },
};
