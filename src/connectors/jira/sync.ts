import { z } from 'zod';
import { type Page, type SourceDocument, SourceSettingsError, type SyncCapability, type SyncMode } from '../kit/index.ts';
import { discoverCloudId, getMyself, type JiraCtx, jiraJson, restBase, usesOAuth } from './client.ts';
import {
  commentExternalId,
  commentPage,
  commentPrefix,
  commentToDocument,
  ISSUE_FIELDS,
  issueToDocument,
  type JiraComment,
  type JiraIssue,
  jiraIssue,
  jiraProject,
  jiraTime,
  jqlDate,
  laterIso,
  projectToDocument,
} from './map.ts';
import type { JiraCredentials, JiraSettings } from './schemas.ts';

const ISSUE_PAGE = 50;
const PROJECT_PAGE = 50;
const COMMENT_PAGE = 100;
/** JQL dates have minute precision: an incremental search starts one minute before the cursor (re-reads cost nothing). */
const OVERLAP_MS = 60_000;

const projectRef = z.object({ id: z.string(), key: z.string() });

export const jiraPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'projects', 'issues']),
  /** When this sync started (the cursor never passes it: an edit made during the sync is read again next time). */
  startedAt: z.string().nullable(),
  /** The account's time zone, in which Jira reads JQL dates. */
  timeZone: z.string().nullable(),
  /** OAuth: the site's cloud id, resolved once per sync. */
  cloudId: z.string().nullable(),
  projectsStartAt: z.number().int(),
  /** The projects in scope (settings.projects or every browsable one), searched one by one in a full sync. */
  projects: z.array(projectRef),
  projectIndex: z.number().int(),
  nextPageToken: z.string().nullable(),
  /** Incremental: issues updated at or after this instant (ISO) are read; null = read everything. */
  since: z.string().nullable(),
  maxUpdated: z.string().nullable(),
});
export type JiraPage = z.infer<typeof jiraPage>;
export const jiraCursor = z.object({ since: z.string() });
export type JiraCursor = z.infer<typeof jiraCursor>;

function cursorOf(p: JiraPage): JiraCursor | null {
  // Nothing read: keep the previous cursor (our clock may run ahead of Jira's), or a full sync's start.
  const seen = p.maxUpdated ?? p.since ?? p.startedAt;
  if (!seen) return null;
  return { since: p.startedAt && Date.parse(seen) > Date.parse(p.startedAt) ? p.startedAt : seen };
}

/** A full sync (or an incremental one with no cursor yet) searches project by project: bounded JQL, one ACL group each. */
const perProject = (p: JiraPage) => p.mode === 'full' || !p.since;

const projectSearch = z.object({ values: z.array(jiraProject), isLast: z.boolean().optional(), total: z.number().optional(), startAt: z.number().optional() });
const searchAnswer = z.object({ issues: z.array(z.unknown()).default([]), nextPageToken: z.string().nullable().optional(), isLast: z.boolean().optional() });

/** The JQL of one search page: the scope, the cursor, the user's extra filter, and the order. */
export function searchJql(p: JiraPage, settings: JiraSettings): string {
  const clauses: string[] = [];
  if (perProject(p)) {
    const project = p.projects[p.projectIndex];
    if (project) clauses.push(`project = ${project.id}`);
  } else {
    clauses.push(`updated >= "${jqlDate(new Date(Date.parse(p.since ?? '') - OVERLAP_MS).toISOString(), p.timeZone ?? undefined)}"`);
    // Quoted: a project key may be a JQL reserved word.
    if (settings.projects) clauses.push(`project in (${settings.projects.map((k) => `"${k}"`).join(', ')})`);
  }
  if (settings.jql) clauses.push(`(${settings.jql})`);
  return `${clauses.join(' AND ')} ORDER BY ${perProject(p) ? 'created ASC' : 'updated ASC'}`;
}

async function base(ctx: JiraCtx, p: JiraPage): Promise<string> {
  return restBase(ctx, p.cloudId);
}

/** Every comment of an issue: those the search embedded, then the rest from the issue's comment list. */
export async function issueComments(ctx: JiraCtx, apiBase: string, issue: JiraIssue): Promise<JiraComment[]> {
  const embedded = issue.fields.comment;
  if (embedded && (embedded.total ?? embedded.comments.length) <= embedded.comments.length) return embedded.comments;
  const all: JiraComment[] = [];
  for (let startAt = 0; ; ) {
    const page = commentPage.parse(
      await jiraJson<unknown>(ctx, apiBase, `/rest/api/3/issue/${encodeURIComponent(issue.id)}/comment`, { query: { startAt, maxResults: COMMENT_PAGE, orderBy: 'created' } }),
    );
    all.push(...page.comments);
    startAt += page.comments.length;
    if (page.comments.length === 0 || startAt >= (page.total ?? 0)) return all;
  }
}

/** An issue's documents (itself and, with include_comments, its comments) and its comments that are gone. */
export async function issueDocuments(ctx: JiraCtx, apiBase: string, issue: JiraIssue, opts: { findDeletedComments: boolean }): Promise<{ documents: SourceDocument[]; deleted: string[] }> {
  const site = ctx.settings.site_url;
  const documents: SourceDocument[] = [issueToDocument(issue, site)];
  if (!ctx.settings.include_comments) return { documents, deleted: [] };
  const comments = await issueComments(ctx, apiBase, issue);
  documents.push(...comments.map((c) => commentToDocument(c, issue, site)));
  if (!opts.findDeletedComments) return { documents, deleted: [] };
  const live = new Set(comments.map((c) => commentExternalId(issue.id, c.id)));
  const stored = await ctx.stored(commentPrefix(issue.id));
  return { documents, deleted: stored.map((s) => s.external_id).filter((id) => !live.has(id)) };
}

async function readPage(ctx: JiraCtx, p: JiraPage): Promise<Page<JiraPage, JiraCursor>> {
  if (p.phase === 'setup') {
    const cloudId = usesOAuth(ctx.credentials) ? (ctx.settings.cloud_id ?? (await discoverCloudId(ctx))) : null;
    const me = await getMyself(ctx, await restBase(ctx, cloudId));
    const next: JiraPage = { ...p, phase: 'projects', cloudId, timeZone: me.timeZone ?? 'UTC', startedAt: ctx.now.toISOString() };
    return { documents: [], next, cursor: cursorOf(next) };
  }
  const apiBase = await base(ctx, p);
  if (p.phase === 'projects') {
    const r = projectSearch.parse(
      await jiraJson<unknown>(ctx, apiBase, '/rest/api/3/project/search', { query: { startAt: p.projectsStartAt, maxResults: PROJECT_PAGE, orderBy: 'key', expand: 'description,lead' } }),
    );
    const wanted = ctx.settings.projects;
    const inScope = r.values.filter((x) => !wanted || wanted.includes(x.key));
    const projects = [...p.projects, ...inScope.map((x) => ({ id: x.id, key: x.key }))];
    const documents = inScope.map((x) => projectToDocument(x, ctx.settings.site_url));
    const startAt = p.projectsStartAt + r.values.length;
    const last = r.isLast ?? (r.values.length === 0 || startAt >= (r.total ?? 0));
    if (!last) return { documents, next: { ...p, projects, projectsStartAt: startAt }, cursor: cursorOf(p) };
    const missing = (wanted ?? []).filter((k) => !projects.some((x) => x.key === k));
    if (missing.length > 0) throw new SourceSettingsError(`settings.projects names ${missing.join(', ')}, which this account cannot browse on ${ctx.settings.site_url}`);
    const next: JiraPage = { ...p, projects, phase: 'issues', projectIndex: 0, nextPageToken: null };
    // A full sync with no project in scope has nothing more to read.
    return { documents, next: perProject(next) && projects.length === 0 ? null : next, cursor: cursorOf(p) };
  }
  const body = {
    jql: searchJql(p, ctx.settings),
    maxResults: ISSUE_PAGE,
    fields: ctx.settings.include_comments ? [...ISSUE_FIELDS, 'comment'] : ISSUE_FIELDS,
    ...(p.nextPageToken ? { nextPageToken: p.nextPageToken } : {}),
  };
  const r = searchAnswer.parse(await jiraJson<unknown>(ctx, apiBase, '/rest/api/3/search/jql', { method: 'POST', json: body }));
  const documents: SourceDocument[] = [];
  const deleted: string[] = [];
  let maxUpdated = p.maxUpdated;
  for (const raw of r.issues) {
    const issue = jiraIssue.parse(raw);
    const out = await issueDocuments(ctx, apiBase, issue, { findDeletedComments: p.mode === 'incremental' });
    documents.push(...out.documents);
    deleted.push(...out.deleted);
    maxUpdated = laterIso(maxUpdated, jiraTime(issue.fields.updated));
  }
  const here = { ...p, maxUpdated };
  let next: JiraPage | null;
  // The last page has no nextPageToken (Jira omits the key rather than sending null).
  if (r.nextPageToken && r.isLast !== true) next = { ...here, nextPageToken: r.nextPageToken };
  else if (perProject(p) && p.projectIndex + 1 < p.projects.length) next = { ...here, projectIndex: p.projectIndex + 1, nextPageToken: null };
  else next = null;
  return { documents, deleted, next, cursor: cursorOf(here) };
}

export const jiraSync: SyncCapability<JiraCredentials, JiraSettings, JiraCursor, JiraPage> = {
  cursorSchema: jiraCursor,
  pageSchema: jiraPage,
  start(mode: SyncMode, since: JiraCursor | null): JiraPage {
    return {
      mode,
      phase: 'setup',
      startedAt: null,
      timeZone: null,
      cloudId: null,
      projectsStartAt: 0,
      projects: [],
      projectIndex: 0,
      nextPageToken: null,
      since: mode === 'incremental' ? (since?.since ?? null) : null,
      maxUpdated: null,
    };
  },
  readPage,
};
