import { createHash } from 'node:crypto';
import type { SourceAcl, SourceDocument } from '../kit/index.ts';

/** Pure mappings from GitLab REST v4 objects (the fields the connector reads) to documents. */
export interface GlUser {
  readonly id: number;
  readonly username: string;
  readonly name?: string | null;
  readonly public_email?: string | null;
}
export type Visibility = 'public' | 'internal' | 'private';
export interface GlProject {
  readonly id: number;
  readonly path_with_namespace: string;
  readonly name_with_namespace?: string | null;
  readonly description?: string | null;
  readonly web_url: string;
  readonly default_branch?: string | null;
  readonly visibility?: Visibility | null;
  readonly archived?: boolean;
  readonly topics?: readonly string[] | null;
  readonly created_at?: string | null;
  readonly last_activity_at?: string | null;
  readonly updated_at?: string | null;
  readonly empty_repo?: boolean | null;
  readonly owner?: GlUser | null;
  readonly namespace?: { readonly full_path?: string | null } | null;
}
/** An issue or a merge request (the fields both have, plus a few of each). */
export interface GlIssuable {
  readonly id: number;
  readonly iid: number;
  readonly project_id: number;
  readonly title: string;
  readonly description?: string | null;
  readonly state: string;
  readonly labels?: readonly string[] | null;
  readonly web_url: string;
  readonly author?: GlUser | null;
  readonly assignees?: readonly GlUser[] | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly closed_at?: string | null;
  readonly confidential?: boolean | null;
  readonly milestone?: { readonly title?: string | null } | null;
  readonly merged_at?: string | null;
  readonly source_branch?: string | null;
  readonly target_branch?: string | null;
  readonly draft?: boolean | null;
}
export interface GlNote {
  readonly id: number;
  readonly body: string;
  readonly author?: GlUser | null;
  readonly created_at: string;
  readonly system?: boolean;
}
export interface GlWikiPage {
  readonly slug: string;
  readonly title: string;
  readonly content?: string | null;
  readonly format?: string | null;
}

/** What a document needs to know about its project. */
export interface ProjectRef {
  readonly id: number;
  readonly path: string;
  readonly web_url: string;
  readonly visibility: Visibility;
}

export const projectRef = (p: GlProject): ProjectRef => ({ id: p.id, path: p.path_with_namespace, web_url: p.web_url, visibility: p.visibility ?? 'private' });

/**
 * Who may read a project's content: `public` → everyone; `internal` → every signed-in user of the GitLab instance
 * (group `gitlab:instance`: external users and people without an account on the instance are not among them);
 * `private` → the project's members (group `gitlab:project:<id>`).
 */
export function projectAcl(p: Pick<ProjectRef, 'id' | 'visibility'>): SourceAcl {
  if (p.visibility === 'public') return { public: true };
  if (p.visibility === 'internal') return { groups: ['gitlab:instance'] };
  return { groups: [`gitlab:project:${p.id}`] };
}

/** A user as the shared ACL shape names one: the public email lower-cased when GitLab shows it, else `gitlab:<id>`. */
export function userRef(u: GlUser): string {
  return u.public_email ? u.public_email.trim().toLowerCase() : `gitlab:${u.id}`;
}

/**
 * A confidential issue is readable only by project members (Planner role or higher), its author and its assignees,
 * whatever the project's visibility.
 */
function issuableAcl(project: ProjectRef, i: GlIssuable): SourceAcl {
  if (!i.confidential) return projectAcl(project);
  const users = [...new Set([i.author, ...(i.assignees ?? [])].filter((u): u is GlUser => Boolean(u)).map(userRef))];
  return { groups: [`gitlab:project:${project.id}`], ...(users.length ? { users } : {}) };
}

export const issueExternalId = (projectPath: string, iid: number) => `issue:${projectPath}#${iid}`;
export const mergeRequestExternalId = (projectPath: string, iid: number) => `mr:${projectPath}!${iid}`;
export const projectExternalId = (projectPath: string) => `project:${projectPath}`;
export const fileExternalId = (projectPath: string, path: string) => `file:${projectPath}:${path}`;
export const wikiExternalId = (projectPath: string, slug: string) => `wiki:${projectPath}:${slug}`;

/** Comments as readable text after the description: `— username, date:` then the note's Markdown. System notes are left out. */
export function renderNotes(notes: readonly GlNote[]): string {
  return notes
    .filter((n) => !n.system && n.body.trim())
    .map((n) => `— ${n.author?.username ?? 'unknown'}, ${n.created_at.slice(0, 10)}:\n${n.body.trim()}`)
    .join('\n\n');
}

function issuableText(i: GlIssuable, notes: readonly GlNote[] | undefined): string {
  const comments = notes ? renderNotes(notes) : '';
  return [i.description?.trim() ?? '', comments ? `Comments:\n\n${comments}` : ''].filter(Boolean).join('\n\n');
}

export function issueToDocument(project: ProjectRef, i: GlIssuable, notes?: readonly GlNote[]): SourceDocument {
  return {
    external_id: issueExternalId(project.path, i.iid),
    title: `${project.path}#${i.iid}: ${i.title}`,
    content: issuableText(i, notes),
    url: i.web_url,
    author: i.author?.username,
    document_type: 'issue',
    created_at: i.created_at,
    updated_at: i.updated_at,
    metadata: {
      project: project.path,
      project_id: project.id,
      iid: i.iid,
      gitlab_id: i.id,
      state: i.state,
      labels: [...(i.labels ?? [])],
      assignees: (i.assignees ?? []).map((a) => a.username),
      milestone: i.milestone?.title ?? null,
      confidential: i.confidential ?? false,
      closed_at: i.closed_at ?? null,
      ...(i.author ? { author_ref: userRef(i.author) } : {}),
    },
    acl: issuableAcl(project, i),
  };
}

export function mergeRequestToDocument(project: ProjectRef, m: GlIssuable, notes?: readonly GlNote[]): SourceDocument {
  return {
    external_id: mergeRequestExternalId(project.path, m.iid),
    title: `${project.path}!${m.iid}: ${m.title}`,
    content: issuableText(m, notes),
    url: m.web_url,
    author: m.author?.username,
    document_type: 'merge_request',
    created_at: m.created_at,
    updated_at: m.updated_at,
    metadata: {
      project: project.path,
      project_id: project.id,
      iid: m.iid,
      gitlab_id: m.id,
      state: m.state,
      labels: [...(m.labels ?? [])],
      source_branch: m.source_branch ?? null,
      target_branch: m.target_branch ?? null,
      draft: m.draft ?? false,
      merged_at: m.merged_at ?? null,
      ...(m.author ? { author_ref: userRef(m.author) } : {}),
    },
    acl: projectAcl(project),
  };
}

export function projectToDocument(p: GlProject): SourceDocument {
  const topics = p.topics ?? [];
  const ref = projectRef(p);
  return {
    external_id: projectExternalId(p.path_with_namespace),
    title: p.name_with_namespace ?? p.path_with_namespace,
    content: [p.description?.trim() ?? '', topics.length ? `Topics: ${topics.join(', ')}` : ''].filter(Boolean).join('\n\n'),
    url: p.web_url,
    author: p.owner?.username,
    document_type: 'project',
    created_at: p.created_at ?? undefined,
    updated_at: p.updated_at ?? p.last_activity_at ?? undefined,
    metadata: { project: p.path_with_namespace, project_id: p.id, visibility: ref.visibility, archived: p.archived ?? false, default_branch: p.default_branch ?? null, topics: [...topics] },
    acl: projectAcl(ref),
  };
}

const encodePath = (p: string) => p.split('/').map(encodeURIComponent).join('/');

/** The last commit that changed a file: when, and by whom (git author name). */
export interface LastCommit {
  readonly id: string;
  readonly date: string;
  readonly author: string;
}

export function fileToDocument(project: ProjectRef, f: { path: string; branch: string; blobId: string; content: string; title?: string | null; commit?: LastCommit | undefined }): SourceDocument {
  return {
    external_id: fileExternalId(project.path, f.path),
    title: f.title ? `${project.path}/${f.path}: ${f.title}` : `${project.path}/${f.path}`,
    content: f.content,
    url: `${project.web_url.replace(/\/$/, '')}/-/blob/${encodePath(f.branch)}/${encodePath(f.path)}`,
    author: f.commit?.author,
    document_type: 'file',
    updated_at: f.commit?.date,
    metadata: { project: project.path, project_id: project.id, path: f.path, branch: f.branch, blob_id: f.blobId, ...(f.commit ? { commit: f.commit.id } : {}) },
    acl: projectAcl(project),
  };
}

/** A wiki page; GitLab's wiki API gives no author or dates. `content_sha` lets an incremental sync skip unchanged pages. */
export function wikiPageToDocument(project: ProjectRef, page: GlWikiPage, contentSha: string): SourceDocument {
  return {
    external_id: wikiExternalId(project.path, page.slug),
    title: `${project.path} wiki: ${page.title}`,
    content: page.content ?? '',
    url: `${project.web_url.replace(/\/$/, '')}/-/wikis/${encodePath(page.slug)}`,
    document_type: 'wiki_page',
    metadata: { project: project.path, project_id: project.id, slug: page.slug, format: page.format ?? 'markdown', content_sha: contentSha },
    acl: projectAcl(project),
  };
}

/** A hash of what a wiki page document is made of (GitLab gives wiki pages no timestamps to compare). */
export const wikiContentSha = (page: GlWikiPage) => createHash('sha256').update(`${page.title}\n${page.format ?? ''}\n${page.content ?? ''}`).digest('hex');

/** Keeps files whose extension is listed (case-insensitive). */
export function wantedPath(path: string, extensions: readonly string[]): boolean {
  const lower = path.toLowerCase();
  return extensions.some((ext) => lower.endsWith(ext.toLowerCase()));
}

/** The later of two ISO timestamps (either may be null). */
export function laterIso(a: string | null, b: string | null | undefined): string | null {
  if (!b) return a;
  if (!a) return b;
  return Date.parse(b) > Date.parse(a) ? b : a;
}
