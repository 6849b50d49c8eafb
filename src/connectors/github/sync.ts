import { z } from 'zod';
import type { Page, SourceContext, SourceDocument, SyncCapability, SyncMode } from '../kit/index.ts';
import { call, githubClient } from './client.ts';
import { readCollaborators } from './members.ts';
import { diffWithStored, fetchFiles, HISTORY_BATCH, type TreeEntry, wantedFiles } from './files.ts';
import {
  discussionToDocument,
  fileExternalId,
  type GhDiscussion,
  type GhIssue,
  type GhRepo,
  issueToDocument,
  laterIso,
  repoToDocument,
  repoWanted,
  wikiExternalId,
  wikiPageToDocument,
} from './map.ts';
import type { GitHubCredentials, GitHubSettings } from './schemas.ts';
import { readWiki, wikiPageName } from './wiki.ts';

type Ctx = SourceContext<GitHubCredentials, GitHubSettings>;

const repoRef = z.object({
  full_name: z.string(),
  default_branch: z.string(),
  private: z.boolean(),
  has_discussions: z.boolean(),
  has_wiki: z.boolean().default(false),
  html_url: z.string().default(''),
  /**
   * Incremental only: the cursor does not know this repository (it became visible, or passes the filters, since the
   * last sync), so everything in it is read, not just what changed after the cursor's `since`.
   */
  fresh: z.boolean().default(false),
});
/** Per repository: the wiki's HEAD commit and its pages (path → blob id) as last stored. */
const wikiState = z.object({ head: z.string(), pages: z.record(z.string(), z.string()) });
const wikiStates = z.record(z.string(), wikiState).default({});
export const githubPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['repos', 'issues', 'files', 'discussions', 'wiki']),
  repos: z.array(repoRef),
  repoIndex: z.number().int(),
  page: z.number().int(),
  after: z.string().nullable(),
  files: z.array(z.object({ path: z.string(), sha: z.string() })).nullable(),
  since: z.string().nullable(),
  maxUpdated: z.string().nullable(),
  trees: z.record(z.string(), z.string()),
  wikis: wikiStates,
});
export type GitHubPage = z.infer<typeof githubPage>;
export const githubCursor = z.object({ since: z.string().nullable(), trees: z.record(z.string(), z.string()), wikis: wikiStates });
export type GitHubCursor = z.infer<typeof githubCursor>;

const PER_PAGE = 50;
/** One page of files = its blobs + one commit-history request. */
const FILES_PER_PAGE = HISTORY_BATCH;

const hasNext = (link: string | undefined) => typeof link === 'string' && /rel="next"/.test(link);

function advanceRepo(page: GitHubPage, phase: GitHubPage['phase']): GitHubPage {
  return { ...page, phase, page: 1, after: null, files: null };
}

/** After one repo's phase: issues → files → discussions → wiki → next repo's issues. */
function nextPhase(page: GitHubPage): GitHubPage | null {
  if (page.phase === 'issues') return advanceRepo(page, 'files');
  if (page.phase === 'files') return advanceRepo(page, 'discussions');
  if (page.phase === 'discussions') return advanceRepo(page, 'wiki');
  const repoIndex = page.repoIndex + 1;
  if (repoIndex >= page.repos.length) return null;
  return { ...advanceRepo(page, 'issues'), repoIndex };
}

const cursorOf = (page: GitHubPage): GitHubCursor => ({ since: page.maxUpdated, trees: page.trees, wikis: page.wikis });

const DISCUSSIONS = `query($owner: String!, $name: String!, $after: String) {
  repository(owner: $owner, name: $name) {
    discussions(first: 50, after: $after, orderBy: {field: UPDATED_AT, direction: DESC}) {
      pageInfo { hasNextPage endCursor }
      nodes { number title body url createdAt updatedAt author { login } category { name } }
    }
  }
}`;

async function readPage(ctx: Ctx, page: GitHubPage): Promise<Page<GitHubPage, GitHubCursor>> {
  const gh = githubClient(ctx);
  if (page.phase === 'repos') return readReposPhase(ctx, gh, page);
  const repo = page.repos[page.repoIndex];
  if (!repo) return { documents: [], next: null, cursor: cursorOf(page) };
  const [owner = '', name = ''] = repo.full_name.split('/');
  // What changed after `since` is read; a repository the cursor does not know is read in full.
  const since = repo.fresh ? null : page.since;
  const at: RepoAt = { repo, owner, name, since };
  if (page.phase === 'issues') return readIssuesPhase(gh, page, at);
  if (page.phase === 'files') return readFilesPhase(ctx, gh, page, at);
  if (page.phase === 'wiki') return readWikiPhase(ctx, page, repo);
  return readDiscussionsPhase(gh, page, at);
}

type GitHubClient = ReturnType<typeof githubClient>;
/** The repository a phase reads: its owner and name, and the `since` it reads changes after (null: in full). */
type RepoAt = { repo: GitHubPage['repos'][number]; owner: string; name: string; since: string | null };

/** The repository listing (paged), then the private repositories' collaborators. */
async function readReposPhase(ctx: Ctx, gh: GitHubClient, page: GitHubPage): Promise<Page<GitHubPage, GitHubCursor>> {
  const s = ctx.settings;
  const r = await call(() => gh.request('GET /user/repos', { per_page: 100, page: page.page, visibility: s.sync_private_repos ? 'all' : 'public', sort: 'full_name' }));
  const repos = (r.data as unknown as GhRepo[]).filter((repo) => repoWanted(s, repo));
  // The cursor knows a repository once a sync has read its tree (`trees`).
  const fresh = (x: GhRepo) => page.mode === 'incremental' && !Object.hasOwn(page.trees, x.full_name);
  const all = [
    ...page.repos,
    ...repos.map((x) => ({
      full_name: x.full_name,
      default_branch: x.default_branch ?? 'main',
      private: x.private,
      has_discussions: x.has_discussions ?? false,
      has_wiki: x.has_wiki ?? false,
      html_url: x.html_url,
      fresh: fresh(x),
    })),
  ];
  const since = page.mode === 'incremental' ? page.since : null;
  const documents = repos.filter((x) => !since || fresh(x) || (x.updated_at && x.updated_at >= since)).map(repoToDocument);
  if (hasNext(r.headers.link)) return { documents, next: { ...page, repos: all, page: page.page + 1 }, cursor: cursorOf(page) };
  // Forget repositories no longer listed (access lost, filtered out): should one come back, it is read in full,
  // since what changed in it meanwhile may be older than the cursor's `since`.
  const listed = new Set(all.map((x) => x.full_name));
  const trees = Object.fromEntries(Object.entries(page.trees).filter(([name]) => listed.has(name)));
  const next: GitHubPage = { ...advanceRepo({ ...page, repos: all, trees }, 'issues'), repoIndex: 0 };
  // Who reads each private repository, re-read on every sync (the `github:<owner/repo>` ACL group's members).
  const members = await readCollaborators(gh, all.filter((x) => x.private).map((x) => x.full_name));
  return { documents, ...members, next: all.length > 0 ? next : null, cursor: cursorOf(next) };
}

async function readIssuesPhase(gh: GitHubClient, page: GitHubPage, { repo, owner, name, since }: RepoAt): Promise<Page<GitHubPage, GitHubCursor>> {
  const r = await call(() =>
    gh.request('GET /repos/{owner}/{repo}/issues', {
      owner,
      repo: name,
      state: 'all',
      sort: 'updated',
      direction: 'asc',
      per_page: PER_PAGE,
      page: page.page,
      ...(since ? { since } : {}),
    }),
  );
  const issues = r.data as unknown as GhIssue[];
  const maxUpdated = issues.reduce<string | null>((m, i) => laterIso(m, i.updated_at), page.maxUpdated);
  const documents = issues.map((i) => issueToDocument(repo.full_name, i, repo.private));
  const next = hasNext(r.headers.link) ? { ...page, page: page.page + 1, maxUpdated } : nextPhase({ ...page, maxUpdated });
  return { documents, next, cursor: cursorOf({ ...page, maxUpdated }) };
}

async function readFilesPhase(ctx: Ctx, gh: GitHubClient, page: GitHubPage, { repo, owner, name }: RepoAt): Promise<Page<GitHubPage, GitHubCursor>> {
  const s = ctx.settings;
  if (page.files === null) {
    // An empty repository answers 409 ("Git Repository is empty"), a missing default branch 404: no files.
    const tree = await call(() => gh.request('GET /repos/{owner}/{repo}/git/trees/{tree_sha}', { owner, repo: name, tree_sha: repo.default_branch, recursive: 'true' })).catch(
      (err: unknown) => {
        const status = (err as { status?: number })?.status;
        if (status === 409 || status === 404) return { data: { sha: `empty:${status}`, truncated: false, tree: [] } };
        throw err;
      },
    );
    const data = tree.data as unknown as { sha: string; truncated?: boolean; tree: TreeEntry[] };
    const known = { ...page, trees: { ...page.trees, [repo.full_name]: data.sha } };
    if (page.mode === 'incremental' && page.trees[repo.full_name] === data.sha) return { documents: [], next: nextPhase(known), cursor: cursorOf(known) };
    const wanted = wantedFiles(data.tree, s);
    // A full sync reads every file (the engine deletes what it did not see); an incremental one compares the tree
    // with the stored files: only new or changed blobs are fetched, stored files the tree lacks are deleted.
    const diff = page.mode === 'incremental' ? await diffWithStored(ctx, repo, wanted) : { fetch: wanted, deleted: [] };
    if (data.truncated) ctx.log.warn({ repository: repo.full_name }, 'GitHub truncated the git tree listing; files missing from it are kept');
    const deleted = data.truncated ? [] : diff.deleted;
    // A full sync deletes what it did not see: stored files a truncated listing left out are kept as skipped.
    const skipped = data.truncated && page.mode === 'full' ? await keptOutOfTruncatedTree(ctx, repo.full_name, wanted) : [];
    return { documents: [], deleted, skipped, next: diff.fetch.length > 0 ? { ...known, files: diff.fetch } : nextPhase(known), cursor: cursorOf(known) };
  }
  const batch = page.files.slice(0, FILES_PER_PAGE);
  const documents = await fetchFiles(ctx, gh, repo, batch, webBase(ctx));
  const rest = page.files.slice(FILES_PER_PAGE);
  return { documents, next: rest.length > 0 ? { ...page, files: rest } : nextPhase(page), cursor: cursorOf(page) };
}

async function readDiscussionsPhase(gh: GitHubClient, page: GitHubPage, { repo, owner, name, since }: RepoAt): Promise<Page<GitHubPage, GitHubCursor>> {
  // discussions (GraphQL), newest first; an incremental sync stops at the first one older than its cursor.
  if (!repo.has_discussions) return { documents: [], next: nextPhase(page), cursor: cursorOf(page) };
  const r = await call(() =>
    gh.graphql<{ repository: { discussions: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: GhDiscussion[] } } | null }>(DISCUSSIONS, {
      owner,
      name,
      after: page.after,
    }),
  );
  const conn = r.repository?.discussions;
  const nodes = (conn?.nodes ?? []).filter((d) => !since || d.updatedAt >= since);
  const maxUpdated = nodes.reduce<string | null>((m, d) => laterIso(m, d.updatedAt), page.maxUpdated);
  const reachedOld = since !== null && (conn?.nodes ?? []).some((d) => d.updatedAt < since);
  const documents = nodes.map((d) => discussionToDocument(repo.full_name, d, repo.private));
  const next = conn?.pageInfo.hasNextPage && !reachedOld ? { ...page, after: conn.pageInfo.endCursor, maxUpdated } : nextPhase({ ...page, maxUpdated });
  return { documents, next, cursor: cursorOf({ ...page, maxUpdated }) };
}

/**
 * One repository's wiki in one page: nothing is fetched when its HEAD is the one in the cursor
 * (incremental); otherwise pages whose blob changed are upserted and pages that vanished deleted.
 */
async function readWikiPhase(ctx: Ctx, page: GitHubPage, repo: GitHubPage['repos'][number]): Promise<Page<GitHubPage, GitHubCursor>> {
  if (!ctx.settings.include_wiki) return { documents: [], next: nextPhase(page), cursor: cursorOf(page) };
  const known = page.mode === 'incremental' ? page.wikis[repo.full_name] : undefined;
  const maxBytes = ctx.settings.max_file_size_mb * 1024 * 1024;
  const read = repo.has_wiki && repo.html_url ? await readWiki(ctx, repo.full_name, repo.html_url, known?.head ?? null, maxBytes) : ({ status: 'missing' } as const);
  if (read.status === 'unchanged') return { documents: [], next: nextPhase(page), cursor: cursorOf(page) };
  const wikis = { ...page.wikis };
  let documents: SourceDocument[] = [];
  let stillThere: Record<string, string> = {};
  if (read.status === 'missing') delete wikis[repo.full_name];
  else {
    stillThere = Object.fromEntries(read.pages.map((p) => [p.path, p.oid]));
    wikis[repo.full_name] = { head: read.head, pages: stillThere };
    documents = read.pages
      .filter((p) => known?.pages[p.path] !== p.oid)
      .map((p) => wikiPageToDocument(repo.full_name, repo.html_url, { ...p, name: wikiPageName(p.path) ?? p.path }, repo.private));
  }
  const deleted = Object.keys(known?.pages ?? {})
    .filter((p) => !(p in stillThere))
    .map((p) => wikiExternalId(repo.full_name, p));
  const next = { ...page, wikis };
  return { documents, deleted, next: nextPhase(next), cursor: cursorOf(next) };
}

/** The stored files of a repository that a truncated tree listing left out (kept: the listing is incomplete). */
async function keptOutOfTruncatedTree(ctx: Ctx, repo: string, listed: readonly { path: string }[]): Promise<{ external_id: string; reason: string }[]> {
  const seen = new Set(listed.map((f) => fileExternalId(repo, f.path)));
  return (await ctx.stored(fileExternalId(repo, '')))
    .filter((d) => !seen.has(d.external_id))
    .map((d) => ({ external_id: d.external_id, reason: 'GitHub truncated the tree listing' }));
}

function webBase(ctx: Ctx): string {
  return ctx.apiBaseUrl ? ctx.apiBaseUrl.replace(/\/api\/v3\/?$/, '').replace(/\/$/, '') : 'https://github.com';
}

export const githubSync: SyncCapability<GitHubCredentials, GitHubSettings, GitHubCursor, GitHubPage> = {
  cursorSchema: githubCursor,
  pageSchema: githubPage,
  start(mode: SyncMode, since: GitHubCursor | null, settings: GitHubSettings): GitHubPage {
    return {
      mode,
      phase: 'repos',
      repos: [],
      repoIndex: 0,
      page: 1,
      after: null,
      files: null,
      since: mode === 'incremental' ? (since?.since ?? null) : null,
      maxUpdated: since?.since ?? null,
      trees: mode === 'incremental' ? (since?.trees ?? {}) : {},
      // A full sync re-reads every wiki; with wikis off, forget them so turning them on reads them again.
      wikis: mode === 'incremental' && settings.include_wiki ? (since?.wikis ?? {}) : {},
    };
  },
  readPage,
};
