import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HttpClient, ReadCommitResult } from 'isomorphic-git';
import { rateLimitFromResponse, type SourceContext, VendorAuthError, VendorRateLimitedError } from '../kit/index.ts';
import type { GitHubCredentials, GitHubSettings } from './schemas.ts';

/**
 * GitHub wikis have no REST API: a wiki is the git repository `<html_url>.wiki.git`, read with the connector's
 * token over git's smart HTTP protocol (Basic auth, username `x-access-token`) by isomorphic-git (pure JS;
 * no `git` binary needed). A shallow, single-branch, checkout-free clone goes to a temp dir that is always
 * removed. Only when the wiki's HEAD differs from the one remembered in the cursor are pages fetched.
 */

/** The markup formats GitHub renders as wiki pages; their text is indexed as is. */
export const WIKI_EXTENSIONS = [
  '.md',
  '.markdown',
  '.mdown',
  '.mkdn',
  '.mkd',
  '.mediawiki',
  '.wiki',
  '.textile',
  '.asciidoc',
  '.adoc',
  '.asc',
  '.rdoc',
  '.org',
  '.creole',
  '.rst',
  '.pod',
];

/** Commits of history fetched to date pages (author and time of the last commit that changed each). */
export const WIKI_HISTORY_DEPTH = 50;

export interface WikiPage {
  readonly path: string;
  /** The page's git blob id: equal ids = unchanged page. */
  readonly oid: string;
  readonly text: string;
  /** The last commit that changed the page, when it lies within the fetched history. */
  readonly commit?: { readonly oid: string; readonly author: string; readonly date: string };
}

export type WikiRead =
  /** No wiki repository (never created, or wikis disabled): GitHub answers 404. */
  | { readonly status: 'missing' }
  | { readonly status: 'unchanged'; readonly head: string }
  | { readonly status: 'read'; readonly head: string; readonly pages: readonly WikiPage[] };

type Ctx = SourceContext<GitHubCredentials, GitHubSettings>;

/** `Home.md` → `Home`; `_Sidebar.md`/`_Footer.md` (page chrome) and other files → null. */
export function wikiPageName(file: string): string | null {
  const base = file.split('/').pop() ?? file;
  if (base.startsWith('_')) return null;
  const lower = base.toLowerCase();
  const ext = WIKI_EXTENSIONS.find((e) => lower.endsWith(e));
  if (!ext) return null;
  const name = base.slice(0, base.length - ext.length);
  return name.length > 0 ? name : null;
}

/** The wiki git URL of a repository, from its `html_url` (github.com, GitHub Enterprise, tests' fakes). */
export const wikiGitUrl = (htmlUrl: string) => `${htmlUrl.replace(/\/$/, '')}.wiki.git`;

type Git = typeof import('isomorphic-git').default;
type GitHttp = typeof import('isomorphic-git/http/node').default;
let gitModules: Promise<{ git: Git; nodeHttp: GitHttp }> | undefined;
/** isomorphic-git, loaded on the first wiki read rather than at every start (~0.1 s of CPU, issue 29). */
function loadGit(): Promise<{ git: Git; nodeHttp: GitHttp }> {
  gitModules ??= Promise.all([import('isomorphic-git'), import('isomorphic-git/http/node')]).then(([g, h]) => ({ git: g.default, nodeHttp: h.default }));
  gitModules.catch(() => {
    gitModules = undefined;
  });
  return gitModules;
}

function httpClient(ctx: Ctx, nodeHttp: GitHttp): HttpClient {
  return {
    async request(req) {
      await ctx.acquire();
      const res = await nodeHttp.request({ ...req, signal: ctx.signal });
      // isomorphic-git's HttpError drops the headers: a 429's Retry-After is read here.
      const limited = rateLimitFromResponse(res.statusCode, (name) => {
        const v = res.headers?.[name];
        return Array.isArray(v) ? v[0] : v;
      });
      if (limited) throw limited;
      return res;
    },
  };
}

/** isomorphic-git's HttpError → the engine's vendor errors; 404 → null (no wiki). */
function mapGitError(err: unknown, repo: string): Error | null {
  if (err instanceof VendorRateLimitedError) return err;
  const e = err as { code?: string; data?: { statusCode?: number; statusMessage?: string } };
  const status = e?.code === 'HttpError' ? e.data?.statusCode : undefined;
  if (status === 404) return null;
  if (status === 401 || status === 403) {
    return new VendorAuthError(
      `GitHub refused git access to the wiki of ${repo} (HTTP ${status}): the token is invalid or revoked, or lacks read access to the repository's contents`,
    );
  }
  if (status === 429) return new VendorRateLimitedError('vendor rate limit (HTTP 429 on git)', null);
  const message = err instanceof Error ? err.message : String(err);
  return new Error(`reading the wiki of ${repo} failed: ${message}`);
}

async function gitCall<T>(repo: string, fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    const mapped = mapGitError(err, repo);
    if (mapped === null) return null;
    throw mapped;
  }
}

/** Paths whose blob differs between two trees (recursing only into subtrees that differ). */
async function changedPaths(git: Git, dir: string, cache: object, a: string, b: string | null, prefix: string, out: Set<string>): Promise<void> {
  const ta = await git.readTree({ fs, dir, oid: a, cache });
  const tb = b ? await git.readTree({ fs, dir, oid: b, cache }) : null;
  const before = new Map((tb?.tree ?? []).map((e) => [e.path, e]));
  for (const entry of ta.tree) {
    const old = before.get(entry.path);
    if (old?.oid === entry.oid) continue;
    const p = `${prefix}${entry.path}`;
    if (entry.type === 'tree') await changedPaths(git, dir, cache, entry.oid, old?.type === 'tree' ? old.oid : null, `${p}/`, out);
    else if (entry.type === 'blob') out.add(p);
  }
}

/** The last commit (within the fetched history) that changed each page. */
async function attribute(git: Git, dir: string, cache: object, head: string, paths: readonly string[]): Promise<Map<string, ReadCommitResult>> {
  const found = new Map<string, ReadCommitResult>();
  const commits = await git.log({ fs, dir, ref: head, depth: WIKI_HISTORY_DEPTH, cache });
  const remaining = new Set(paths);
  for (let i = 0; i < commits.length && remaining.size > 0; i++) {
    const c = commits[i] as ReadCommitResult;
    const parent = commits[i + 1];
    let changed: Set<string>;
    if (parent && c.commit.parent.includes(parent.oid)) {
      changed = new Set();
      await changedPaths(git, dir, cache, c.commit.tree, parent.commit.tree, '', changed);
    } else if (c.commit.parent.length === 0) {
      changed = new Set(remaining); // the root commit created whatever is still unattributed
    } else break; // the shallow boundary: older history was not fetched
    for (const p of changed) {
      if (remaining.delete(p)) found.set(p, c);
    }
  }
  return found;
}

/**
 * Reads the wiki of `repo` unless its HEAD is `knownHead`. Pages larger than `maxBytes` are skipped.
 * Auth failures throw VendorAuthError; a missing wiki is `{status: 'missing'}`.
 */
export async function readWiki(ctx: Ctx, repo: string, htmlUrl: string, knownHead: string | null, maxBytes: number): Promise<WikiRead> {
  const url = wikiGitUrl(htmlUrl);
  const { git, nodeHttp } = await loadGit();
  const http = httpClient(ctx, nodeHttp);
  const token = ctx.credentials.access_token ?? '';
  const auth = { username: 'x-access-token', password: token };
  // The token goes with every request (as with the REST API) and answers a Basic challenge too; it is
  // never put in the URL, so never in an error message.
  const headers = { 'user-agent': 'atrium-connector', authorization: `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}` };
  const onAuth = () => auth;
  const refs = await gitCall(repo, () => git.listServerRefs({ http, url, onAuth, headers: { ...headers }, protocolVersion: 1, prefix: 'HEAD', symrefs: true }));
  if (refs === null) return { status: 'missing' };
  const head = refs.find((r) => r.ref === 'HEAD')?.oid;
  if (!head) return { status: 'read', head: '', pages: [] }; // the repository exists but has no commit
  if (head === knownHead) return { status: 'unchanged', head };

  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'atrium-wiki-'));
  try {
    const cache = {};
    const cloned = await gitCall(repo, () =>
      git.clone({ fs, http, dir, url, onAuth, headers: { ...headers }, depth: WIKI_HISTORY_DEPTH, singleBranch: true, noCheckout: true, noTags: true, cache }),
    );
    if (cloned === null) return { status: 'missing' };
    const cloneHead = await git.resolveRef({ fs, dir, ref: 'HEAD' });
    const files: { path: string; oid: string }[] = [];
    await git.walk({
      fs,
      dir,
      cache,
      trees: [git.TREE({ ref: cloneHead })],
      map: async (filepath, [entry]) => {
        if (!entry || filepath === '.') return true;
        if ((await entry.type()) === 'blob' && wikiPageName(filepath)) files.push({ path: filepath, oid: await entry.oid() });
        return true;
      },
    });
    const commits = await attribute(git, dir, cache, cloneHead, files.map((f) => f.path));
    const pages: WikiPage[] = [];
    for (const f of files) {
      const { blob } = await git.readBlob({ fs, dir, oid: f.oid, cache });
      if (blob.byteLength > maxBytes) continue;
      const c = commits.get(f.path);
      pages.push({
        path: f.path,
        oid: f.oid,
        text: Buffer.from(blob).toString('utf8'),
        ...(c ? { commit: { oid: c.oid, author: c.commit.author.name, date: new Date(c.commit.author.timestamp * 1000).toISOString().replace('.000', '') } } : {}),
      });
    }
    return { status: 'read', head: cloneHead, pages };
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
