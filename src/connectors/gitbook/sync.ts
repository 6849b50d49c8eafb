import { z } from 'zod';
import { findVendorError, type Page, type SourceDocument, type SyncCapability, type SyncMode, VendorHttpError } from '../kit/index.ts';
import { type GitBookCtx, gitbookJson, listPage } from './client.ts';
import {
  documentPages,
  gitbookOrg,
  gitbookSpace,
  pageContent,
  pageExternalId,
  pageRef,
  pageToDocument,
  revision,
  type SpaceRef,
  spaceRef,
  spaceToDocument,
} from './map.ts';
import type { GitBookCredentials, GitBookSettings } from './schemas.ts';

/** Pages read per sync page (one `content/page/{id}` call each). */
const PAGES_PER_PAGE = 10;

export const gitbookSyncPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['orgs', 'spaces', 'space', 'pages']),
  /** The listing's `next.page` token (organizations, then the current organization's spaces). */
  token: z.string().nullable(),
  orgs: z.array(z.object({ id: z.string(), title: z.string() })),
  /** Every space listed so far (incremental: the ones whose revision moved), the current one first once listing ends. */
  spaces: z.array(spaceRef),
  /** Ids of every space listed (an incremental sync deletes stored spaces not among them). */
  listed: z.array(z.string()),
  /** The current space's pages still to read. */
  pages: z.array(pageRef),
  /** The previous run's revision per space. */
  prev: z.record(z.string(), z.string()),
  /** This run's revision per listed space: the next cursor. */
  revisions: z.record(z.string(), z.string()),
});
export type GitBookSyncPage = z.infer<typeof gitbookSyncPage>;

/** GitBook's change mechanism: each space's current revision id; a space whose revision did not move is not read. */
export const gitbookCursor = z.object({ revisions: z.record(z.string(), z.string()) });
export type GitBookCursor = z.infer<typeof gitbookCursor>;

type Result = Page<GitBookSyncPage, GitBookCursor>;

const cursorOf = (p: GitBookSyncPage): GitBookCursor => ({ revisions: p.revisions });
const enc = encodeURIComponent;

async function orgsPage(ctx: GitBookCtx, p: GitBookSyncPage): Promise<Result> {
  const r = await listPage(ctx, '/orgs', gitbookOrg, p.token);
  const wanted = ctx.settings.organizations;
  const orgs = [...p.orgs, ...r.items.filter((o) => !wanted || wanted.includes(o.id)).map((o) => ({ id: o.id, title: o.title }))];
  if (r.next) return { documents: [], next: { ...p, token: r.next, orgs }, cursor: null };
  return { documents: [], next: orgs.length ? { ...p, phase: 'spaces', token: null, orgs } : null, cursor: cursorOf(p) };
}

/** Spaces of the current organization; once every organization is listed, the spaces to read (and, incremental, those gone). */
async function spacesPage(ctx: GitBookCtx, p: GitBookSyncPage): Promise<Result> {
  const org = p.orgs[0];
  if (!org) return { documents: [], next: null, cursor: cursorOf(p) };
  const r = await listPage(ctx, `/orgs/${enc(org.id)}/spaces`, gitbookSpace, p.token);
  const wanted = ctx.settings.spaces;
  const found = r.items
    .filter((s) => !s.deletedAt && (!wanted || wanted.includes(s.id)) && !p.listed.includes(s.id))
    .map(
      (s): SpaceRef => ({ id: s.id, title: s.title, visibility: s.visibility, revision: s.revision, org: org.id, orgTitle: org.title, url: s.urls.app, updatedAt: s.updatedAt ?? null }),
    );
  const revisions = { ...p.revisions, ...Object.fromEntries(found.map((s) => [s.id, s.revision])) };
  const here: GitBookSyncPage = { ...p, revisions, listed: [...p.listed, ...found.map((s) => s.id)], spaces: [...p.spaces, ...found] };
  if (r.next) return { documents: [], next: { ...here, token: r.next }, cursor: null };
  const orgs = p.orgs.slice(1);
  if (orgs.length) return { documents: [], next: { ...here, token: null, orgs }, cursor: null };
  let spaces = here.spaces;
  const deleted: string[] = [];
  if (p.mode === 'incremental') {
    const listed = new Set(here.listed);
    for (const s of await ctx.stored('space:')) {
      const id = s.external_id.slice('space:'.length);
      if (listed.has(id)) continue;
      deleted.push(s.external_id, ...(await ctx.stored(`page:${id}:`)).map((x) => x.external_id));
    }
    // A space whose revision is the one the last run read changed nowhere: none of its pages is read.
    spaces = spaces.filter((s) => p.prev[s.id] !== s.revision);
  }
  const next: GitBookSyncPage | null = spaces.length ? { ...here, phase: 'space', token: null, orgs: [], spaces } : null;
  return { documents: [], deleted, next, cursor: cursorOf(here) };
}

/** The space's current revision (`GET /spaces/{id}/content`): its page tree; incremental: only pages that changed. */
async function spacePage(ctx: GitBookCtx, p: GitBookSyncPage): Promise<Result> {
  const space = p.spaces[0];
  if (!space) return { documents: [], next: null, cursor: cursorOf(p) };
  const rev = revision.parse(await gitbookJson<unknown>(ctx, `/spaces/${enc(space.id)}/content`));
  const current: SpaceRef = { ...space, revision: rev.id };
  const all = documentPages(rev.pages, ctx.settings.include_hidden);
  let toRead = all;
  const deleted: string[] = [];
  if (p.mode === 'incremental') {
    const stored = new Map((await ctx.stored(`page:${space.id}:`)).map((s) => [s.external_id, s.metadata]));
    const listed = new Set(all.map((x) => pageExternalId(space.id, x.id)));
    deleted.push(...[...stored.keys()].filter((id) => !listed.has(id)));
    toRead = all.filter((x) => {
      const m = stored.get(pageExternalId(space.id, x.id));
      return !m || x.updatedAt === null || m.updated_at !== x.updatedAt || m.path !== x.path || m.title !== x.title;
    });
  }
  const documents: SourceDocument[] = [spaceToDocument(current, all)];
  const here: GitBookSyncPage = { ...p, phase: 'pages', spaces: [current, ...p.spaces.slice(1)], pages: toRead, revisions: { ...p.revisions, [space.id]: rev.id } };
  return { documents, deleted, next: toRead.length ? here : advance(here), cursor: cursorOf(here) };
}

function advance(p: GitBookSyncPage): GitBookSyncPage | null {
  const spaces = p.spaces.slice(1);
  return spaces.length ? { ...p, phase: 'space', spaces, pages: [] } : null;
}

async function pagesPage(ctx: GitBookCtx, p: GitBookSyncPage): Promise<Result> {
  const space = p.spaces[0];
  if (!space) return { documents: [], next: null, cursor: cursorOf(p) };
  const batch = p.pages.slice(0, PAGES_PER_PAGE);
  const documents: SourceDocument[] = [];
  const deleted: string[] = [];
  for (const ref of batch) {
    try {
      const c = pageContent.parse(await gitbookJson<unknown>(ctx, `/spaces/${enc(space.id)}/content/page/${enc(ref.id)}`, { query: { format: 'markdown' } }));
      documents.push(pageToDocument(space, ref, c));
    } catch (err) {
      // Removed between the tree and this read: the next revision will not list it either.
      const e = findVendorError(err) ?? err;
      if (e instanceof VendorHttpError && e.status === 404) deleted.push(pageExternalId(space.id, ref.id));
      else throw err;
    }
  }
  const rest = p.pages.slice(batch.length);
  return { documents, deleted, next: rest.length ? { ...p, pages: rest } : advance(p), cursor: cursorOf(p) };
}

export const gitbookSync: SyncCapability<GitBookCredentials, GitBookSettings, GitBookCursor, GitBookSyncPage> = {
  cursorSchema: gitbookCursor,
  pageSchema: gitbookSyncPage,
  start(mode: SyncMode, since: GitBookCursor | null): GitBookSyncPage {
    return { mode, phase: 'orgs', token: null, orgs: [], spaces: [], listed: [], pages: [], prev: mode === 'incremental' ? (since?.revisions ?? {}) : {}, revisions: {} };
  },
  async readPage(ctx, p) {
    if (p.phase === 'orgs') return orgsPage(ctx, p);
    if (p.phase === 'spaces') return spacesPage(ctx, p);
    if (p.phase === 'space') return spacePage(ctx, p);
    return pagesPage(ctx, p);
  },
};
