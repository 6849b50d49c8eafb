import type { SourceAcl, SourceDocument } from '../kit/index.ts';

/** Pure mappings from GitHub's REST/GraphQL/webhook objects to documents. External ids are stable per object. */
export interface GhUser {
  readonly login: string;
}
export interface GhIssue {
  readonly number: number;
  readonly title: string;
  readonly body?: string | null;
  readonly html_url: string;
  readonly state: string;
  readonly user?: GhUser | null;
  readonly labels?: readonly (string | { name?: string | null })[];
  readonly created_at: string;
  readonly updated_at: string;
  readonly pull_request?: unknown;
}
export interface GhRepo {
  readonly full_name: string;
  readonly description?: string | null;
  readonly html_url: string;
  readonly private: boolean;
  readonly fork: boolean;
  readonly archived?: boolean;
  readonly default_branch?: string;
  readonly topics?: readonly string[];
  readonly owner?: GhUser | null;
  readonly created_at?: string | null;
  readonly updated_at?: string | null;
  readonly has_discussions?: boolean;
  readonly has_wiki?: boolean;
}
export interface GhDiscussion {
  readonly number: number;
  readonly title: string;
  readonly body: string;
  readonly url: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly author?: { login: string } | null;
  readonly category?: { name: string } | null;
}

/** A private repository's documents are read by its collaborators (group `github:<owner/repo>`, members.ts mirrors them); a public one's by everyone. */
export const repoGroup = (repo: string) => `github:${repo}`;
const acl = (repo: string, isPrivate: boolean): SourceAcl => (isPrivate ? { groups: [repoGroup(repo)] } : { public: true });

export function issueExternalId(repo: string, number: number, isPull: boolean): string {
  return `${isPull ? 'pr' : 'issue'}:${repo}#${number}`;
}

export function issueToDocument(repo: string, issue: GhIssue, isPrivate: boolean): SourceDocument {
  const isPull = issue.pull_request !== undefined && issue.pull_request !== null;
  const labels = (issue.labels ?? []).map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter(Boolean);
  return {
    external_id: issueExternalId(repo, issue.number, isPull),
    title: `${repo}#${issue.number}: ${issue.title}`,
    content: issue.body ?? '',
    url: issue.html_url,
    author: issue.user?.login,
    document_type: isPull ? 'pull_request' : 'issue',
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    metadata: { repository: repo, number: issue.number, state: issue.state, labels },
    acl: acl(repo, isPrivate),
  };
}

export function repoToDocument(repo: GhRepo): SourceDocument {
  const topics = repo.topics ?? [];
  return {
    external_id: `repo:${repo.full_name}`,
    title: repo.full_name,
    content: [repo.description ?? '', topics.length ? `Topics: ${topics.join(', ')}` : ''].filter(Boolean).join('\n\n'),
    url: repo.html_url,
    author: repo.owner?.login,
    document_type: 'repository',
    created_at: repo.created_at ?? undefined,
    updated_at: repo.updated_at ?? undefined,
    metadata: { repository: repo.full_name, fork: repo.fork, archived: repo.archived ?? false, default_branch: repo.default_branch },
    acl: acl(repo.full_name, repo.private),
  };
}

export function fileExternalId(repo: string, path: string): string {
  return `file:${repo}:${path}`;
}

/** The last commit on the branch that touched a file: when it was committed, and by whom (GitHub login, else git name). */
export interface LastCommit {
  readonly date: string;
  readonly author: string | undefined;
}

/** A repository file at `sha` (its blob); `updated_at` and `author` come from its last commit, when known. */
const encodePath = (p: string) => p.split('/').map(encodeURIComponent).join('/');

export function fileToDocument(f: {
  repo: string;
  branch: string;
  path: string;
  content: string;
  sha: string;
  isPrivate: boolean;
  webBase: string;
  commit?: LastCommit | undefined;
}): SourceDocument {
  return {
    external_id: fileExternalId(f.repo, f.path),
    title: `${f.repo}/${f.path}`,
    content: f.content,
    // Each path segment percent-encoded: a space, `#` or `?` in a file name would otherwise break the link.
    url: `${f.webBase}/${f.repo}/blob/${encodePath(f.branch)}/${encodePath(f.path)}`,
    author: f.commit?.author,
    document_type: 'file',
    updated_at: f.commit?.date,
    metadata: { repository: f.repo, path: f.path, branch: f.branch, sha: f.sha },
    acl: acl(f.repo, f.isPrivate),
  };
}

export function discussionToDocument(repo: string, d: GhDiscussion, isPrivate: boolean): SourceDocument {
  return {
    external_id: `discussion:${repo}#${d.number}`,
    title: `${repo} discussion #${d.number}: ${d.title}`,
    content: d.body,
    url: d.url,
    author: d.author?.login,
    document_type: 'discussion',
    created_at: d.createdAt,
    updated_at: d.updatedAt,
    metadata: { repository: repo, number: d.number, category: d.category?.name ?? null },
    acl: acl(repo, isPrivate),
  };
}

export function wikiExternalId(repo: string, path: string): string {
  return `wiki:${repo}:${path}`;
}

/**
 * A wiki page: title from the file name as GitHub shows it (`-` → space), URL `<html_url>/wiki/<Page-Name>`,
 * author and time of the last commit that changed it (when known).
 */
export function wikiPageToDocument(
  repo: string,
  htmlUrl: string,
  page: { path: string; name: string; oid: string; text: string; commit?: { oid: string; author: string; date: string } },
  isPrivate: boolean,
): SourceDocument {
  const slug = page.name.replace(/ /g, '-');
  return {
    external_id: wikiExternalId(repo, page.path),
    title: `${repo} wiki: ${page.name.replace(/-/g, ' ')}`,
    content: page.text,
    url: `${htmlUrl.replace(/\/$/, '')}/wiki/${encodeURIComponent(slug)}`,
    author: page.commit?.author,
    document_type: 'wiki_page',
    updated_at: page.commit?.date,
    metadata: { repository: repo, path: page.path, page: slug, sha: page.oid, ...(page.commit ? { commit: page.commit.oid } : {}) },
    acl: acl(repo, isPrivate),
  };
}

/** The connector's repository filters (settings `sync_private_repos`, `sync_archived_repos`, `include_forks`, `repositories`). */
export function repoWanted(
  s: { sync_private_repos: boolean; sync_archived_repos: boolean; include_forks: boolean; repositories?: readonly string[] | undefined },
  repo: { full_name: string; private: boolean; archived?: boolean; fork?: boolean },
): boolean {
  return (s.sync_private_repos || !repo.private) && (s.sync_archived_repos || !repo.archived) && (s.include_forks || !repo.fork) && (!s.repositories || s.repositories.includes(repo.full_name));
}

/** Keeps files whose extension is listed (case-insensitive) and whose size is within the limit. */
export function wantedFile(path: string, size: number, extensions: readonly string[], maxBytes: number): boolean {
  if (size > maxBytes) return false;
  const lower = path.toLowerCase();
  return extensions.some((ext) => lower.endsWith(ext.toLowerCase()));
}

/** The later of two ISO timestamps (either may be null). */
export function laterIso(a: string | null, b: string | null | undefined): string | null {
  if (!b) return a;
  if (!a) return b;
  return Date.parse(b) > Date.parse(a) ? b : a;
}
