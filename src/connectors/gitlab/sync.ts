import { z } from 'zod';
import type { Page, SourceContext, SourceDocument, SyncCapability, SyncMode } from '../kit/index.ts';
import { glGet, glGetOptional, glPage, listUrl, seg } from './client.ts';
import { diffWithStored, FILES_PER_PAGE, fetchFiles, type TreeEntry } from './files.ts';
import {
  type GlIssuable,
  type GlNote,
  type GlProject,
  type GlWikiPage,
  issueToDocument,
  mergeRequestToDocument,
  type ProjectRef,
  projectToDocument,
  wantedPath,
  wikiExternalId,
  wikiContentSha,
  wikiPageToDocument,
} from './map.ts';
import type { GitLabCredentials, GitLabSettings } from './schemas.ts';

type Ctx = SourceContext<GitLabCredentials, GitLabSettings>;

const PER_PAGE = 50;
/** Comments beyond this many pages of 100 are left out of an issue's text. */
const MAX_NOTE_PAGES = 5;
/**
 * The incremental cursor is the time the previous sync started, minus this margin: an item edited while a sync
 * ran is read again by the next one, and a GitLab clock a little ahead of ours loses nothing.
 */
const CLOCK_MARGIN_MS = 5 * 60_000;

const projectState = z.object({
  id: z.number().int(),
  path: z.string(),
  web_url: z.string(),
  visibility: z.enum(['public', 'internal', 'private']),
  default_branch: z.string().nullable(),
  issues: z.boolean(),
  merge_requests: z.boolean(),
  wiki: z.boolean(),
  /** Incremental only: the cursor does not know this project (new, newly visible or newly selected), so it is read in full. */
  fresh: z.boolean(),
});
type ProjectState = z.infer<typeof projectState>;
const source = z.object({ type: z.enum(['project', 'list']), value: z.string() });
const treeFile = z.object({ path: z.string(), id: z.string() });

export const gitlabPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['list', 'issues', 'merge_requests', 'files', 'wiki']),
  /** Where projects come from (phase list): single projects by path or id, and list endpoints (first-page URLs). */
  sources: z.array(source),
  /** The next page of the list being read (projects, issues, merge requests, tree); null = its first page. */
  url: z.string().nullable(),
  projects: z.array(projectState),
  index: z.number().int(),
  /** Files phase: the default branch's head commit once read, the wanted tree entries so far, then what is left to fetch. */
  head: z.string().nullable(),
  tree: z.array(treeFile),
  files: z.array(treeFile).nullable(),
  since: z.string().nullable(),
  startedAt: z.string().nullable(),
  /** Per project path: the default branch head whose files are stored (incremental syncs skip an unchanged branch). */
  heads: z.record(z.string(), z.string()),
  /** Project paths the cursor knows (incremental) and those this sync listed. */
  known: z.array(z.string()),
  seen: z.array(z.string()),
});
export type GitLabPage = z.infer<typeof gitlabPage>;
export const gitlabCursor = z.object({ since: z.string().nullable(), heads: z.record(z.string(), z.string()), projects: z.array(z.string()) });
export type GitLabCursor = z.infer<typeof gitlabCursor>;

function cursorOf(p: GitLabPage): GitLabCursor {
  const since = p.startedAt ? new Date(Date.parse(p.startedAt) - CLOCK_MARGIN_MS).toISOString() : p.since;
  return { since, heads: p.heads, projects: p.seen };
}

const ref = (p: ProjectState): ProjectRef => ({ id: p.id, path: p.path, web_url: p.web_url, visibility: p.visibility });
const reset = (): Pick<GitLabPage, 'url' | 'head' | 'tree' | 'files'> => ({ url: null, head: null, tree: [], files: null });

/** After one project's phase: issues → merge requests → files → wiki → the next project's issues. */
function nextPhase(p: GitLabPage): GitLabPage | null {
  const order = ['issues', 'merge_requests', 'files', 'wiki'] as const;
  const i = order.indexOf(p.phase as (typeof order)[number]);
  if (p.phase !== 'list' && i < order.length - 1) return { ...p, ...reset(), phase: order[i + 1] ?? 'wiki' };
  const index = p.phase === 'list' ? 0 : p.index + 1;
  if (index >= p.projects.length) return null;
  return { ...p, ...reset(), phase: 'issues', index };
}

function sourcesOf(s: GitLabSettings): GitLabPage['sources'] {
  const out: GitLabPage['sources'] = [];
  for (const p of s.projects ?? []) out.push({ type: 'project', value: p });
  for (const g of s.groups ?? []) out.push({ type: 'list', value: `groups/${seg(g)}/projects` });
  if (out.length === 0) out.push({ type: 'list', value: 'projects' });
  return out;
}

function toState(p: GlProject & { issues_enabled?: boolean; merge_requests_enabled?: boolean; wiki_enabled?: boolean }, page: GitLabPage): ProjectState {
  return {
    id: p.id,
    path: p.path_with_namespace,
    web_url: p.web_url,
    visibility: p.visibility ?? 'private',
    default_branch: p.empty_repo ? null : (p.default_branch ?? null),
    issues: p.issues_enabled !== false,
    merge_requests: p.merge_requests_enabled !== false,
    wiki: p.wiki_enabled !== false,
    fresh: page.mode === 'incremental' && !page.known.includes(p.path_with_namespace),
  };
}

type ListedProject = GlProject & { issues_enabled?: boolean; merge_requests_enabled?: boolean; wiki_enabled?: boolean };

/** Phase list: one source (a named project, or one page of a project list) per page; a project's document is emitted when listed. */
async function readList(ctx: Ctx, p: GitLabPage): Promise<Page<GitLabPage, GitLabCursor>> {
  const src = p.sources[0];
  const startedAt = p.startedAt ?? ctx.now.toISOString();
  let listed: ListedProject[] = [];
  let url: string | null = null;
  if (src?.type === 'project') {
    // A project named in the settings that the token cannot see fails the sync with that sentence.
    const one = await glGetOptional<ListedProject>(ctx, `projects/${seg(src.value)}`);
    if (!one) throw new Error(`GitLab has no project '${src.value}' readable with this token (settings.projects)`);
    listed = [one];
  } else if (src) {
    // GET /projects supports keyset pagination (`order_by=id` only; the next page is the `Link: rel="next"` URL),
    // which GitLab recommends for large listings; a group's projects are paged by offset (`X-Next-Page`).
    const all = src.value === 'projects';
    const first = listUrl(ctx, src.value, {
      per_page: 100,
      order_by: 'id',
      sort: 'asc',
      ...(all ? { membership: true, pagination: 'keyset' } : { include_subgroups: true }),
      ...(ctx.settings.include_archived ? {} : { archived: false }),
    });
    const r = await glPage<ListedProject>(ctx, p.url ?? first);
    if (!r) throw new Error('GitLab refused the project listing');
    listed = r.items;
    url = r.next;
  }
  const fresh = listed.filter((x) => !p.projects.some((y) => y.id === x.id));
  const projects = [...p.projects, ...fresh.map((x) => toState(x, p))];
  const seen = [...new Set([...p.seen, ...fresh.map((x) => x.path_with_namespace)])];
  const documents = fresh.map(projectToDocument);
  const base: GitLabPage = { ...p, projects, seen, startedAt };
  if (url) return { documents, next: { ...base, url }, cursor: cursorOf(base) };
  const sources = p.sources.slice(1);
  const next: GitLabPage = { ...base, sources, url: null };
  if (sources.length > 0) return { documents, next, cursor: cursorOf(next) };
  // Files of projects no longer listed are forgotten: should one come back, its branch is read again.
  const heads = Object.fromEntries(Object.entries(p.heads).filter(([path]) => seen.includes(path)));
  const done = { ...next, heads };
  return { documents, next: nextPhase(done), cursor: cursorOf(done) };
}

/** An issue's or merge request's notes, oldest first, at most MAX_NOTE_PAGES pages of 100. */
export async function notesOf(ctx: Ctx, project: Pick<ProjectState, 'id'>, kind: 'issues' | 'merge_requests', iid: number): Promise<GlNote[]> {
  const notes: GlNote[] = [];
  let url: string | null = listUrl(ctx, `projects/${project.id}/${kind}/${iid}/notes`, { sort: 'asc', order_by: 'created_at', per_page: 100 });
  for (let n = 0; url && n < MAX_NOTE_PAGES; n++) {
    const r: { items: GlNote[]; next: string | null } | null = await glPage<GlNote>(ctx, url, { optional: true });
    if (!r) break;
    notes.push(...r.items);
    url = r.next;
  }
  return notes;
}

/**
 * Issues or merge requests of one project, oldest first by creation (a stable order: an item edited during the
 * listing does not shift the offset pages), `updated_after` the cursor unless the project is new to it.
 */
async function readIssuables(ctx: Ctx, p: GitLabPage, project: ProjectState, kind: 'issues' | 'merge_requests'): Promise<Page<GitLabPage, GitLabCursor>> {
  const enabled = kind === 'issues' ? ctx.settings.include_issues && project.issues : ctx.settings.include_merge_requests && project.merge_requests;
  if (!enabled) return { documents: [], next: nextPhase(p), cursor: cursorOf(p) };
  const since = project.fresh ? null : p.since;
  const first = listUrl(ctx, `projects/${project.id}/${kind}`, { scope: 'all', state: 'all', order_by: 'created_at', sort: 'asc', per_page: PER_PAGE, updated_after: since });
  const r = await glPage<GlIssuable>(ctx, p.url ?? first, { optional: true });
  if (!r) return { documents: [], next: nextPhase(p), cursor: cursorOf(p) };
  const documents: SourceDocument[] = [];
  for (const item of r.items) {
    const notes = ctx.settings.include_notes ? await notesOf(ctx, project, kind, item.iid) : undefined;
    documents.push(kind === 'issues' ? issueToDocument(ref(project), item, notes) : mergeRequestToDocument(ref(project), item, notes));
  }
  const next = r.next ? { ...p, url: r.next } : nextPhase(p);
  return { documents, next, cursor: cursorOf(p) };
}

interface GlBranch {
  readonly commit: { readonly id: string };
}

/**
 * Files: the default branch's head (an incremental sync stops here when the cursor has the same head), the
 * recursive tree page by page, then the new or changed files (all of them in a full sync) 20 per page.
 */
async function readFiles(ctx: Ctx, p: GitLabPage, project: ProjectState): Promise<Page<GitLabPage, GitLabCursor>> {
  const branch = project.default_branch;
  if (!ctx.settings.include_files || !branch) {
    // Nothing to read (files off, empty repository): stored files of the project go at the next full sync.
    return { documents: [], next: nextPhase(p), cursor: cursorOf(p) };
  }
  if (p.files !== null) {
    const batch = p.files.slice(0, FILES_PER_PAGE);
    const rest = p.files.slice(FILES_PER_PAGE);
    // A file gone since the listing (a push meanwhile) is left to the next sync, which lists the tree again.
    const { documents, skipped } = await fetchFiles(ctx, ref(project), branch, batch);
    return { documents, skipped, next: rest.length > 0 ? { ...p, files: rest } : nextPhase(p), cursor: cursorOf(p) };
  }
  if (p.head === null) {
    const b = await glGetOptional<GlBranch>(ctx, `projects/${project.id}/repository/branches/${seg(branch)}`);
    if (!b) return { documents: [], next: nextPhase(p), cursor: cursorOf(p) };
    const head = b.commit.id;
    if (p.mode === 'incremental' && !project.fresh && p.heads[project.path] === head) return { documents: [], next: nextPhase(p), cursor: cursorOf(p) };
    const next = { ...p, head };
    return { documents: [], next, cursor: cursorOf(p) };
  }
  // The tree at the head commit read above, so every page lists the same tree even if the branch moves meanwhile.
  const first = listUrl(ctx, `projects/${project.id}/repository/tree`, { recursive: true, ref: p.head, per_page: 100 });
  const r = await glPage<TreeEntry>(ctx, p.url ?? first, { optional: true });
  const wanted = (r?.items ?? []).filter((e) => e.type === 'blob' && wantedPath(e.path, ctx.settings.file_extensions)).map((e) => ({ path: e.path, id: e.id }));
  const tree = [...p.tree, ...wanted];
  if (r?.next) return { documents: [], next: { ...p, url: r.next, tree }, cursor: cursorOf(p) };
  // A full sync reads every wanted file (the engine deletes what it did not see); an incremental one fetches only new
  // or changed blobs and deletes stored files the tree no longer has.
  const diff = p.mode === 'incremental' ? await diffWithStored(ctx, ref(project), branch, tree) : { fetch: tree, deleted: [] };
  const known = { ...p, heads: { ...p.heads, [project.path]: p.head }, tree: [], url: null };
  const next = diff.fetch.length > 0 ? { ...known, files: diff.fetch } : nextPhase(known);
  return { documents: [], deleted: diff.deleted, next, cursor: cursorOf(known) };
}

/** Wiki pages: one listing with content; an incremental sync upserts only pages whose content changed and deletes pages gone. */
async function readWiki(ctx: Ctx, p: GitLabPage, project: ProjectState): Promise<Page<GitLabPage, GitLabCursor>> {
  if (!ctx.settings.include_wiki || !project.wiki) return { documents: [], next: nextPhase(p), cursor: cursorOf(p) };
  const pages = (await glGetOptional<GlWikiPage[]>(ctx, `projects/${project.id}/wikis`, { with_content: 1 })) ?? [];
  const all = pages.map((w) => ({ w, sha: wikiContentSha(w) }));
  if (p.mode === 'full') return { documents: all.map(({ w, sha }) => wikiPageToDocument(ref(project), w, sha)), next: nextPhase(p), cursor: cursorOf(p) };
  const prefix = wikiExternalId(project.path, '');
  const stored = new Map((await ctx.stored(prefix)).map((d) => [d.external_id, d.metadata.content_sha]));
  const documents = all.filter(({ w, sha }) => stored.get(wikiExternalId(project.path, w.slug)) !== sha).map(({ w, sha }) => wikiPageToDocument(ref(project), w, sha));
  const listed = new Set(all.map(({ w }) => wikiExternalId(project.path, w.slug)));
  const deleted = [...stored.keys()].filter((id) => !listed.has(id));
  return { documents, deleted, next: nextPhase(p), cursor: cursorOf(p) };
}

async function readPage(ctx: Ctx, p: GitLabPage): Promise<Page<GitLabPage, GitLabCursor>> {
  if (p.phase === 'list') return readList(ctx, p);
  const project = p.projects[p.index];
  if (!project) return { documents: [], next: null, cursor: cursorOf(p) };
  if (p.phase === 'issues' || p.phase === 'merge_requests') return readIssuables(ctx, p, project, p.phase);
  if (p.phase === 'files') return readFiles(ctx, p, project);
  return readWiki(ctx, p, project);
}

/** Validation: the token's user (GET /user). */
export async function currentUser(ctx: Ctx): Promise<{ username: string; id: number }> {
  return glGet<{ username: string; id: number }>(ctx, 'user');
}

export const gitlabSync: SyncCapability<GitLabCredentials, GitLabSettings, GitLabCursor, GitLabPage> = {
  cursorSchema: gitlabCursor,
  pageSchema: gitlabPage,
  start(mode: SyncMode, since: GitLabCursor | null, settings: GitLabSettings): GitLabPage {
    const incremental = mode === 'incremental' && since !== null;
    return {
      mode,
      phase: 'list',
      sources: sourcesOf(settings),
      url: null,
      projects: [],
      index: 0,
      head: null,
      tree: [],
      files: null,
      since: incremental ? since.since : null,
      startedAt: null,
      heads: incremental ? since.heads : {},
      known: incremental ? since.projects : [],
      seen: [],
    };
  },
  readPage,
};
