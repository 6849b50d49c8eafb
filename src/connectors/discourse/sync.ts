import { z } from 'zod';
import type { Page, SourceDocument, SyncCapability, SyncMode } from '../kit/index.ts';
import { type DiscourseCtx, discourseGet, discourseJson } from './client.ts';
import {
  type CategoryRef,
  categoryRef,
  categoryToDocument,
  type DiscourseCategory,
  type DiscoursePost,
  discourseCategory,
  discoursePost,
  discourseTopic,
  topicExternalId,
  topicList,
  topicToDocument,
} from './map.ts';
import { readCategoryReaders } from './members.ts';
import type { DiscourseCredentials, DiscourseSettings } from './schemas.ts';

/** Topics read per sync page (each is `/t/{id}.json` plus one call per 20 further posts). */
const TOPICS_PER_PAGE = 5;
/** Post ids asked for per `/t/{id}/posts.json` call (Discourse's own chunk size). */
const POST_CHUNK = 20;

export const discourseSyncPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['categories', 'posts', 'latest', 'list', 'topics']),
  runAt: z.string().nullable(),
  /** The previous run's start: topics bumped after it are read again (incremental). */
  since: z.string().nullable(),
  /** The highest post id the previous run saw: newer posts name topics to read again (incremental). */
  lastPostId: z.number().nullable(),
  /** The highest post id seen now (the next cursor). */
  maxPostId: z.number().nullable(),
  cats: z.array(categoryRef),
  /** Categories whose topic lists are still to read (full), the current one first. */
  queue: z.array(z.number()),
  /** The current list's `more_topics_url`, or null for its first page. */
  listUrl: z.string().nullable(),
  latestPage: z.number(),
  postsBefore: z.number().nullable(),
  /** Topic ids to read, in order. */
  topics: z.array(z.number()),
});
export type DiscourseSyncPage = z.infer<typeof discourseSyncPage>;

export const discourseCursor = z.object({ since: z.string().nullable(), last_post_id: z.number().nullable() });
export type DiscourseCursor = z.infer<typeof discourseCursor>;

type Result = Page<DiscourseSyncPage, DiscourseCursor>;

const categoriesAnswer = z.object({ category_list: z.object({ categories: z.array(discourseCategory) }) });
const latestPosts = z.object({ latest_posts: z.array(discoursePost.extend({ topic_id: z.number(), category_id: z.number().nullish() })) });
const postsAnswer = z.object({ post_stream: z.object({ posts: z.array(discoursePost) }) });

const cursorOf = (p: DiscourseSyncPage): DiscourseCursor => ({ since: p.runAt, last_post_id: p.maxPostId ?? p.lastPostId });
const site = (ctx: DiscourseCtx) => ctx.settings.site_url;

/** Every category, subcategories after their parent, narrowed to the `categories` setting (with their subcategories). */
function selectCategories(all: readonly DiscourseCategory[], wanted: DiscourseSettings['categories']): { ref: CategoryRef; c: DiscourseCategory }[] {
  const flat: { ref: CategoryRef; c: DiscourseCategory }[] = [];
  for (const c of all) {
    flat.push({ ref: { id: c.id, name: c.name, slug: c.slug, restricted: c.read_restricted, parent: null }, c });
    for (const s of c.subcategory_list ?? []) flat.push({ ref: { id: s.id, name: s.name, slug: s.slug, restricted: s.read_restricted, parent: c.name }, c: { ...s, parent_category_id: c.id } });
  }
  if (!wanted) return flat;
  const hit = (c: DiscourseCategory) => wanted.some((w) => w === c.id || w === c.slug);
  const parents = new Set(flat.filter((x) => hit(x.c)).map((x) => x.c.id));
  return flat.filter((x) => parents.has(x.c.id) || (x.c.parent_category_id != null && parents.has(x.c.parent_category_id)));
}

function addTopics(p: DiscourseSyncPage, ids: readonly number[]): number[] {
  const out = [...p.topics];
  for (const id of ids) if (!out.includes(id)) out.push(id);
  return out;
}

function selected(p: DiscourseSyncPage, categoryId: number | null | undefined): CategoryRef | undefined {
  return p.cats.find((c) => c.id === categoryId);
}

async function categoriesPage(ctx: DiscourseCtx, p: DiscourseSyncPage): Promise<Result> {
  const r = categoriesAnswer.parse(await discourseGet<unknown>(ctx, '/categories.json', { include_subcategories: true }));
  const cats = selectCategories(r.category_list.categories, ctx.settings.categories);
  const documents = cats.map(({ ref, c }) => categoryToDocument(site(ctx), ref, c.description_text));
  let deleted: string[] = [];
  if (p.mode === 'incremental') {
    const listed = new Set(documents.map((d) => d.external_id));
    deleted = (await ctx.stored('category:')).map((s) => s.external_id).filter((id) => !listed.has(id));
  }
  const next: DiscourseSyncPage = { ...p, phase: 'posts', cats: cats.map((x) => x.ref), queue: cats.map((x) => x.ref.id) };
  // Who reads each read-restricted category, re-read on every sync.
  const members = await readCategoryReaders(ctx, cats.filter((x) => x.ref.restricted).map((x) => x.ref.id));
  return { documents, deleted, ...members, next, cursor: cursorOf(p) };
}

/** `/posts.json`: the newest posts, by id descending (`before` pages back). Gives the cursor's post id; incremental: topics with new posts. */
async function postsPage(ctx: DiscourseCtx, p: DiscourseSyncPage): Promise<Result> {
  const r = latestPosts.parse(await discourseGet<unknown>(ctx, '/posts.json', { before: p.postsBefore }));
  const ids = r.latest_posts.map((x) => x.id);
  const maxPostId = Math.max(p.maxPostId ?? 0, ...ids) || null;
  if (p.mode === 'full' || p.lastPostId === null) return { documents: [], next: { ...p, maxPostId, phase: 'list' }, cursor: cursorOf({ ...p, maxPostId }) };
  const fresh = r.latest_posts.filter((x) => x.id > (p.lastPostId ?? 0) && selected(p, x.category_id));
  const here = { ...p, maxPostId, topics: addTopics(p, fresh.map((x) => x.topic_id)) };
  const oldest = Math.min(...ids);
  const more = ids.length > 0 && oldest > p.lastPostId;
  return { documents: [], next: more ? { ...here, postsBefore: oldest } : { ...here, phase: 'latest' }, cursor: cursorOf(here) };
}

/** `/latest.json?order=activity`: topics by last bump, newest first, until one was bumped before the previous run. */
async function latestPage(ctx: DiscourseCtx, p: DiscourseSyncPage): Promise<Result> {
  const r = topicList.parse(await discourseGet<unknown>(ctx, '/latest.json', { order: 'activity', page: p.latestPage || undefined }));
  const since = Date.parse(p.since ?? '');
  const newer = (bumped: string | null | undefined) => !bumped || Number.isNaN(since) || Date.parse(bumped) >= since;
  const topics = r.topic_list.topics.filter((t) => t.archetype !== 'private_message' && newer(t.bumped_at) && selected(p, t.category_id));
  const here = { ...p, topics: addTopics(p, topics.map((t) => t.id)) };
  // Pinned topics head the list whatever their age: the last unpinned topic says whether older pages can hold more.
  const last = r.topic_list.topics.filter((t) => !t.pinned).at(-1);
  const more = Boolean(r.topic_list.more_topics_url) && last !== undefined && newer(last.bumped_at);
  return { documents: [], next: more ? { ...here, latestPage: p.latestPage + 1 } : { ...here, phase: 'topics' }, cursor: cursorOf(p) };
}

/** A category's topic list (`/c/{slug}/{id}.json`, then its `more_topics_url`), its own topics only (subcategories are listed on their own). */
async function listPage(ctx: DiscourseCtx, p: DiscourseSyncPage): Promise<Result> {
  const cat = selected(p, p.queue[0]);
  if (!cat) return { documents: [], next: p.topics.length ? { ...p, phase: 'topics' } : null, cursor: cursorOf(p) };
  const r = topicList.parse(await discourseGet<unknown>(ctx, p.listUrl ?? `/c/${encodeURIComponent(cat.slug)}/${cat.id}.json`));
  const own = r.topic_list.topics.filter((t) => t.category_id === cat.id && t.archetype !== 'private_message').map((t) => t.id);
  const more = r.topic_list.more_topics_url ?? null;
  const here: DiscourseSyncPage = { ...p, topics: addTopics(p, own), listUrl: more, queue: more ? p.queue : p.queue.slice(1) };
  const next = here.topics.length > 0 ? { ...here, phase: 'topics' as const } : here.queue.length > 0 ? here : null;
  return { documents: [], next, cursor: cursorOf(p) };
}

/** Every post of a topic: the first chunk came with the topic; the rest by id, 20 at a time. */
async function allPosts(ctx: DiscourseCtx, topicId: number, first: readonly DiscoursePost[], stream: readonly number[]): Promise<DiscoursePost[]> {
  const have = new Set(first.map((x) => x.id));
  const missing = stream.filter((id) => !have.has(id));
  const posts = [...first];
  for (let i = 0; i < missing.length; i += POST_CHUNK) {
    const r = postsAnswer.parse(await discourseGet<unknown>(ctx, `/t/${topicId}/posts.json`, { post_ids: missing.slice(i, i + POST_CHUNK) }));
    posts.push(...r.post_stream.posts);
  }
  return posts;
}

async function topicsPage(ctx: DiscourseCtx, p: DiscourseSyncPage): Promise<Result> {
  const batch = p.topics.slice(0, TOPICS_PER_PAGE);
  const documents: SourceDocument[] = [];
  const deleted: string[] = [];
  for (const id of batch) {
    const raw = await discourseJson<unknown>(ctx, `/t/${id}.json`, { missingOk: true });
    // 404 (deleted, or no longer readable by the API user) and a topic staff still see with `deleted_at` are gone.
    const t = raw === null ? null : discourseTopic.parse(raw);
    const cat = t ? selected(p, t.category_id) : undefined;
    if (!t || t.deleted_at || !cat || t.archetype === 'private_message') {
      deleted.push(topicExternalId(id));
      continue;
    }
    const posts = await allPosts(ctx, id, t.post_stream.posts, t.post_stream.stream ?? []);
    documents.push(topicToDocument(site(ctx), t, posts, cat));
  }
  const rest = p.topics.slice(batch.length);
  const here: DiscourseSyncPage = { ...p, topics: rest };
  const next = rest.length > 0 ? here : p.mode === 'full' && p.queue.length > 0 ? { ...here, phase: 'list' as const } : null;
  return { documents, deleted, next, cursor: cursorOf(p) };
}

export const discourseSync: SyncCapability<DiscourseCredentials, DiscourseSettings, DiscourseCursor, DiscourseSyncPage> = {
  cursorSchema: discourseCursor,
  pageSchema: discourseSyncPage,
  start(mode: SyncMode, since: DiscourseCursor | null): DiscourseSyncPage {
    // Without a cursor an incremental sync has nothing to compare with: it reads everything, as a full one does.
    const effective = mode === 'incremental' && since?.since && since.last_post_id !== null ? 'incremental' : 'full';
    return {
      mode: effective,
      phase: 'categories',
      runAt: null,
      since: since?.since ?? null,
      lastPostId: since?.last_post_id ?? null,
      maxPostId: null,
      cats: [],
      queue: [],
      listUrl: null,
      latestPage: 0,
      postsBefore: null,
      topics: [],
    };
  },
  async readPage(ctx, page) {
    const p = page.runAt ? page : { ...page, runAt: ctx.now.toISOString() };
    if (p.phase === 'categories') return categoriesPage(ctx, p);
    if (p.phase === 'posts') return postsPage(ctx, p);
    if (p.phase === 'latest') return latestPage(ctx, p);
    if (p.phase === 'list') return listPage(ctx, p);
    return topicsPage(ctx, p);
  },
};

