import { z } from 'zod';
import type { SourceAcl, SourceDocument } from '../kit/index.ts';

/** monday.com GraphQL answers (boards, items, updates) and their pure mapping to documents. */
const person = z.object({ id: z.coerce.string(), name: z.string().nullish(), email: z.string().nullish() });
export type Person = z.infer<typeof person>;

export const board = z.object({
  id: z.coerce.string(),
  name: z.string(),
  description: z.string().nullish(),
  board_kind: z.string(),
  type: z.string().nullish(),
  state: z.string().nullish(),
  updated_at: z.string().nullish(),
  url: z.string().nullish(),
  workspace: z.object({ id: z.coerce.string().nullish(), name: z.string().nullish() }).nullish(),
  owners: z.array(person.nullable()).default([]),
  subscribers: z.array(person.nullable()).default([]),
});
export type Board = z.infer<typeof board>;

const reply = z.object({ id: z.coerce.string(), text_body: z.string().nullish(), created_at: z.string().nullish(), creator: person.nullish() });
export const update = z.object({
  id: z.coerce.string(),
  text_body: z.string().nullish(),
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
  creator: person.nullish(),
  replies: z.array(reply).nullish(),
});
export type Update = z.infer<typeof update>;

export const item = z.object({
  id: z.coerce.string(),
  name: z.string(),
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
  url: z.string().nullish(),
  creator: person.nullish(),
  group: z.object({ id: z.coerce.string(), title: z.string() }).nullish(),
  column_values: z.array(z.object({ id: z.string(), text: z.string().nullish(), type: z.string().nullish(), column: z.object({ title: z.string() }).nullish() })).default([]),
  updates: z.array(update).nullish(),
});
export type Item = z.infer<typeof item>;

export const externalIds = {
  board: (id: string) => `board:${id}`,
  item: (id: string) => `item:${id}`,
  update: (itemId: string, id: string) => `update:${itemId}:${id}`,
};

/** A person as the shared ACL shape names people: the lower-cased email, else `monday:<user id>`. */
export const personRef = (p: Person | null | undefined) => (p ? (p.email ? p.email.toLowerCase() : `monday:${p.id}`) : undefined);
export const boardGroup = (id: string) => `monday:board:${id}`;

/** Public boards are open to every member of the account; private and shareable boards to their members (subscribers). */
export function boardAcl(b: Pick<Board, 'id' | 'board_kind'>): SourceAcl {
  return b.board_kind === 'public' ? { public: true } : { groups: [boardGroup(b.id)] };
}

/** monday's `updated_at` as ISO 8601 (already ISO; normalized so stored versions compare exactly). */
export function iso(v: string | null | undefined): string | undefined {
  if (!v) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

export const boardUrl = (slug: string | null, b: Pick<Board, 'id' | 'url'>) => b.url || `https://${slug ?? 'view'}.monday.com/boards/${b.id}`;
export const itemUrl = (slug: string | null, boardId: string, i: Pick<Item, 'id' | 'url'>) => i.url || `https://${slug ?? 'view'}.monday.com/boards/${boardId}/pulses/${i.id}`;

const join = (...blocks: string[]) => blocks.map((b) => b.trim()).filter(Boolean).join('\n\n');

export function boardToDocument(slug: string | null, b: Board): SourceDocument {
  const lines = [b.workspace?.name ? `Workspace: ${b.workspace.name}` : '', `Kind: ${b.board_kind}`].filter(Boolean).join('\n');
  return {
    external_id: externalIds.board(b.id),
    title: b.name,
    content: join(b.description ?? '', lines),
    url: boardUrl(slug, b),
    ...(personRef(b.owners.find(Boolean)) ? { author: personRef(b.owners.find(Boolean)) } : {}),
    document_type: 'board',
    ...(iso(b.updated_at) ? { updated_at: iso(b.updated_at) } : {}),
    acl: boardAcl(b),
    metadata: { board_id: b.id, board_kind: b.board_kind, workspace_id: b.workspace?.id ?? null },
  };
}

/** Where an item lives, for its text, links and ACL. */
export interface BoardPlace {
  readonly boardId: string;
  readonly boardName: string;
  readonly slug: string | null;
  readonly acl: SourceAcl;
}

/** An item's columns as `Title: text` lines (empty ones left out; the name column is the title). */
export function columnLines(i: Pick<Item, 'column_values'>): string[] {
  return i.column_values.filter((c) => c.id !== 'name' && c.text?.trim()).map((c) => `${c.column?.title ?? c.id}: ${c.text?.trim()}`);
}

export function itemToDocument(i: Item, place: BoardPlace): SourceDocument {
  const content = join(`Board: ${place.boardName}${i.group ? ` / ${i.group.title}` : ''}`, columnLines(i).join('\n'));
  return {
    external_id: externalIds.item(i.id),
    title: i.name,
    content,
    url: itemUrl(place.slug, place.boardId, i),
    ...(personRef(i.creator) ? { author: personRef(i.creator) } : {}),
    document_type: 'item',
    ...(iso(i.created_at) ? { created_at: iso(i.created_at) } : {}),
    ...(iso(i.updated_at) ? { updated_at: iso(i.updated_at) } : {}),
    acl: place.acl,
    metadata: { board_id: place.boardId, item_id: i.id, group: i.group?.title ?? null, modified: iso(i.updated_at) ?? null },
  };
}

/** An update with its replies, each reply as `<name>: <text>` under it. */
export function updateToDocument(i: Pick<Item, 'id' | 'name' | 'url'>, u: Update, place: BoardPlace): SourceDocument {
  const replies = (u.replies ?? []).filter((r) => r.text_body?.trim()).map((r) => `${r.creator?.name ?? r.creator?.email ?? 'Someone'}: ${r.text_body?.trim()}`);
  return {
    external_id: externalIds.update(i.id, u.id),
    title: `Update on ${i.name}`,
    content: join(u.text_body ?? '', replies.length ? `Replies:\n${replies.join('\n')}` : ''),
    url: `${itemUrl(place.slug, place.boardId, i)}/posts/${u.id}`,
    ...(personRef(u.creator) ? { author: personRef(u.creator) } : {}),
    document_type: 'update',
    ...(iso(u.created_at) ? { created_at: iso(u.created_at) } : {}),
    ...(iso(u.updated_at ?? u.created_at) ? { updated_at: iso(u.updated_at ?? u.created_at) } : {}),
    acl: place.acl,
    metadata: { board_id: place.boardId, item_id: i.id, update_id: u.id },
  };
}
