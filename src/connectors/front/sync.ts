import { z } from 'zod';
import { type Page, type SourceDocument, type SourceIdentities, type SyncCapability, type SyncMode, VendorHttpError } from '../kit/index.ts';
import { type FrontCtx, frontJson, samePath } from './client.ts';
import {
  conversationExternalId,
  conversationToDocument,
  type FrontComment,
  type FrontInbox,
  type FrontMessage,
  frontComment,
  frontConversation,
  frontInbox,
  frontMessage,
  frontTeammate,
  inboxGroup,
  teammateName,
  teammateRef,
} from './map.ts';
import type { FrontCredentials, FrontSettings } from './schemas.ts';

/** Each conversation then costs three or more requests (messages, comments, inboxes): small pages, short checkpoints. */
const CONVERSATION_PAGE = 25;
const MESSAGE_PAGE = 100;

export const frontPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['inboxes', 'conversations']),
  /** Incremental: conversations with activity after this (Unix seconds); null = list everything. */
  since: z.number().nullable(),
  /** When this sync started (Unix seconds): the cursor never passes it. */
  startedAt: z.number().nullable(),
  /** The conversations page to read (a path with `page_token`); null = the first. */
  nextPath: z.string().nullable(),
  maxUpdated: z.number().nullable(),
});
export type FrontPage = z.infer<typeof frontPage>;
export const frontCursor = z.object({ since: z.number() });
export type FrontCursor = z.infer<typeof frontCursor>;

const listOf = <T extends z.ZodType>(item: T) =>
  z.object({ _results: z.array(item).default([]), _pagination: z.object({ next: z.string().nullable().optional() }).nullable().optional() });

function cursorOf(p: FrontPage): FrontCursor | null {
  const seen = p.maxUpdated ?? p.since ?? p.startedAt;
  if (seen === null) return null;
  return { since: p.startedAt !== null && seen > p.startedAt ? p.startedAt : seen };
}

/** Every item of a paginated Front list, following `_pagination.next`. */
async function readAll<T extends z.ZodType>(ctx: FrontCtx, first: string, item: T, query?: Record<string, string | number>): Promise<z.infer<T>[]> {
  const out: z.infer<T>[] = [];
  let path: string | null = first;
  let q = query;
  while (path) {
    const r = listOf(item).parse(await frontJson<unknown>(ctx, path, q ? { query: q } : {}));
    out.push(...r._results);
    // The next link carries every parameter with its page_token.
    path = r._pagination?.next ? samePath(r._pagination.next) : null;
    q = undefined;
  }
  return out;
}

/** Inboxes and who has access to each: the identity directory behind the `front:inbox:<id>` ACL groups. */
async function readInboxes(ctx: FrontCtx): Promise<SourceIdentities> {
  const inboxes = await readAll(ctx, '/inboxes', frontInbox);
  const accounts = new Map<string, { account_id: string; email: string | null; display_name: string | null }>();
  const groups: { group_id: string; members: string[] }[] = [];
  for (const inbox of inboxes) {
    if (ctx.settings.inbox_ids && !ctx.settings.inbox_ids.includes(inbox.id)) continue;
    const teammates = await readAll(ctx, `/inboxes/${encodeURIComponent(inbox.id)}/teammates`, frontTeammate);
    for (const t of teammates) accounts.set(t.id, { account_id: `front:${t.id}`, email: t.email?.toLowerCase() ?? null, display_name: teammateName(t) });
    groups.push({ group_id: inboxGroup(inbox.id), members: teammates.map(teammateRef) });
  }
  return { accounts: [...accounts.values()], groups };
}

/** A conversation's messages (oldest first), comments and inboxes; null when Front no longer has it (404). */
async function readParts(ctx: FrontCtx, id: string): Promise<{ messages: FrontMessage[]; comments: FrontComment[]; inboxes: FrontInbox[] } | null> {
  const base = `/conversations/${encodeURIComponent(id)}`;
  try {
    const messages = await readAll(ctx, `${base}/messages`, frontMessage, { limit: MESSAGE_PAGE, sort_by: 'created_at', sort_order: 'asc' });
    const comments = ctx.settings.include_comments ? await readAll(ctx, `${base}/comments`, frontComment) : [];
    const inboxes = await readAll(ctx, `${base}/inboxes`, frontInbox);
    return { messages, comments, inboxes };
  } catch (err) {
    if (err instanceof VendorHttpError && err.status === 404) return null;
    throw err;
  }
}

/** The first conversations page: the whole list (full), or a search for activity since the cursor (incremental). */
export function firstPath(p: FrontPage): { path: string; query: Record<string, number> } {
  if (p.mode === 'full' || p.since === null) return { path: '/conversations', query: { limit: CONVERSATION_PAGE } };
  // Front's `after:` filter takes Unix seconds; one second back because timestamps carry decimals (re-reads are unchanged).
  const q = `after:${Math.max(0, Math.floor(p.since) - 1)}`;
  return { path: `/conversations/search/${encodeURIComponent(q)}`, query: { limit: CONVERSATION_PAGE } };
}

async function readConversations(ctx: FrontCtx, p: FrontPage): Promise<Page<FrontPage, FrontCursor>> {
  const first = firstPath(p);
  const r = listOf(frontConversation).parse(await frontJson<unknown>(ctx, p.nextPath ?? first.path, p.nextPath ? {} : { query: first.query }));
  const documents: SourceDocument[] = [];
  const deleted: string[] = [];
  let maxUpdated = p.maxUpdated;
  const wanted = ctx.settings.inbox_ids;
  for (const c of r._results) {
    if (c.updated_at !== undefined) maxUpdated = maxUpdated === null ? c.updated_at : Math.max(maxUpdated, c.updated_at);
    // Deleted conversations (in Front's trash) leave the index: an incremental sync deletes them, a full sync skips
    // them and so sweeps them.
    const parts = c.status === 'deleted' ? null : await readParts(ctx, c.id);
    if (!parts || (wanted && !parts.inboxes.some((i) => wanted.includes(i.id)))) {
      if (p.mode === 'incremental') deleted.push(conversationExternalId(c.id));
      continue;
    }
    const doc = conversationToDocument(c, parts, { includeComments: ctx.settings.include_comments });
    documents.push(doc);
  }
  const here: FrontPage = { ...p, maxUpdated };
  const next = r._pagination?.next && r._results.length > 0 ? { ...here, nextPath: samePath(r._pagination.next) } : null;
  return { documents, deleted, next, cursor: cursorOf(here) };
}

async function readPage(ctx: FrontCtx, p: FrontPage): Promise<Page<FrontPage, FrontCursor>> {
  if (p.phase === 'inboxes') {
    const identities = await readInboxes(ctx);
    const here: FrontPage = { ...p, phase: 'conversations', startedAt: Math.floor(ctx.now.getTime() / 1000) };
    return { documents: [], identities, next: here, cursor: cursorOf({ ...here, startedAt: null }) };
  }
  return readConversations(ctx, p);
}

export const frontSync: SyncCapability<FrontCredentials, FrontSettings, FrontCursor, FrontPage> = {
  cursorSchema: frontCursor,
  pageSchema: frontPage,
  start(mode: SyncMode, since: FrontCursor | null): FrontPage {
    return { mode, phase: 'inboxes', since: mode === 'incremental' ? (since?.since ?? null) : null, startedAt: null, nextPath: null, maxUpdated: null };
  },
  readPage,
};
