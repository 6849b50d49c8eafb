import { z } from 'zod';
import { type Page, type SourceDocument, SourceSettingsError, type SyncCapability, type SyncMode, VendorHttpError } from '../kit/index.ts';
import { type BitbucketCtx, bitbucketFile, bitbucketJson, getUser, orNull } from './client.ts';
import {
  type BitbucketComment,
  type BitbucketIssue,
  type BitbucketPullRequest,
  comment,
  issue,
  issueToDocument,
  pullRequest,
  pullRequestToDocument,
  readmeExternalId,
  readmeToDocument,
  type RepoRef,
  repoRef,
  repository,
  repositoryToDocument,
} from './map.ts';
import type { BitbucketCredentials, BitbucketSettings } from './schemas.ts';

const REPO_PAGE = 100;
const ITEM_PAGE = 50;
const COMMENT_PAGE = 100;

const repoRefSchema = z.object({
  uuid: z.string(),
  fullName: z.string(),
  isPrivate: z.boolean(),
  hasIssues: z.boolean(),
  mainBranch: z.string().nullable(),
  htmlUrl: z.string(),
  updatedOn: z.string().nullable(),
});

const STAGES = ['readme', 'pullrequests', 'issues'] as const;
type Stage = (typeof STAGES)[number];

export const bitbucketPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'repos', ...STAGES]),
  /** When this sync started (ISO): the cursor never passes it (an edit made during the sync is read again next time). */
  startedAt: z.string().nullable(),
  /** Incremental: objects updated at or after this instant are read; null = everything. */
  since: z.string().nullable(),
  workspaces: z.array(z.string()),
  wsIndex: z.number().int(),
  /** The repositories in scope, collected while listing the workspaces. */
  repos: z.array(repoRefSchema),
  repoIndex: z.number().int(),
  /** The `next` link of the listing being paged. */
  nextUrl: z.string().nullable(),
  maxUpdated: z.string().nullable(),
});
export type BitbucketPage = z.infer<typeof bitbucketPage>;
export const bitbucketCursor = z.object({ since: z.string() });
export type BitbucketCursor = z.infer<typeof bitbucketCursor>;

function cursorOf(p: BitbucketPage): BitbucketCursor | null {
  const seen = p.maxUpdated ?? p.since ?? p.startedAt;
  if (!seen) return null;
  return { since: p.startedAt && Date.parse(seen) > Date.parse(p.startedAt) ? p.startedAt : seen };
}

const later = (a: string | null, b: string | null | undefined) => (!b ? a : !a || Date.parse(b) > Date.parse(a) ? b : a);

/** A BBQL datetime literal for `updated_on >= …`: whole seconds (rounded down), UTC offset spelled out. */
export function bbqlTime(iso: string): string {
  return new Date(Math.floor(Date.parse(iso) / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

const paged = z.object({ values: z.array(z.unknown()).default([]), next: z.string().nullable().optional() });
const workspaceAccess = z.object({ slug: z.string().optional(), workspace: z.object({ slug: z.string() }).nullable().optional() });

/** Every value of a paged listing, following `next`. */
async function allPages(ctx: BitbucketCtx, path: string, params: [string, string][]): Promise<unknown[]> {
  const out: unknown[] = [];
  let r = paged.parse(await bitbucketJson<unknown>(ctx, path, params));
  out.push(...r.values);
  while (r.next) {
    r = paged.parse(await bitbucketJson<unknown>(ctx, r.next));
    out.push(...r.values);
  }
  return out;
}

/** The workspaces the account can access (`GET /2.0/user/workspaces`, which replaced `GET /2.0/workspaces`). */
async function accessibleWorkspaces(ctx: BitbucketCtx): Promise<string[]> {
  const values = await allPages(ctx, '/2.0/user/workspaces', [['pagelen', '100']]);
  return values.map((v) => workspaceAccess.parse(v)).map((w) => w.workspace?.slug ?? w.slug ?? '').filter(Boolean);
}

export async function comments(ctx: BitbucketCtx, path: string): Promise<BitbucketComment[]> {
  return (await allPages(ctx, path, [['pagelen', String(COMMENT_PAGE)]])).map((c) => comment.parse(c));
}

export const repoWanted = (settings: BitbucketSettings, fullName: string) => !settings.repositories || settings.repositories.includes(fullName.toLowerCase());

function stageEnabled(p: BitbucketPage, settings: BitbucketSettings, repo: RepoRef, stage: Stage): boolean {
  if (stage === 'readme') {
    // A push moves the repository's updated_on: an incremental sync re-reads the README of repositories pushed to.
    const changed = p.mode === 'full' || !p.since || !repo.updatedOn || Date.parse(repo.updatedOn) >= Date.parse(p.since);
    return settings.include_readme && repo.mainBranch !== null && changed;
  }
  if (stage === 'pullrequests') return settings.include_pull_requests;
  return settings.include_issues && repo.hasIssues;
}

/** The next (repository, stage) with something to read after `from`, or null when the sync is done. */
function advance(p: BitbucketPage, settings: BitbucketSettings, from: { repoIndex: number; stage: Stage | null }): BitbucketPage | null {
  let stageIndex = from.stage === null ? 0 : STAGES.indexOf(from.stage) + 1;
  for (let i = from.repoIndex; i < p.repos.length; i++, stageIndex = 0) {
    const repo = p.repos[i] as RepoRef;
    for (let s = stageIndex; s < STAGES.length; s++) {
      const stage = STAGES[s] as Stage;
      if (stageEnabled(p, settings, repo, stage)) return { ...p, phase: stage, repoIndex: i, nextUrl: null };
    }
  }
  return null;
}

function sinceParams(p: BitbucketPage): [string, string][] {
  return p.mode === 'incremental' && p.since ? [['q', `updated_on >= ${bbqlTime(p.since)}`]] : [];
}

async function readRepos(ctx: BitbucketCtx, p: BitbucketPage): Promise<Page<BitbucketPage, BitbucketCursor>> {
  const ws = p.workspaces[p.wsIndex] ?? '';
  let raw: unknown;
  try {
    raw = await bitbucketJson<unknown>(ctx, p.nextUrl ?? `/2.0/repositories/${encodeURIComponent(ws)}`, p.nextUrl ? [] : [['pagelen', String(REPO_PAGE)]]);
  } catch (err) {
    if (err instanceof VendorHttpError && (err.status === 404 || err.status === 403)) throw new SourceSettingsError(`settings.workspaces names ${ws}, which this account cannot read (Bitbucket answered ${err.status})`);
    throw err;
  }
  const r = paged.parse(raw);
  const documents: SourceDocument[] = [];
  const repos = [...p.repos];
  let maxUpdated = p.maxUpdated;
  for (const v of r.values) {
    const repo = repository.parse(v);
    if (!repoWanted(ctx.settings, repo.full_name)) continue;
    repos.push(repoRef(repo));
    documents.push(repositoryToDocument(repo));
    maxUpdated = later(maxUpdated, repo.updated_on);
  }
  const here: BitbucketPage = { ...p, repos, maxUpdated };
  if (r.next) return { documents, next: { ...here, nextUrl: r.next }, cursor: cursorOf(p) };
  if (p.wsIndex + 1 < p.workspaces.length) return { documents, next: { ...here, wsIndex: p.wsIndex + 1, nextUrl: null }, cursor: cursorOf(p) };
  const missing = (ctx.settings.repositories ?? []).filter((name) => !repos.some((x) => x.fullName.toLowerCase() === name));
  if (missing.length > 0) throw new SourceSettingsError(`settings.repositories names ${missing.join(', ')}, which this account cannot read in ${p.workspaces.join(', ')}`);
  return { documents, next: advance(here, ctx.settings, { repoIndex: 0, stage: null }), cursor: cursorOf(here) };
}

async function readReadme(ctx: BitbucketCtx, p: BitbucketPage, repo: RepoRef): Promise<Page<BitbucketPage, BitbucketCursor>> {
  const text = await bitbucketFile(ctx, `/2.0/repositories/${repo.fullName}/src/${encodeURIComponent(repo.mainBranch ?? 'HEAD')}/README.md`);
  const next = advance(p, ctx.settings, { repoIndex: p.repoIndex, stage: 'readme' });
  if (text === null || !text.trim()) return { documents: [], deleted: [readmeExternalId(repo.uuid)], next, cursor: cursorOf(p) };
  return { documents: [readmeToDocument(repo, text)], next, cursor: cursorOf(p) };
}

/** A pull request or issue listing page (newest first), each item with its comments. */
async function readItems(ctx: BitbucketCtx, p: BitbucketPage, repo: RepoRef, stage: 'pullrequests' | 'issues'): Promise<Page<BitbucketPage, BitbucketCursor>> {
  const base = `/2.0/repositories/${repo.fullName}/${stage}`;
  const params: [string, string][] =
    stage === 'pullrequests'
      ? [['state', 'OPEN'], ['state', 'MERGED'], ['state', 'DECLINED'], ['pagelen', String(ITEM_PAGE)], ['sort', '-updated_on'], ...sinceParams(p)]
      : [['pagelen', String(ITEM_PAGE)], ['sort', '-updated_on'], ...sinceParams(p)];
  // An issue tracker turned off since the repository was listed answers 404: nothing to read.
  const raw = await orNull(bitbucketJson<unknown>(ctx, p.nextUrl ?? base, p.nextUrl ? [] : params));
  const r = paged.parse(raw ?? { values: [] });
  const documents: SourceDocument[] = [];
  let maxUpdated = p.maxUpdated;
  for (const v of r.values) {
    if (stage === 'pullrequests') {
      const pr: BitbucketPullRequest = pullRequest.parse(v);
      documents.push(pullRequestToDocument(repo, pr, await comments(ctx, `${base}/${pr.id}/comments`)));
      maxUpdated = later(maxUpdated, pr.updated_on);
    } else {
      const i: BitbucketIssue = issue.parse(v);
      documents.push(issueToDocument(repo, i, await comments(ctx, `${base}/${i.id}/comments`)));
      maxUpdated = later(maxUpdated, i.updated_on);
    }
  }
  const here = { ...p, maxUpdated };
  const next = r.next ? { ...here, nextUrl: r.next } : advance(here, ctx.settings, { repoIndex: p.repoIndex, stage });
  return { documents, next, cursor: cursorOf(here) };
}

async function readPage(ctx: BitbucketCtx, p: BitbucketPage): Promise<Page<BitbucketPage, BitbucketCursor>> {
  if (p.phase === 'setup') {
    await getUser(ctx);
    const workspaces = ctx.settings.workspaces ?? [...new Set([...(await accessibleWorkspaces(ctx)), ...(ctx.settings.repositories ?? []).map((r) => r.split('/')[0] ?? '')])].filter(Boolean);
    const here: BitbucketPage = { ...p, workspaces, startedAt: ctx.now.toISOString() };
    return { documents: [], next: workspaces.length > 0 ? { ...here, phase: 'repos', wsIndex: 0, nextUrl: null } : null, cursor: cursorOf(here) };
  }
  if (p.phase === 'repos') return readRepos(ctx, p);
  const repo = p.repos[p.repoIndex];
  if (!repo) return { documents: [], next: null, cursor: cursorOf(p) };
  if (p.phase === 'readme') return readReadme(ctx, p, repo);
  return readItems(ctx, p, repo, p.phase);
}

export const bitbucketSync: SyncCapability<BitbucketCredentials, BitbucketSettings, BitbucketCursor, BitbucketPage> = {
  cursorSchema: bitbucketCursor,
  pageSchema: bitbucketPage,
  start(mode: SyncMode, since: BitbucketCursor | null): BitbucketPage {
    return { mode, phase: 'setup', startedAt: null, since: mode === 'incremental' ? (since?.since ?? null) : null, workspaces: [], wsIndex: 0, repos: [], repoIndex: 0, nextUrl: null, maxUpdated: null };
  },
  readPage,
};
