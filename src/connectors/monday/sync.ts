import { z } from 'zod';
import type { Page, SourceDocument, SourceIdentities, SyncCapability, SyncMode } from '../kit/index.ts';
import { getMe, type MondayCtx, mondayQuery } from './client.ts';
import { type Board, board, boardAcl, boardGroup, boardToDocument, externalIds, iso, item, itemToDocument, personRef, updateToDocument } from './map.ts';
import type { MondayCredentials, MondaySettings } from './schemas.ts';

const BOARDS_PAGE = 25;
/** Items a page (monday allows up to 500; their nested updates weigh on the query's complexity). */
const ITEMS_PAGE = 100;
const UPDATES_PER_ITEM = 100;
const DAY_MS = 86_400_000;

const acl = z.object({ public: z.boolean().optional(), groups: z.array(z.string()).readonly().optional() });
const place = z.object({ id: z.string(), name: z.string(), acl });

export const mondayPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'boards', 'items']),
  startedAt: z.string().nullable(),
  slug: z.string().nullable(),
  boardPage: z.number().int(),
  /** Boards read so far (with their ACL), whose items are read next. */
  boards: z.array(place),
  boardIndex: z.number().int(),
  /** monday's items cursor (valid 60 minutes), null = the board's first page. */
  itemsCursor: z.string().nullable(),
  since: z.string().nullable(),
  seen: z.string().nullable(),
});
export type MondayPage = z.infer<typeof mondayPage>;
export const mondayCursor = z.object({ since: z.string() });
export type MondayCursor = z.infer<typeof mondayCursor>;

export function cursorOf(p: MondayPage): MondayCursor | null {
  if (!p.startedAt) return null;
  const v = p.seen ?? p.since ?? p.startedAt;
  return { since: Date.parse(v) > Date.parse(p.startedAt) ? p.startedAt : v };
}

/**
 * The `items_page` filter of an incremental read. monday filters the last-updated column by date (`EXACT`
 * `YYYY-MM-DD`, developer.monday.com/api-reference/docs/last-updated), not by instant: the read asks for items updated
 * after the day before the cursor's day, and items already stored at the same `updated_at` are skipped.
 */
export function updatedSinceQuery(since: string): Record<string, unknown> {
  const day = new Date(Date.parse(since) - DAY_MS).toISOString().slice(0, 10);
  return { rules: [{ column_id: '__last_updated__', compare_value: ['EXACT', day], operator: 'greater_than', compare_attribute: 'UPDATED_AT' }] };
}

const BOARDS = `query ($page: Int!, $limit: Int!, $ids: [ID!], $workspaces: [ID]) {
  boards(page: $page, limit: $limit, ids: $ids, workspace_ids: $workspaces, state: active, order_by: created_at) {
    id name description board_kind type state updated_at url
    workspace { id name }
    owners { id name email }
    subscribers { id name email }
  }
}`;

const ITEM_FIELDS = `cursor items {
  id name created_at updated_at url
  creator { id name email }
  group { id title }
  column_values { id text type column { title } }
  updates(limit: ${UPDATES_PER_ITEM}) { id text_body created_at updated_at creator { id name email } replies { id text_body created_at creator { id name email } } }
}`;
const FIRST_ITEMS = `query ($board: [ID!], $limit: Int!, $qp: ItemsQuery) { boards(ids: $board) { items_page(limit: $limit, query_params: $qp) { ${ITEM_FIELDS} } } }`;
const NEXT_ITEMS = `query ($cursor: String!, $limit: Int!) { next_items_page(cursor: $cursor, limit: $limit) { ${ITEM_FIELDS} } }`;
const itemsPage = z.object({ cursor: z.string().nullish(), items: z.array(item) });

function nextBoard(p: MondayPage, index: number): MondayPage | null {
  return index < p.boards.length ? { ...p, phase: 'items', boardIndex: index, itemsCursor: null } : null;
}

/** Stored ids under `prefix` whose board vanished. */
async function ofBoards(ctx: MondayCtx, prefix: string, gone: ReadonlySet<string>): Promise<string[]> {
  return (await ctx.stored(prefix)).filter((r) => gone.has(String(r.metadata.board_id))).map((r) => r.external_id);
}

async function readBoards(ctx: MondayCtx, p: MondayPage): Promise<Page<MondayPage, MondayCursor>> {
  const s = ctx.settings;
  const r = await mondayQuery(ctx, BOARDS, { page: p.boardPage, limit: BOARDS_PAGE, ids: s.board_ids ?? null, workspaces: s.workspace_ids ?? null }, z.object({ boards: z.array(board.nullable()).default([]) }));
  const page = r.boards;
  // Subitem boards and Docs are listed as boards too: only real boards are synced.
  const boards = page.filter((b): b is Board => Boolean(b) && (!b?.type || b.type === 'board'));
  const documents: SourceDocument[] = boards.map((b) => boardToDocument(p.slug, b));
  const accounts = new Map<string, { account_id: string; email: string | null; display_name: string | null }>();
  const groups: { group_id: string; members: string[] }[] = [];
  for (const b of boards) {
    const people = [...b.owners, ...b.subscribers].filter((x) => x !== null);
    for (const u of people) accounts.set(u.id, { account_id: `monday:${u.id}`, email: u.email?.toLowerCase() ?? null, display_name: u.name ?? null });
    // Private and shareable boards are open to their subscribers (members and owners): mirrored as the board's group.
    if (b.board_kind !== 'public') groups.push({ group_id: boardGroup(b.id), members: [...new Set(people.map((u) => personRef(u) ?? `monday:${u.id}`))] });
  }
  const identities: SourceIdentities = { accounts: [...accounts.values()], groups };
  const here: MondayPage = { ...p, boards: [...p.boards, ...boards.map((b) => ({ id: b.id, name: b.name, acl: boardAcl(b) }))] };
  if (page.length >= BOARDS_PAGE) {
    const next = { ...here, boardPage: p.boardPage + 1 };
    return { documents, identities, next, cursor: cursorOf(next) };
  }
  // Every board is listed each sync: an incremental one deletes the boards gone since, with their items and updates.
  let deleted: string[] = [];
  if (p.mode === 'incremental') {
    const live = new Set(here.boards.map((b) => b.id));
    const gone = new Set((await ctx.stored('board:')).map((r) => String(r.metadata.board_id)).filter((id) => !live.has(id)));
    if (gone.size > 0) deleted = [...[...gone].map((id) => externalIds.board(id)), ...(await ofBoards(ctx, 'item:', gone)), ...(await ofBoards(ctx, 'update:', gone))];
  }
  const next = nextBoard(here, 0);
  return { documents, identities, deleted, next, cursor: cursorOf(next ?? here) };
}

async function readItems(ctx: MondayCtx, p: MondayPage): Promise<Page<MondayPage, MondayCursor>> {
  const b = p.boards[p.boardIndex];
  if (!b) return { documents: [], next: null, cursor: cursorOf(p) };
  const incremental = p.mode === 'incremental' && p.since !== null;
  let pg: z.infer<typeof itemsPage>;
  if (p.itemsCursor) {
    pg = (await mondayQuery(ctx, NEXT_ITEMS, { cursor: p.itemsCursor, limit: ITEMS_PAGE }, z.object({ next_items_page: itemsPage }))).next_items_page;
  } else {
    const qp = incremental && p.since ? updatedSinceQuery(p.since) : null;
    const r = await mondayQuery(ctx, FIRST_ITEMS, { board: [b.id], limit: ITEMS_PAGE, qp }, z.object({ boards: z.array(z.object({ items_page: itemsPage })) }));
    pg = r.boards[0]?.items_page ?? { cursor: null, items: [] };
  }
  const where = { boardId: b.id, boardName: b.name, slug: p.slug, acl: b.acl };
  const documents: SourceDocument[] = [];
  const deleted: string[] = [];
  let seen = p.seen;
  for (const i of pg.items) {
    const modified = iso(i.updated_at);
    if (modified && (!seen || Date.parse(modified) > Date.parse(seen))) seen = modified;
    if (incremental && p.since && modified && Date.parse(modified) <= Date.parse(p.since)) {
      const ext = externalIds.item(i.id);
      // The day-precision filter brings back items stored at this version: nothing to do for them.
      if ((await ctx.stored(ext)).find((s) => s.external_id === ext)?.metadata.modified === modified) continue;
    }
    documents.push(itemToDocument(i, where));
    if (!ctx.settings.include_updates) continue;
    const updates = (i.updates ?? []).filter((u) => u.text_body?.trim() || (u.replies ?? []).length > 0);
    documents.push(...updates.map((u) => updateToDocument(i, u, where)));
    if (incremental) {
      const live = new Set(updates.map((u) => externalIds.update(i.id, u.id)));
      deleted.push(...(await ctx.stored(`update:${i.id}:`)).map((s) => s.external_id).filter((id) => !live.has(id)));
    }
  }
  const here: MondayPage = { ...p, seen };
  const next = pg.cursor ? { ...here, itemsCursor: pg.cursor } : nextBoard(here, p.boardIndex + 1);
  return { documents, deleted, next, cursor: cursorOf(next ?? here) };
}

async function readPage(ctx: MondayCtx, p: MondayPage): Promise<Page<MondayPage, MondayCursor>> {
  if (p.phase === 'setup') {
    const me = await getMe(ctx);
    const next: MondayPage = { ...p, phase: 'boards', slug: me.account.slug ?? null, startedAt: ctx.now.toISOString(), boardPage: 1 };
    return { documents: [], next, cursor: cursorOf(next) };
  }
  if (p.phase === 'boards') return readBoards(ctx, p);
  return readItems(ctx, p);
}

export const mondaySync: SyncCapability<MondayCredentials, MondaySettings, MondayCursor, MondayPage> = {
  cursorSchema: mondayCursor,
  pageSchema: mondayPage,
  start(mode: SyncMode, since: MondayCursor | null): MondayPage {
    return { mode, phase: 'setup', startedAt: null, slug: null, boardPage: 1, boards: [], boardIndex: 0, itemsCursor: null, since: mode === 'incremental' ? (since?.since ?? null) : null, seen: null };
  },
  readPage,
};
