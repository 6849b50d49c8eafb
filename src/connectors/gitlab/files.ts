import { findVendorError, formatOf, parseFile, type SourceContext, type SourceDocument } from '../kit/index.ts';
import { glGetOptional, rawFile, seg } from './client.ts';
import { fileExternalId, fileToDocument, type LastCommit, type ProjectRef } from './map.ts';
import type { GitLabCredentials, GitLabSettings } from './schemas.ts';

/**
 * Repository files of a project's default branch: which blobs of the tree listing to fetch (by blob id against the
 * stored documents), the raw files, and their last commits. Blob ids are content hashes: a stored file with the
 * tree's blob id (on the same branch) is unchanged and is not fetched again.
 */
type Ctx = SourceContext<GitLabCredentials, GitLabSettings>;

export interface TreeFile {
  readonly path: string;
  readonly id: string;
}
export interface TreeEntry {
  readonly id: string;
  readonly path: string;
  readonly type: string;
}

/** Files per sync page (one raw request each, plus one per distinct last commit). */
export const FILES_PER_PAGE = 20;

/** Compares the wanted files of the tree with the stored file documents: fetch what is new or changed, delete what is gone. */
export async function diffWithStored(ctx: Ctx, project: ProjectRef, branch: string, wanted: readonly TreeFile[]): Promise<{ fetch: TreeFile[]; deleted: string[] }> {
  const prefix = fileExternalId(project.path, '');
  const stored = new Map((await ctx.stored(prefix)).map((d) => [d.external_id.slice(prefix.length), d.metadata]));
  const fetch = wanted.filter((f) => {
    const m = stored.get(f.path);
    return m?.blob_id !== f.id || m?.branch !== branch;
  });
  const keep = new Set(wanted.map((f) => f.path));
  const deleted = [...stored.keys()].filter((p) => !keep.has(p)).map((p) => fileExternalId(project.path, p));
  return { fetch, deleted };
}

interface GlCommit {
  readonly id: string;
  readonly author_name?: string | null;
  readonly committed_date?: string | null;
  readonly authored_date?: string | null;
}

/** Dates are a nicety: a commit GitLab cannot show (404) leaves the file undated. */
async function commitOf(ctx: Ctx, projectId: number, sha: string): Promise<LastCommit | undefined> {
  const c = await glGetOptional<GlCommit>(ctx, `projects/${projectId}/repository/commits/${seg(sha)}`);
  if (!c) return undefined;
  return { id: c.id, date: c.committed_date ?? c.authored_date ?? '', author: c.author_name ?? '' };
}

/** Text of a file: PDF, DOCX and HTML through the document parsers, anything else as UTF-8. */
async function fileText(path: string, bytes: Uint8Array): Promise<{ content: string; title: string | null }> {
  const format = formatOf(path);
  if (format === 'pdf' || format === 'docx' || format === 'html') {
    const parsed = await parseFile(path, bytes);
    return { content: parsed.content, title: parsed.title };
  }
  return { content: Buffer.from(bytes).toString('utf8').replaceAll('\u0000', ''), title: null };
}

/**
 * Fetches `files` of `branch` (one raw request each) and their last commits (one request per distinct commit),
 * as documents. A file gone since the listing is named in `missing`; a file over the size limit is not stored;
 * one that cannot be parsed is reported as skipped (its stored version is kept).
 */
export async function fetchFiles(
  ctx: Ctx,
  project: ProjectRef,
  branch: string,
  files: readonly TreeFile[],
): Promise<{ documents: SourceDocument[]; skipped: { external_id: string; reason: string }[]; missing: string[] }> {
  const maxBytes = ctx.settings.max_file_size_mb * 1024 * 1024;
  const commits = new Map<string, Promise<LastCommit | undefined>>();
  const documents: SourceDocument[] = [];
  const skipped: { external_id: string; reason: string }[] = [];
  const missing: string[] = [];
  for (const f of files) {
    const raw = await rawFile(ctx, project.id, f.path, branch, maxBytes);
    if (raw === null) {
      missing.push(f.path);
      continue;
    }
    if (raw === 'too_large') continue;
    let text: { content: string; title: string | null };
    try {
      text = await fileText(f.path, raw.bytes);
    } catch (err) {
      if (ctx.signal.aborted || findVendorError(err)) throw err;
      skipped.push({ external_id: fileExternalId(project.path, f.path), reason: `cannot be parsed: ${err instanceof Error ? err.message : String(err)}`.slice(0, 200) });
      continue;
    }
    const sha = raw.lastCommitId;
    if (sha && !commits.has(sha)) commits.set(sha, commitOf(ctx, project.id, sha));
    const commit = sha ? await commits.get(sha) : undefined;
    documents.push(fileToDocument(project, { path: f.path, branch, blobId: raw.blobId ?? f.id, content: text.content, title: text.title, commit }));
  }
  return { documents, skipped, missing };
}
