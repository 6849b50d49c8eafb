import { z } from 'zod';
import type { SourceAcl, SourceDocument } from '../kit/index.ts';

export const trelloBoard = z.object({
  id: z.string(),
  name: z.string().nullable().optional(),
  desc: z.string().nullable().optional(),
  url: z.string().nullable().optional(),
  shortUrl: z.string().nullable().optional(),
  closed: z.boolean().optional(),
  idOrganization: z.string().nullable().optional(),
  idEnterprise: z.string().nullable().optional(),
  prefs: z.object({ permissionLevel: z.string().nullable().optional() }).passthrough().nullable().optional(),
  dateLastActivity: z.string().nullable().optional(),
  memberships: z.array(z.object({ idMember: z.string(), memberType: z.string().optional(), deactivated: z.boolean().optional() })).nullable().optional(),
});
export type TrelloBoard = z.infer<typeof trelloBoard>;

export const trelloList = z.object({ id: z.string(), name: z.string().nullable().optional(), closed: z.boolean().optional() });
export type TrelloList = z.infer<typeof trelloList>;

const member = z.object({ id: z.string(), fullName: z.string().nullable().optional(), username: z.string().nullable().optional() });
type TrelloMember = z.infer<typeof member>;

export const trelloCard = z.object({
  id: z.string(),
  idBoard: z.string().optional(),
  idList: z.string().nullable().optional(),
  idShort: z.number().optional(),
  name: z.string().nullable().optional(),
  desc: z.string().nullable().optional(),
  closed: z.boolean().optional(),
  due: z.string().nullable().optional(),
  dueComplete: z.boolean().nullable().optional(),
  dateLastActivity: z.string().nullable().optional(),
  url: z.string().nullable().optional(),
  shortUrl: z.string().nullable().optional(),
  labels: z.array(z.object({ name: z.string().nullable().optional(), color: z.string().nullable().optional() })).nullable().optional(),
  idMembers: z.array(z.string()).nullable().optional(),
  members: z.array(member).nullable().optional(),
  checklists: z
    .array(z.object({ id: z.string(), name: z.string().nullable().optional(), pos: z.number().optional(), checkItems: z.array(z.object({ name: z.string().nullable().optional(), state: z.string(), pos: z.number().optional() })).optional() }))
    .nullable()
    .optional(),
});
export type TrelloCard = z.infer<typeof trelloCard>;

export const trelloAction = z.object({
  id: z.string(),
  type: z.string(),
  date: z.string(),
  idMemberCreator: z.string().nullable().optional(),
  memberCreator: member.nullable().optional(),
  data: z.object({ text: z.string().nullable().optional(), card: z.object({ id: z.string() }).passthrough().nullable().optional() }).passthrough(),
});
export type TrelloAction = z.infer<typeof trelloAction>;

/** The actions that create a card: their member is the card's author. */
export const CREATE_ACTIONS = ['createCard', 'copyCard', 'convertToCardFromCheckItem'] as const;
export const BOARD_FIELDS = 'name,desc,url,shortUrl,closed,idOrganization,idEnterprise,prefs,dateLastActivity,memberships';
export const CARD_FIELDS = 'name,desc,idBoard,idList,idShort,closed,due,dueComplete,dateLastActivity,url,shortUrl,labels,idMembers';

export const boardExternalId = (id: string) => `board:${id}`;
export const cardExternalId = (id: string) => `card:${id}`;
export const boardGroup = (id: string) => `trello:board:${id}`;
export const trelloAccount = (memberId: string) => `trello:${memberId}`;

/** A Trello id is a MongoDB ObjectId: its first 8 hex digits are the creation time in epoch seconds. */
export function createdAtOf(id: string): string | undefined {
  const s = Number.parseInt(id.slice(0, 8), 16);
  return /^[0-9a-f]{24}$/.test(id) && s > 0 ? new Date(s * 1000).toISOString() : undefined;
}

const iso = (s: string | null | undefined): string | undefined => {
  if (!s) return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
};
const when = (s: string): string => `${(iso(s) ?? s).slice(0, 16).replace('T', ' ')} UTC`;
const name = (m: TrelloMember | null | undefined, id?: string | null): string => m?.fullName || m?.username || (id ? `member ${id}` : 'Unknown');

/**
 * Who may read a board and its cards, from `prefs.permissionLevel`: `public` → everyone; `org` → the board's members and
 * its Workspace's (`trello:org:<id>`); `enterprise` → its members and the enterprise's; `private` → its members.
 */
export function boardAcl(b: Pick<TrelloBoard, 'id' | 'prefs' | 'idOrganization' | 'idEnterprise'>): SourceAcl {
  const level = b.prefs?.permissionLevel ?? 'private';
  if (level === 'public') return { public: true };
  const groups = [boardGroup(b.id)];
  if (level === 'org' && b.idOrganization) groups.push(`trello:org:${b.idOrganization}`);
  if (level === 'enterprise' && b.idEnterprise) groups.push(`trello:enterprise:${b.idEnterprise}`);
  return { groups };
}

export function boardToDocument(b: TrelloBoard, lists: readonly TrelloList[], cardsPerList: ReadonlyMap<string, number>): SourceDocument {
  const level = b.prefs?.permissionLevel ?? 'private';
  const listLines = lists.map((l) => {
    const n = cardsPerList.get(l.id) ?? 0;
    return `- ${l.name ?? l.id} (${n} card${n === 1 ? '' : 's'})`;
  });
  const header = [`Board: ${b.name ?? b.id}`, `Visibility: ${level}`, b.closed ? 'Closed: yes' : ''].filter(Boolean).join('\n');
  return {
    external_id: boardExternalId(b.id),
    title: b.name?.trim() || `Board ${b.id}`,
    content: [header, b.desc?.trim() ?? '', listLines.length ? `Lists:\n${listLines.join('\n')}` : ''].filter(Boolean).join('\n\n'),
    url: b.url ?? b.shortUrl ?? `https://trello.com/b/${b.id}`,
    author: (() => {
      const admin = b.memberships?.find((m) => m.memberType === 'admin');
      return admin ? trelloAccount(admin.idMember) : undefined;
    })(),
    document_type: 'board',
    created_at: createdAtOf(b.id),
    updated_at: iso(b.dateLastActivity),
    metadata: { trello_id: b.id, organization_id: b.idOrganization ?? null, permission_level: level, closed: b.closed ?? false, lists: lists.map((l) => l.name ?? l.id) },
    acl: boardAcl(b),
  };
}

/**
 * A card as text: board, list, labels, members and due date, then its description, its checklists (`[x]` done,
 * `[ ]` open, in position order) and its comments oldest first under their authors' names.
 */
export function cardToDocument(
  c: TrelloCard,
  ctx: { board: TrelloBoard; lists: ReadonlyMap<string, string>; actions: readonly TrelloAction[]; creatorId: string | null; includeChecklists: boolean },
): SourceDocument {
  const listName = c.idList ? (ctx.lists.get(c.idList) ?? null) : null;
  const labels = (c.labels ?? []).map((l) => l.name || l.color).filter(Boolean);
  const members = (c.members ?? []).map((m) => name(m));
  const header = [
    `Board: ${ctx.board.name ?? ctx.board.id}`,
    listName ? `List: ${listName}` : '',
    labels.length ? `Labels: ${labels.join(', ')}` : '',
    members.length ? `Members: ${members.join(', ')}` : '',
    c.due ? `Due: ${when(c.due)}${c.dueComplete ? ' (complete)' : ''}` : '',
  ].filter(Boolean);
  const checklists = ctx.includeChecklists
    ? [...(c.checklists ?? [])]
        .sort((a, b) => (a.pos ?? 0) - (b.pos ?? 0))
        .map((cl) => [`Checklist: ${cl.name ?? ''}`.trim(), ...[...(cl.checkItems ?? [])].sort((a, b) => (a.pos ?? 0) - (b.pos ?? 0)).map((i) => `[${i.state === 'complete' ? 'x' : ' '}] ${i.name ?? ''}`)].join('\n'))
    : [];
  const comments = ctx.actions
    .filter((a) => a.type === 'commentCard')
    .sort((a, b) => Date.parse(a.date) - Date.parse(b.date))
    .map((a) => `${name(a.memberCreator, a.idMemberCreator)} — ${when(a.date)}\n${(a.data.text ?? '').trim()}`);
  const items = (c.checklists ?? []).flatMap((cl) => cl.checkItems ?? []);
  return {
    external_id: cardExternalId(c.id),
    title: c.name?.trim() || `Card ${c.idShort ?? c.id}`,
    content: [header.join('\n'), c.desc?.trim() ?? '', ...checklists, ...comments].filter(Boolean).join('\n\n'),
    url: c.url ?? c.shortUrl ?? `https://trello.com/c/${c.id}`,
    author: ctx.creatorId ? trelloAccount(ctx.creatorId) : undefined,
    document_type: 'card',
    created_at: createdAtOf(c.id),
    updated_at: iso(c.dateLastActivity),
    metadata: {
      trello_id: c.id,
      board_id: ctx.board.id,
      list: listName,
      labels,
      member_ids: c.idMembers ?? [],
      due: c.due ?? null,
      due_complete: c.dueComplete ?? null,
      creator_id: ctx.creatorId,
      comment_count: comments.length,
      checklist_items: items.length,
      checklist_items_complete: items.filter((i) => i.state === 'complete').length,
    },
    acl: boardAcl(ctx.board),
  };
}
