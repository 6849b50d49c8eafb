import { z } from 'zod';
import { type Page, type SourceAcl, type SourceDocument, SourceSettingsError, type SyncCapability, type SyncMode } from '../kit/index.ts';
import { cfGet, cfGetOrNull, type Ctx, nextPath, resolveTarget, type Target, targetSchema } from './client.ts';
import {
  type CfAttachment,
  cfAttachment,
  type CfComment,
  cfComment,
  type CfContent,
  cfContent,
  cfPermission,
  cfReadRestriction,
  cfSpace,
  type CfUser,
  cfUser,
  type CommentContainer,
  commentToDocument,
  type ContentKind,
  contentToDocument,
  type MapContext,
  restrictionAcl,
  spaceAcl,
} from './map.ts';
import { mentionedUsers } from './render.ts';
import type { ConfluenceCredentials, ConfluenceSettings } from './schemas.ts';

/** Pages and blog posts per list request (each may cost a few more requests for comments, attachments, restrictions). */
const PAGE_SIZE = 25;
/** Sub-resources (comments, attachments, spaces, permissions) per request: the v2 maximum. */
const MAX = 250;
/** CQL changes are asked for since the cursor minus this margin (clock skew between Atrium and Atlassian, index lag). */
const MARGIN_MINUTES = 10;

const aclSchema = z.object({
  public: z.boolean().optional(),
  users: z.array(z.string()).optional(),
  groups: z.array(z.string()).optional(),
});
const spaceRef = z.object({ id: z.string(), key: z.string(), name: z.string(), acl: aclSchema.nullable() });
type SpaceRef = z.infer<typeof spaceRef>;

export const confluencePage = z.object({
  mode: z.enum(['incremental', 'full']),
  /** setup → (full) content per space and kind | (incremental) changes by CQL, then trash per space and kind. */
  phase: z.enum(['setup', 'content', 'changes', 'trash']),
  target: targetSchema.nullable(),
  spaces: z.array(spaceRef),
  index: z.number().int().min(0),
  kind: z.enum(['page', 'blogpost']),
  /** The vendor's next-page link of the current listing, null at its start. */
  next: z.string().nullable(),
  /** Incremental: the stored cursor's time. */
  since: z.string().nullable(),
  /** When this sync started: the next incremental sync asks for changes since then. */
  startedAt: z.string(),
});
export type ConfluencePage = z.infer<typeof confluencePage>;
export const confluenceCursor = z.object({ since: z.string() });
export type ConfluenceCursor = z.infer<typeof confluenceCursor>;

interface Listing<T> {
  results: T[];
  _links?: { next?: string };
}

const v2 = (kind: ContentKind) => (kind === 'page' ? 'pages' : 'blogposts');

/** Every item of a v2 listing, following `_links.next`. */
async function listAll<T>(ctx: Ctx, t: Target, path: string, query: Record<string, string | number>, item: z.ZodType<T>): Promise<T[]> {
  const out: T[] = [];
  let next: string | null = null;
  do {
    const r: Listing<unknown> = next ? await cfGet<Listing<unknown>>(ctx, t.base, next) : await cfGet<Listing<unknown>>(ctx, t.base, path, query);
    out.push(...r.results.map((x) => item.parse(x)));
    next = nextPath(r._links?.next, 'v2', t.base);
  } while (next);
  return out;
}

async function listSpaces(ctx: Ctx, t: Target): Promise<SpaceRef[]> {
  const keys = ctx.settings.spaces;
  const spaces = await listAll(ctx, t, '/wiki/api/v2/spaces', { limit: MAX, status: 'current', ...(keys ? { keys: keys.join(',') } : {}) }, cfSpace);
  if (keys) {
    const missing = keys.filter((k) => !spaces.some((s) => s.key === k));
    if (missing.length > 0) throw new SourceSettingsError(`settings.spaces names spaces these credentials cannot read or that do not exist: ${missing.join(', ')}`);
  }
  return spaces.filter((s) => !keys || keys.includes(s.key)).map((s) => ({ id: s.id, key: s.key, name: s.name, acl: null }));
}

async function loadSpaceAcl(ctx: Ctx, t: Target, s: SpaceRef): Promise<SpaceRef['acl']> {
  return aclSchema.parse(spaceAcl(s.id, await listAll(ctx, t, `/wiki/api/v2/spaces/${s.id}/permissions`, { limit: MAX }, cfPermission)));
}

/** The spaces with `id`'s ACL loaded (once per sync). */
async function withAcl(ctx: Ctx, t: Target, spaces: SpaceRef[], spaceId: string): Promise<{ spaces: SpaceRef[]; space: SpaceRef | null }> {
  const s = spaces.find((x) => x.id === spaceId);
  if (!s) return { spaces, space: null };
  if (s.acl) return { spaces, space: s };
  const loaded = { ...s, acl: await loadSpaceAcl(ctx, t, s) };
  return { spaces: spaces.map((x) => (x.id === spaceId ? loaded : x)), space: loaded };
}

/** Display names and emails of these account ids (v1 bulk lookup, 100 per request); unknown ids are left out. */
async function lookupUsers(ctx: Ctx, t: Target, ids: Iterable<string>): Promise<Map<string, CfUser>> {
  const unique = [...new Set([...ids].filter(Boolean))];
  const out = new Map<string, CfUser>();
  for (let i = 0; i < unique.length; i += 100) {
    const qs = new URLSearchParams(unique.slice(i, i + 100).map((id) => ['accountId', id]));
    const r = await cfGet<{ results?: unknown[] }>(ctx, t.base, `/wiki/rest/api/user/bulk?${qs.toString()}`);
    for (const u of r.results ?? []) {
      const parsed = cfUser.safeParse(u);
      if (parsed.success) out.set(parsed.data.accountId, parsed.data);
    }
  }
  return out;
}

async function readRestrictionAcl(ctx: Ctx, t: Target, contentId: string): Promise<SourceAcl | null> {
  if (!ctx.settings.include_restrictions) return null;
  const r = await cfGetOrNull<unknown>(ctx, t.base, `/wiki/rest/api/content/${contentId}/restriction/byOperation/read`, { expand: 'restrictions.user,restrictions.group' });
  return r ? restrictionAcl(cfReadRestriction.parse(r)) : null;
}

/** A comment and its replies, depth first (v2 lists top-level comments; replies are each comment's children). */
async function withReplies(ctx: Ctx, t: Target, type: 'footer' | 'inline', comments: CfComment[]): Promise<CfComment[]> {
  const out: CfComment[] = [];
  for (const c of comments) {
    out.push(c);
    const children = await listAll(ctx, t, `/wiki/api/v2/${type}-comments/${c.id}/children`, { limit: MAX, 'body-format': 'storage' }, cfComment);
    if (children.length > 0) out.push(...(await withReplies(ctx, t, type, children)));
  }
  return out;
}

interface Item {
  readonly kind: ContentKind;
  readonly content: CfContent;
  readonly acl: SourceAcl;
  readonly attachments: CfAttachment[];
  readonly comments: { type: 'footer' | 'inline'; comment: CfComment }[];
}

/** Reads what belongs to a page or blog post: its view restriction, attachments and (full sync) comments with replies. */
async function readItem(ctx: Ctx, t: Target, kind: ContentKind, content: CfContent, spaceAclValue: SourceAcl, withComments: boolean): Promise<Item> {
  const acl = (await readRestrictionAcl(ctx, t, content.id)) ?? spaceAclValue;
  const base = `/wiki/api/v2/${v2(kind)}/${content.id}`;
  const attachments = ctx.settings.include_attachments ? await listAll(ctx, t, `${base}/attachments`, { limit: MAX, status: 'current' }, cfAttachment) : [];
  const comments: Item['comments'] = [];
  if (withComments && ctx.settings.include_comments) {
    for (const type of ['footer', 'inline'] as const) {
      const top = await listAll(ctx, t, `${base}/${type}-comments`, { limit: MAX, 'body-format': 'storage' }, cfComment);
      for (const comment of await withReplies(ctx, t, type, top)) comments.push({ type, comment });
    }
  }
  return { kind, content, acl, attachments, comments };
}

function usersOf(items: readonly Item[]): string[] {
  return items.flatMap((i) => [
    i.content.authorId ?? '',
    ...mentionedUsers(i.content.body?.storage?.value ?? ''),
    ...i.comments.flatMap((c) => [c.comment.version?.authorId ?? '', ...mentionedUsers(c.comment.body?.storage?.value ?? '')]),
  ]);
}

function itemDocuments(item: Item, t: Target, space: SpaceRef, users: ReadonlyMap<string, CfUser>): SourceDocument[] {
  const m: MapContext = { site: t.site, space, acl: item.acl, users };
  const doc = contentToDocument(item.kind, item.content, m, item.attachments);
  const container: CommentContainer = { kind: item.kind, id: item.content.id, title: doc.title, url: doc.url };
  return [doc, ...item.comments.filter((c) => c.comment.status === undefined || c.comment.status === 'current').map((c) => commentToDocument(c.type, c.comment, container, m))];
}

const cursorOf = (p: ConfluencePage): ConfluenceCursor => ({ since: p.startedAt });

function kinds(settings: ConfluenceSettings): ContentKind[] {
  return settings.include_blog_posts ? ['page', 'blogpost'] : ['page'];
}

/** The next (space, kind) of a per-space phase, or null after the last. */
function advance(p: ConfluencePage, settings: ConfluenceSettings): Pick<ConfluencePage, 'index' | 'kind'> | null {
  const ks = kinds(settings);
  const k = ks.indexOf(p.kind);
  if (k >= 0 && k + 1 < ks.length) return { index: p.index, kind: ks[k + 1] ?? 'page' };
  return p.index + 1 < p.spaces.length ? { index: p.index + 1, kind: 'page' } : null;
}

async function setup(ctx: Ctx, p: ConfluencePage): Promise<Page<ConfluencePage, ConfluenceCursor>> {
  const target = await resolveTarget(ctx);
  const spaces = await listSpaces(ctx, target);
  const phase: ConfluencePage['phase'] = p.mode === 'full' ? 'content' : 'changes';
  const started = { ...p, startedAt: ctx.now.toISOString() };
  const next = phase === 'content' && spaces.length === 0 ? null : { ...started, phase, target, spaces, index: 0, kind: 'page' as const, next: null };
  return { documents: [], next, cursor: cursorOf(started) };
}

/** Full sync: one page of a space's pages or blog posts (current only), each with what belongs to it. */
async function content(ctx: Ctx, t: Target, p: ConfluencePage): Promise<Page<ConfluencePage, ConfluenceCursor>> {
  const current = p.spaces[p.index];
  if (!current) return { documents: [], next: null, cursor: cursorOf(p) };
  const { spaces, space } = await withAcl(ctx, t, p.spaces, current.id);
  if (!space?.acl) throw new Error(`space ${current.key} has no ACL`);
  const r = p.next
    ? await cfGet<Listing<unknown>>(ctx, t.base, p.next)
    : await cfGet<Listing<unknown>>(ctx, t.base, `/wiki/api/v2/spaces/${space.id}/${v2(p.kind)}`, { limit: PAGE_SIZE, status: 'current', 'body-format': 'storage' });
  const items: Item[] = [];
  for (const raw of r.results) items.push(await readItem(ctx, t, p.kind, cfContent.parse(raw), space.acl, true));
  const users = await lookupUsers(ctx, t, usersOf(items));
  const documents = items.flatMap((i) => itemDocuments(i, t, space, users));
  const link = nextPath(r._links?.next, 'v2', t.base);
  const moved = link ? null : advance({ ...p, spaces }, ctx.settings);
  const next = link ? { ...p, spaces, next: link } : moved ? { ...p, spaces, ...moved, next: null } : null;
  return { documents, next, cursor: cursorOf(p) };
}

/** CQL for what changed since the cursor: `now("-Nm")` is relative, so the site's time zone does not matter. */
export function changesCql(settings: ConfluenceSettings, since: Date, now: Date): string {
  const minutes = Math.max(1, Math.ceil((now.getTime() - since.getTime()) / 60_000)) + MARGIN_MINUTES;
  const types = ['page', ...(settings.include_blog_posts ? ['blogpost'] : []), ...(settings.include_comments ? ['comment'] : [])];
  const spaces = settings.spaces ? ` and space in (${settings.spaces.map((k) => `"${k}"`).join(',')})` : '';
  return `type in (${types.join(',')}) and lastmodified >= now("-${minutes}m")${spaces} order by lastmodified asc`;
}

const searchHit = z.object({
  content: z.object({ id: z.coerce.string(), type: z.string(), status: z.string().optional(), extensions: z.object({ location: z.string().optional() }).partial().optional() }).optional(),
});
interface ChangeResult {
  spaces: SpaceRef[];
  documents: SourceDocument[];
  deleted: string[];
}

/** A changed page or blog post, read again by id (v2) with its attachments and restriction; gone or trashed → deleted. */
async function changedContent(ctx: Ctx, t: Target, spaces: SpaceRef[], kind: ContentKind, contentId: string): Promise<ChangeResult> {
  const raw = await cfGetOrNull<unknown>(ctx, t.base, `/wiki/api/v2/${v2(kind)}/${contentId}`, { 'body-format': 'storage' });
  const c = raw ? cfContent.parse(raw) : null;
  if (!c || (c.status && c.status !== 'current')) return { spaces, documents: [], deleted: [`${kind}:${contentId}`] };
  const { spaces: next, space } = await withAcl(ctx, t, spaces, c.spaceId ?? '');
  if (!space?.acl) return { spaces: next, documents: [], deleted: [] };
  const item = await readItem(ctx, t, kind, c, space.acl, false);
  const users = await lookupUsers(ctx, t, usersOf([item]));
  return { spaces: next, documents: itemDocuments(item, t, space, users), deleted: [] };
}

/** A changed comment: v2 by id (inline or footer, as CQL's `extensions.location` says), with its page's ACL. */
async function changedComment(ctx: Ctx, t: Target, spaces: SpaceRef[], commentId: string, location: string | undefined): Promise<ChangeResult> {
  const order: ('footer' | 'inline')[] = location === 'inline' ? ['inline', 'footer'] : ['footer', 'inline'];
  let found: { type: 'footer' | 'inline'; comment: CfComment } | null = null;
  for (const type of order) {
    const raw = await cfGetOrNull<unknown>(ctx, t.base, `/wiki/api/v2/${type}-comments/${commentId}`, { 'body-format': 'storage' });
    if (raw) {
      found = { type, comment: cfComment.parse(raw) };
      break;
    }
  }
  const gone = { spaces, documents: [], deleted: [`comment:${commentId}`] };
  if (!found || (found.comment.status && found.comment.status !== 'current')) return gone;
  const kind: ContentKind = found.comment.pageId ? 'page' : 'blogpost';
  const containerId = found.comment.pageId ?? found.comment.blogPostId;
  if (!containerId) return gone;
  const rawContainer = await cfGetOrNull<unknown>(ctx, t.base, `/wiki/api/v2/${v2(kind)}/${containerId}`);
  const container = rawContainer ? cfContent.parse(rawContainer) : null;
  if (!container || (container.status && container.status !== 'current')) return gone;
  const { spaces: next, space } = await withAcl(ctx, t, spaces, container.spaceId ?? '');
  if (!space?.acl) return { spaces: next, documents: [], deleted: [] };
  const acl = (await readRestrictionAcl(ctx, t, container.id)) ?? space.acl;
  const users = await lookupUsers(ctx, t, [found.comment.version?.authorId ?? '', ...mentionedUsers(found.comment.body?.storage?.value ?? '')]);
  const m: MapContext = { site: t.site, space, acl, users };
  const page = contentToDocument(kind, container, m);
  return { spaces: next, documents: [commentToDocument(found.type, found.comment, { kind, id: container.id, title: page.title, url: page.url }, m)], deleted: [] };
}

/** Incremental: one page of the CQL search for pages, blog posts and comments modified since the cursor. */
async function changes(ctx: Ctx, t: Target, p: ConfluencePage): Promise<Page<ConfluencePage, ConfluenceCursor>> {
  const since = new Date(p.since ?? p.startedAt);
  const r = p.next
    ? await cfGet<Listing<unknown>>(ctx, t.base, p.next)
    : await cfGet<Listing<unknown>>(ctx, t.base, '/wiki/rest/api/search', { cql: changesCql(ctx.settings, since, new Date(p.startedAt)), limit: PAGE_SIZE });
  let spaces = p.spaces;
  const documents: SourceDocument[] = [];
  const deleted: string[] = [];
  for (const raw of r.results) {
    const hit = searchHit.parse(raw).content;
    if (!hit) continue;
    let res: ChangeResult | null = null;
    if (hit.type === 'page' || hit.type === 'blogpost') res = await changedContent(ctx, t, spaces, hit.type, hit.id);
    else if (hit.type === 'comment' && ctx.settings.include_comments) res = await changedComment(ctx, t, spaces, hit.id, hit.extensions?.location);
    if (!res) continue;
    spaces = res.spaces;
    documents.push(...res.documents);
    deleted.push(...res.deleted);
  }
  const link = nextPath(r._links?.next, 'v1', t.base);
  const next = link
    ? { ...p, spaces, next: link }
    : spaces.length > 0
      ? { ...p, spaces, phase: 'trash' as const, index: 0, kind: 'page' as const, next: null }
      : null;
  return { documents, deleted, next, cursor: cursorOf(p) };
}

/**
 * Incremental: a space's trash (pages or blog posts with status=trashed; CQL does not find trashed content). Each
 * trashed item is reported deleted (ids never stored are no-ops), with the stored comments on it.
 */
async function trash(ctx: Ctx, t: Target, p: ConfluencePage): Promise<Page<ConfluencePage, ConfluenceCursor>> {
  const space = p.spaces[p.index];
  if (!space) return { documents: [], next: null, cursor: cursorOf(p) };
  const r = p.next
    ? await cfGet<Listing<unknown>>(ctx, t.base, p.next)
    : await cfGet<Listing<unknown>>(ctx, t.base, `/wiki/api/v2/spaces/${space.id}/${v2(p.kind)}`, { limit: MAX, status: 'trashed' });
  const ids = r.results.map((x) => cfContent.parse(x).id);
  const deleted = ids.map((x) => `${p.kind}:${x}`);
  if (ids.length > 0 && ctx.settings.include_comments) {
    const comments = await ctx.stored('comment:');
    deleted.push(...comments.filter((c) => c.metadata.container_type === p.kind && ids.includes(String(c.metadata.container_id))).map((c) => c.external_id));
  }
  const link = nextPath(r._links?.next, 'v2', t.base);
  const moved = link ? null : advance(p, ctx.settings);
  const next = link ? { ...p, next: link } : moved ? { ...p, ...moved, next: null } : null;
  return { documents: [], deleted, next, cursor: cursorOf(p) };
}

async function readPage(ctx: Ctx, p: ConfluencePage): Promise<Page<ConfluencePage, ConfluenceCursor>> {
  if (p.phase === 'setup' || !p.target) return setup(ctx, p);
  if (p.phase === 'content') return content(ctx, p.target, p);
  if (p.phase === 'changes') return changes(ctx, p.target, p);
  return trash(ctx, p.target, p);
}

export const confluenceSync: SyncCapability<ConfluenceCredentials, ConfluenceSettings, ConfluenceCursor, ConfluencePage> = {
  cursorSchema: confluenceCursor,
  pageSchema: confluencePage,
  start(mode: SyncMode, since: ConfluenceCursor | null): ConfluencePage {
    // A sync with no cursor yet reads everything; start() has no clock, so startedAt is set by setup's first read.
    const incremental = mode === 'incremental' && since !== null;
    return { mode: incremental ? 'incremental' : 'full', phase: 'setup', target: null, spaces: [], index: 0, kind: 'page', next: null, since: incremental ? since.since : null, startedAt: '' };
  },
  readPage,
};
