import type { Octokit } from '@octokit/rest';
import { z } from 'zod';
import { findVendorError, type SourceContext, type SourceDocument } from '../kit/index.ts';
import { call, mapGitHubError } from './client.ts';
import { fileExternalId, fileToDocument, type LastCommit, wantedFile } from './map.ts';
import type { GitHubCredentials, GitHubSettings } from './schemas.ts';

/**
 * Repository files: which blobs of a git tree to fetch, the blobs themselves, and the last commit of each file
 * (one GraphQL request per batch). Blob shas are content hashes, so a stored file whose sha equals the tree's is
 * unchanged and is not fetched again.
 */
type Ctx = SourceContext<GitHubCredentials, GitHubSettings>;

export interface TreeFile {
  readonly path: string;
  readonly sha: string;
}
export interface TreeEntry {
  readonly path: string;
  readonly type: string;
  readonly sha: string;
  readonly size?: number;
}
export interface FileRepo {
  readonly full_name: string;
  readonly default_branch: string;
  readonly private: boolean;
}

/** The blobs of a recursive tree listing that the settings want (extension and size filters). */
export function wantedFiles(tree: readonly TreeEntry[], s: GitHubSettings): TreeFile[] {
  const maxBytes = s.max_file_size_mb * 1024 * 1024;
  return tree.filter((f) => f.type === 'blob' && wantedFile(f.path, f.size ?? 0, s.file_extensions, maxBytes)).map((f) => ({ path: f.path, sha: f.sha }));
}

/**
 * Compares the wanted files of a repository's current tree with its stored file documents: fetch what is new or
 * changed (another blob, or another branch, which changes the URL), delete what the tree no longer has or the
 * settings no longer want.
 */
export async function diffWithStored(ctx: Ctx, repo: FileRepo, wanted: readonly TreeFile[]): Promise<{ fetch: TreeFile[]; deleted: string[] }> {
  const prefix = fileExternalId(repo.full_name, '');
  const stored = new Map((await ctx.stored(prefix)).map((d) => [d.external_id.slice(prefix.length), d.metadata]));
  const fetch = wanted.filter((f) => {
    const m = stored.get(f.path);
    return m?.sha !== f.sha || m?.branch !== repo.default_branch;
  });
  const keep = new Set(wanted.map((f) => f.path));
  const deleted = [...stored.keys()].filter((p) => !keep.has(p)).map((p) => fileExternalId(repo.full_name, p));
  return { fetch, deleted };
}

const historyNode = z.object({
  committedDate: z.string(),
  author: z.object({ name: z.string().nullish(), user: z.object({ login: z.string() }).nullish() }).nullish(),
});
const historyAnswer = z.object({
  repository: z.object({ object: z.record(z.string(), z.object({ nodes: z.array(historyNode.nullable()).nullish() })).nullable() }).nullable(),
});

/** One aliased `history(first: 1, path: $pN)` per file; paths travel as variables, never inside the query text. */
export function historyQuery(count: number): string {
  const vars = Array.from({ length: count }, (_, i) => `, $p${i}: String!`).join('');
  const fields = Array.from({ length: count }, (_, i) => `f${i}: history(first: 1, path: $p${i}) { nodes { committedDate author { name user { login } } } }`);
  return `query($owner: String!, $name: String!, $ref: String!${vars}) {
  repository(owner: $owner, name: $name) {
    object(expression: $ref) {
      ... on Commit {
        ${fields.join('\n        ')}
      }
    }
  }
}`;
}

/** Files per commit-history request (aliases of one GraphQL query); a sync's page of files fits in one. */
export const HISTORY_BATCH = 20;

/**
 * The last commit on `ref` that touched each path (date and author: GitHub login, else the git author name), one
 * GraphQL request per 20 paths. Dates are a nicety: any failure but a rejected token, a rate limit or an abort
 * leaves them out.
 */
export async function lastCommits(ctx: Ctx, gh: Octokit, repo: string, ref: string, paths: readonly string[]): Promise<Map<string, LastCommit>> {
  const found = new Map<string, LastCommit>();
  for (let i = 0; i < paths.length; i += HISTORY_BATCH) {
    for (const [path, c] of await lastCommitsBatch(ctx, gh, repo, ref, paths.slice(i, i + HISTORY_BATCH))) found.set(path, c);
  }
  return found;
}

async function lastCommitsBatch(ctx: Ctx, gh: Octokit, repo: string, ref: string, paths: readonly string[]): Promise<Map<string, LastCommit>> {
  const found = new Map<string, LastCommit>();
  const [owner = '', name = ''] = repo.split('/');
  let raw: unknown;
  try {
    raw = await gh.graphql(historyQuery(paths.length), { owner, name, ref, ...Object.fromEntries(paths.map((p, i) => [`p${i}`, p])) });
  } catch (err) {
    const mapped = mapGitHubError(err);
    if (ctx.signal.aborted || findVendorError(mapped)) throw mapped;
    ctx.log.warn({ repository: repo, files: paths.length, error: mapped instanceof Error ? mapped.message : String(mapped) }, 'GitHub commit history lookup failed; files stored without dates');
    return found;
  }
  const parsed = historyAnswer.safeParse(raw);
  if (!parsed.success) {
    ctx.log.warn({ repository: repo, issues: parsed.error.issues.slice(0, 3) }, 'unexpected GitHub commit history answer; files stored without dates');
    return found;
  }
  const fields = parsed.data.repository?.object ?? {};
  paths.forEach((path, i) => {
    const node = fields[`f${i}`]?.nodes?.[0];
    if (node) found.set(path, { date: node.committedDate, author: node.author?.user?.login ?? node.author?.name ?? undefined });
  });
  return found;
}

/** A blob's text from its raw answer (a string or bytes, by the answer's content type) or, from a JSON answer, its base64. */
function blobText(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  const b = data as { content?: string; encoding?: string };
  return b.encoding === 'base64' ? Buffer.from(b.content ?? '', 'base64').toString('utf8') : (b.content ?? '');
}

/** Fetches the blobs of `files` (one request each) and their last commits (one request), as documents. */
export async function fetchFiles(ctx: Ctx, gh: Octokit, repo: FileRepo, files: readonly TreeFile[], webBase: string): Promise<SourceDocument[]> {
  const [owner = '', name = ''] = repo.full_name.split('/');
  const commits = await lastCommits(ctx, gh, repo.full_name, repo.default_branch, files.map((f) => f.path));
  const documents: SourceDocument[] = [];
  for (const f of files) {
    // A blob can vanish between the tree listing and this request (a force push): the file is left to the next sync.
    // The raw media type: the blob's bytes, not JSON with base64 inside (Octokit's JSON parser overflows its stack on
    // a ~8 MB body and hands back a string, so files near the 10 MB default limit failed every full sync).
    const blob = await call(() => gh.request('GET /repos/{owner}/{repo}/git/blobs/{file_sha}', { owner, repo: name, file_sha: f.sha, mediaType: { format: 'raw' } })).catch((err: unknown) => {
      if ((err as { status?: number })?.status !== 404) throw err;
      ctx.log.warn({ repository: repo.full_name, path: f.path }, 'GitHub no longer has this blob; skipped until the next sync');
      return null;
    });
    if (!blob) continue;
    const content = blobText(blob.data);
    documents.push(
      fileToDocument({ repo: repo.full_name, branch: repo.default_branch, path: f.path, content, sha: f.sha, isPrivate: repo.private, webBase, commit: commits.get(f.path) }),
    );
  }
  return documents;
}
