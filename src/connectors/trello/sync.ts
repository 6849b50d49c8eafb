import { z } from 'zod';
import type { Page, SourceDocument, SourceIdentities, SyncCapability, SyncMode } from '../kit/index.ts';
import { type TrelloCtx, trelloJson } from './client.ts';
import {
  BOARD_FIELDS,
  boardGroup,
  boardToDocument,
  CARD_FIELDS,
  CREATE_ACTIONS,
  cardExternalId,
  cardToDocument,
  type TrelloAction,
  trelloAccount,
  trelloAction,
  trelloBoard,
  trelloCard,
  trelloList,
} from './map.ts';
import type { TrelloCredentials, TrelloSettings } from './schemas.ts';

/** Trello's largest page of actions. */
const ACTION_PAGE = 1000;
/** The next incremental sync reads activity from a minute before the newest `dateLastActivity` seen (Trello's clock). */
const OVERLAP_MS = 60_000;

export const trelloPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['boards', 'board']),
  /** The stored cursor (incremental), else null: cards and boards active since then are re-read. */
  since: z.string().nullable(),
  /** The newest `dateLastActivity` read so far in this sync. */
  high: z.string().nullable(),
  boards: z.array(trelloBoard),
  index: z.number().int().min(0),
});
export type TrelloPage = z.infer<typeof trelloPage>;

export const trelloCursor = z.object({ since: z.string().nullable() });
export type TrelloCursor = z.infer<typeof trelloCursor>;

const later = (a: string | null, b: string | null): string | null => (!a ? b : !b ? a : Date.parse(a) >= Date.parse(b) ? a : b);

export function cursorOf(p: Pick<TrelloPage, 'since' | 'high'>): TrelloCursor {
  const back = p.high ? new Date(Date.parse(p.high) - OVERLAP_MS).toISOString() : null;
  return { since: later(p.since, back) };
}

/** Whether something last active at `at` may have changed since `since` (unknown activity counts as changed). */
export const activeSince = (at: string | null | undefined, since: string | null): boolean => !since || !at || Date.parse(at) >= Date.parse(since);

const actionFilter = (ctx: TrelloCtx): string => [...(ctx.settings.include_comments ? ['commentCard'] : []), ...CREATE_ACTIONS].join(',');

/** The member boards (`GET /1/members/me/boards`) and their memberships (identity directory: `trello:board:<id>`). */
async function boardsPage(ctx: TrelloCtx, p: TrelloPage): Promise<Page<TrelloPage, TrelloCursor>> {
  const raw = z.array(z.unknown()).parse(await trelloJson<unknown>(ctx, '/1/members/me/boards', { filter: ctx.settings.include_closed_boards ? 'all' : 'open', fields: BOARD_FIELDS }));
  const wanted = ctx.settings.boards;
  const boards = raw.map((b) => trelloBoard.parse(b)).filter((b) => (!wanted || wanted.includes(b.id)) && (ctx.settings.include_closed_boards || !b.closed));
  const identities: SourceIdentities = {
    groups: boards.filter((b) => b.memberships).map((b) => ({ group_id: boardGroup(b.id), members: (b.memberships ?? []).filter((m) => !m.deactivated).map((m) => trelloAccount(m.idMember)) })),
  };
  return { documents: [], identities, next: boards.length ? { ...p, phase: 'board', boards, index: 0 } : null, cursor: cursorOf(p) };
}

/**
 * Every action of a board of the given types, newest first, paged backwards with `before=<oldest id>` until a page
 * comes back empty (a page shorter than `limit` is not taken as the last: a proxy or Trello may cap pages lower).
 */
async function boardActions(ctx: TrelloCtx, boardId: string): Promise<TrelloAction[]> {
  const out: TrelloAction[] = [];
  let before: string | undefined;
  for (;;) {
    const page = z.array(trelloAction).parse(await trelloJson<unknown>(ctx, `/1/boards/${boardId}/actions`, { filter: actionFilter(ctx), limit: ACTION_PAGE, before }));
    out.push(...page);
    const last = page.at(-1);
    if (!last) return out;
    before = last.id;
  }
}

/**
 * One board: its lists and open cards (with checklists and members), the board document and the cards' documents.
 * A full sync reads the board's comment and card-creation actions in one list; an incremental sync skips boards with
 * no activity since the cursor and reads the actions of the cards active since then, one card at a time. The card
 * listing is complete, so stored cards of this board that it no longer holds (deleted, archived, moved away) are deleted.
 */
async function boardPage(ctx: TrelloCtx, p: TrelloPage): Promise<Page<TrelloPage, TrelloCursor>> {
  const board = p.boards[p.index];
  const next: TrelloPage | null = p.index + 1 < p.boards.length ? { ...p, index: p.index + 1 } : null;
  if (!board) return { documents: [], next: null, cursor: cursorOf(p) };
  if (p.mode === 'incremental' && !activeSince(board.dateLastActivity, p.since)) return { documents: [], next, cursor: cursorOf(p) };

  const lists = z.array(trelloList).parse(await trelloJson<unknown>(ctx, `/1/boards/${board.id}/lists`, { filter: 'open', fields: 'name,closed' }));
  const cards = z
    .array(trelloCard)
    .parse(
      await trelloJson<unknown>(ctx, `/1/boards/${board.id}/cards`, {
        fields: CARD_FIELDS,
        checklists: ctx.settings.include_checklists ? 'all' : 'none',
        checklist_fields: 'name,pos',
        members: true,
        member_fields: 'fullName,username',
      }),
    );
  const changed = p.mode === 'full' ? cards : cards.filter((c) => activeSince(c.dateLastActivity, p.since));
  const actions = new Map<string, TrelloAction[]>();
  const add = (a: TrelloAction) => {
    const id = a.data.card?.id;
    if (id) actions.set(id, [...(actions.get(id) ?? []), a]);
  };
  if (p.mode === 'full') for (const a of await boardActions(ctx, board.id)) add(a);
  else for (const c of changed) for (const a of z.array(trelloAction).parse(await trelloJson<unknown>(ctx, `/1/cards/${c.id}/actions`, { filter: actionFilter(ctx), limit: ACTION_PAGE }))) add(a);

  const stored = p.mode === 'incremental' ? (await ctx.stored('card:')).filter((r) => r.metadata.board_id === board.id) : [];
  const storedCreator = new Map(stored.map((r) => [r.external_id, typeof r.metadata.creator_id === 'string' ? r.metadata.creator_id : null]));
  const listNames = new Map(lists.map((l) => [l.id, l.name ?? l.id]));
  const perList = new Map<string, number>();
  for (const c of cards) if (c.idList) perList.set(c.idList, (perList.get(c.idList) ?? 0) + 1);

  const documents: SourceDocument[] = [boardToDocument(board, lists, perList)];
  let high = later(p.high, board.dateLastActivity ?? null);
  for (const c of changed) {
    const own = actions.get(c.id) ?? [];
    const created = own.find((a) => (CREATE_ACTIONS as readonly string[]).includes(a.type));
    const creatorId = created?.idMemberCreator ?? created?.memberCreator?.id ?? storedCreator.get(cardExternalId(c.id)) ?? null;
    documents.push(cardToDocument(c, { board, lists: listNames, actions: own, creatorId, includeChecklists: ctx.settings.include_checklists }));
    high = later(high, c.dateLastActivity ?? null);
  }
  // Members seen on cards and actions, by name (Trello shows members' emails to no one but themselves).
  const seen = new Map<string, string | null>();
  for (const c of changed) for (const m of c.members ?? []) seen.set(m.id, m.fullName ?? m.username ?? null);
  for (const list of actions.values()) for (const a of list) if (a.memberCreator) seen.set(a.memberCreator.id, a.memberCreator.fullName ?? a.memberCreator.username ?? null);
  const identities: SourceIdentities = { accounts: [...seen].map(([memberId, display_name]) => ({ account_id: trelloAccount(memberId), email: null, display_name })) };
  const listed = new Set(cards.map((c) => cardExternalId(c.id)));
  const deleted = stored.map((r) => r.external_id).filter((id) => !listed.has(id));
  const here: TrelloPage = { ...p, high };
  return { documents, deleted, identities, next: next ? { ...next, high } : null, cursor: cursorOf(here) };
}

/**
 * Incremental by activity: boards and cards whose `dateLastActivity` is not older than the cursor (a comment, checklist
 * tick or edit moves it). Cards gone from a re-read board are deleted at once; boards that left the member's list are
 * removed by the full sync's sweep.
 */
export const trelloSync: SyncCapability<TrelloCredentials, TrelloSettings, TrelloCursor, TrelloPage> = {
  cursorSchema: trelloCursor,
  pageSchema: trelloPage,
  start(mode: SyncMode, since: TrelloCursor | null): TrelloPage {
    return { mode, phase: 'boards', since: mode === 'incremental' ? (since?.since ?? null) : null, high: null, boards: [], index: 0 };
  },
  readPage(ctx, page) {
    return page.phase === 'boards' ? boardsPage(ctx, page) : boardPage(ctx, page);
  },
};
