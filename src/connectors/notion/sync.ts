import { z } from 'zod';
import type { Page, SourceContext, SourceDocument, SyncCapability, SyncMode } from '../kit/index.ts';
import { notionCall } from './client.ts';
import { commentToDocument, dataSourceToDocument, isGone, isRow, laterIso, type NotionComment, type NotionDataSource, type NotionPage, pageToDocument, type Users } from './map.ts';
import { type BlockNode, type NotionBlock, OWN_OBJECT_TYPES, plain, renderBlock } from './render.ts';
import type { NotionCredentials, NotionSettings } from './schemas.ts';

type Ctx = SourceContext<NotionCredentials, NotionSettings>;

// Small pages: each page of results reads every page's blocks and comments at 3 requests/second, and the engine checkpoints per page.
const PAGE_SIZE = 10;

interface List<T> {
  readonly object: 'list';
  readonly results: T[];
  readonly next_cursor: string | null;
  readonly has_more: boolean;
}

export const notionPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'pages', 'sources', 'rows']),
  users: z.record(z.string(), z.string()),
  cursor: z.string().nullable(),
  sources: z.array(z.string()),
  index: z.number().int(),
  /** Edits at or after this instant are read (inclusive: Notion rounds last_edited_time to the minute). */
  since: z.string().nullable(),
  maxEdited: z.string().nullable(),
});
export type NotionPageState = z.infer<typeof notionPage>;
/** The incremental cursor: the last_edited_time high-water mark of everything read. */
export const notionCursor = z.object({ last_edited_time: z.string().nullable() });
export type NotionCursor = z.infer<typeof notionCursor>;

const cursorOf = (p: NotionPageState): NotionCursor => ({ last_edited_time: p.maxEdited });

/** All pages of a paginated list (block children, comments, users). */
async function readAll<T>(ctx: Ctx, call: (cursor: string | undefined) => Promise<List<T>>): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const r = await call(cursor);
    out.push(...r.results);
    cursor = r.has_more && r.next_cursor ? r.next_cursor : undefined;
  } while (cursor && !ctx.signal.aborted);
  return out;
}

/** A block's children, recursively, down to `depth` levels; child pages and databases are separate documents. */
export async function readBlockTree(ctx: Ctx, blockId: string, depth: number): Promise<BlockNode[]> {
  const blocks = await readAll<NotionBlock>(ctx, (start_cursor) =>
    notionCall(ctx, (c) => c.blocks.children.list({ block_id: blockId, page_size: 100, ...(start_cursor ? { start_cursor } : {}) })),
  );
  const out: BlockNode[] = [];
  for (const block of blocks) {
    const descend = block.has_children === true && depth > 1 && !OWN_OBJECT_TYPES.has(block.type);
    out.push({ block, children: descend ? await readBlockTree(ctx, block.id, depth - 1) : [] });
  }
  return out;
}

/**
 * Block types that never hold a discussion of their own: layout containers, references to other objects (their
 * comments belong to that object), and decorations without content.
 */
const NO_DISCUSSION_TYPES = new Set([
  'child_page',
  'child_database',
  'link_to_page',
  'column_list',
  'column',
  'table',
  'synced_block',
  'divider',
  'breadcrumb',
  'table_of_contents',
  'template',
  'unsupported',
]);

/** Whether a block can carry a discussion: content of its own (non-empty text, a table row, media, an embed, an equation). */
export function canCarryComments(b: NotionBlock): boolean {
  if (NO_DISCUSSION_TYPES.has(b.type)) return false;
  const body = b[b.type] as { rich_text?: unknown } | undefined;
  if (body && Array.isArray(body.rich_text)) return plain(body.rich_text).trim() !== '';
  const own = renderBlock(b, 1);
  return own !== null && own.trim() !== '';
}

/** The blocks of a tree (depth first, document order) that can carry comments. */
export function commentableBlocks(nodes: readonly BlockNode[]): NotionBlock[] {
  return nodes.flatMap((n) => [...(canCarryComments(n.block) ? [n.block] : []), ...commentableBlocks(n.children)]);
}

const listComments = (ctx: Ctx, blockId: string) =>
  readAll<NotionComment>(ctx, (start_cursor) => notionCall(ctx, (c) => c.comments.list({ block_id: blockId, page_size: 100, ...(start_cursor ? { start_cursor } : {}) })));

/**
 * A live page (with its blocks) and its comments as documents. Notion lists comments per parent: the page's own
 * discussions with `block_id=<page>`, each block's inline discussions with `block_id=<block>`. So include_comments
 * costs 1 + (blocks that can carry comments) requests per page read (just 1 with include_block_comments off), each
 * paginated; pages are read only when they changed (incremental) or in a full sync.
 */
async function pageDocuments(ctx: Ctx, page: NotionPage, users: Users): Promise<SourceDocument[]> {
  const blocks = await readBlockTree(ctx, page.id, ctx.settings.max_depth);
  const docs = [pageToDocument(page, blocks, users)];
  if (ctx.settings.include_comments) {
    const seen = new Set<string>();
    const blockTargets = ctx.settings.include_block_comments ? commentableBlocks(blocks).map((b) => b.id) : [];
    for (const target of [page.id, ...blockTargets]) {
      for (const cm of await listComments(ctx, target)) {
        if (seen.has(cm.id)) continue;
        seen.add(cm.id);
        docs.push(commentToDocument(cm, page, users));
      }
    }
  }
  return docs;
}

/** Splits a batch of pages into documents and removals (archived pages, unless sync_archived). */
async function pagesBatch(ctx: Ctx, pages: NotionPage[], users: Users): Promise<{ documents: SourceDocument[]; deleted: string[] }> {
  const documents: SourceDocument[] = [];
  const deleted: string[] = [];
  for (const page of pages) {
    if (isGone(page) && !ctx.settings.sync_archived) deleted.push(`page:${page.id}`);
    else documents.push(...(await pageDocuments(ctx, page, users)));
  }
  return { documents, deleted };
}

function afterPages(p: NotionPageState, s: NotionSettings): NotionPageState | null {
  return s.include_databases ? { ...p, phase: 'sources', cursor: null } : null;
}

function nextSource(p: NotionPageState, index: number): NotionPageState | null {
  return index < p.sources.length ? { ...p, phase: 'rows', index, cursor: null } : null;
}

async function readPage(ctx: Ctx, p: NotionPageState): Promise<Page<NotionPageState, NotionCursor>> {
  if (p.phase === 'setup') {
    // Names for created_by / last_edited_by; an integration without user capabilities keeps the ids.
    let users: Users = {};
    try {
      const list = await readAll<{ id: string; name?: string | null }>(ctx, (start_cursor) => notionCall(ctx, (c) => c.users.list({ page_size: 100, ...(start_cursor ? { start_cursor } : {}) })));
      users = Object.fromEntries(list.filter((u) => u.name).map((u) => [u.id, String(u.name)]));
    } catch (err) {
      if (!(err instanceof Error && 'code' in err && err.code === 'restricted_resource')) throw err;
    }
    return { documents: [], next: { ...p, phase: 'pages', users, cursor: null }, cursor: cursorOf(p) };
  }

  if (p.phase === 'pages' || p.phase === 'sources') {
    const value = p.phase === 'pages' ? 'page' : 'data_source';
    const r = await notionCall<List<NotionPage | NotionDataSource>>(ctx, (c) =>
      c.search({
        filter: { property: 'object', value },
        sort: { timestamp: 'last_edited_time', direction: 'descending' },
        page_size: PAGE_SIZE,
        ...(p.cursor ? { start_cursor: p.cursor } : {}),
      }),
    );
    const maxEdited = r.results.reduce<string | null>((m, o) => laterIso(m, o.last_edited_time), p.maxEdited);
    const more = r.has_more && r.next_cursor ? r.next_cursor : null;
    if (p.phase === 'pages') {
      // Newest first: an incremental sync stops at the first page edited before the cursor.
      const fresh = (r.results as NotionPage[]).filter((x) => x.object === 'page' && (p.since === null || x.last_edited_time >= p.since));
      const reachedOld = fresh.length < r.results.length;
      // Database rows are read per data source (phase rows) when databases are included, skipped otherwise.
      const { documents, deleted } = await pagesBatch(ctx, fresh.filter((x) => !isRow(x)), p.users);
      const state = { ...p, maxEdited };
      const next = more && !reachedOld ? { ...state, cursor: more } : afterPages(state, ctx.settings);
      return { documents, deleted, next, cursor: cursorOf(state) };
    }
    // Every data source is listed (rows can change without the database changing); its own document when edited.
    const sources = (r.results as NotionDataSource[]).filter((x) => x.object === 'data_source');
    const live = sources.filter((x) => !isGone(x) || ctx.settings.sync_archived);
    const documents = live.filter((x) => p.since === null || x.last_edited_time >= p.since).map((x) => dataSourceToDocument(x, p.users));
    const deleted = sources.filter((x) => !live.includes(x)).map((x) => `database:${x.id}`);
    const state = { ...p, maxEdited, sources: [...p.sources, ...live.map((x) => x.id)] };
    const next = more ? { ...state, cursor: more } : nextSource(state, 0);
    return { documents, deleted, next, cursor: cursorOf(state) };
  }

  const sourceId = p.sources[p.index];
  if (!sourceId) return { documents: [], next: null, cursor: cursorOf(p) };
  const r = await notionCall<List<NotionPage>>(ctx, (c) =>
    c.dataSources.query({
      data_source_id: sourceId,
      sorts: [{ timestamp: 'last_edited_time', direction: 'descending' }],
      ...(p.since ? { filter: { timestamp: 'last_edited_time', last_edited_time: { on_or_after: p.since } } } : {}),
      ...(ctx.settings.sync_archived ? { in_trash: true } : {}),
      page_size: PAGE_SIZE,
      ...(p.cursor ? { start_cursor: p.cursor } : {}),
    }),
  );
  const rows = r.results.filter((x) => x.object === 'page');
  const maxEdited = rows.reduce<string | null>((m, o) => laterIso(m, o.last_edited_time), p.maxEdited);
  const { documents, deleted } = await pagesBatch(ctx, rows, p.users);
  const state = { ...p, maxEdited };
  const next = r.has_more && r.next_cursor ? { ...state, cursor: r.next_cursor } : nextSource(state, p.index + 1);
  return { documents, deleted, next, cursor: cursorOf(state) };
}

export const notionSync: SyncCapability<NotionCredentials, NotionSettings, NotionCursor, NotionPageState> = {
  cursorSchema: notionCursor,
  pageSchema: notionPage,
  start(mode: SyncMode, since: NotionCursor | null): NotionPageState {
    const mark = since?.last_edited_time ?? null;
    return { mode, phase: 'setup', users: {}, cursor: null, sources: [], index: 0, since: mode === 'incremental' ? mark : null, maxEdited: mark };
  },
  readPage,
};
