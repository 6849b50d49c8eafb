import { z } from 'zod';
import { type Page, type SourceDocument, type SyncCapability, type SyncMode, VendorHttpError } from '../kit/index.ts';
import { getMe, type IntercomCtx, intercomJson } from './client.ts';
import {
  article,
  articleExternalId,
  articleToDocument,
  contact,
  conversation,
  conversationExternalId,
  conversationToDocument,
  type IntercomConversation,
  isContactAuthor,
} from './map.ts';
import type { IntercomCredentials, IntercomSettings } from './schemas.ts';

const ARTICLE_PAGE = 50;
/** Every conversation of a search page is then read on its own (parts), so pages stay small. */
const SEARCH_PAGE = 20;

export const intercomPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'articles', 'conversations']),
  /** When this sync started, Unix seconds: the cursor never passes it (an edit made during the sync is read again). */
  startedAt: z.number().nullable(),
  /** The workspace id (`app.id_code` of GET /me), part of every inbox URL. */
  appId: z.string().nullable(),
  /** Incremental: objects updated at or after this (Unix seconds) are read; null = everything. */
  since: z.number().nullable(),
  articlePage: z.number().int(),
  startingAfter: z.string().nullable(),
  maxUpdated: z.number().nullable(),
});
export type IntercomPage = z.infer<typeof intercomPage>;
export const intercomCursor = z.object({ since: z.number() });
export type IntercomCursor = z.infer<typeof intercomCursor>;

function cursorOf(p: IntercomPage): IntercomCursor | null {
  // Nothing read: keep the previous cursor (our clock may run ahead of Intercom's), or a full sync's start.
  const seen = p.maxUpdated ?? p.since ?? p.startedAt;
  if (seen === null) return null;
  return { since: p.startedAt !== null && seen > p.startedAt ? p.startedAt : seen };
}

const later = (a: number | null, b: number) => (a === null || b > a ? b : a);

const articleList = z.object({
  data: z.array(z.unknown()).default([]),
  pages: z.object({ page: z.coerce.number().optional(), total_pages: z.coerce.number().optional() }).nullable().optional(),
});
const searchAnswer = z.object({
  conversations: z.array(z.object({ id: z.union([z.string(), z.number()]).transform(String) })).default([]),
  pages: z.object({ next: z.object({ starting_after: z.string().nullable().optional() }).nullable().optional() }).nullable().optional(),
});

/** The conversation search of this sync: every conversation (full), or those updated since the cursor. */
export function searchQuery(p: IntercomPage): { field: string; operator: string; value: number } {
  // `>` is strict and timestamps have one-second precision: ask from one second before the cursor (re-reads are unchanged).
  const from = p.mode === 'full' || p.since === null ? 0 : Math.max(0, p.since - 1);
  return { field: 'updated_at', operator: '>', value: from };
}

function nextPhase(p: IntercomPage, settings: IntercomSettings, after: 'setup' | 'articles'): IntercomPage | null {
  if (after === 'setup' && settings.include_articles) return { ...p, phase: 'articles', articlePage: 1 };
  if (settings.include_conversations) return { ...p, phase: 'conversations', startingAfter: null };
  return null;
}

async function readArticles(ctx: IntercomCtx, p: IntercomPage): Promise<Page<IntercomPage, IntercomCursor>> {
  const r = articleList.parse(await intercomJson<unknown>(ctx, '/articles', { query: { page: p.articlePage, per_page: ARTICLE_PAGE } }));
  const documents: SourceDocument[] = [];
  const deleted: string[] = [];
  let maxUpdated = p.maxUpdated;
  let oldest = Number.POSITIVE_INFINITY;
  const x = { appId: p.appId ?? '', region: ctx.settings.region };
  for (const raw of r.data) {
    const a = article.parse(raw);
    oldest = Math.min(oldest, a.updated_at);
    if (p.mode === 'incremental' && p.since !== null && a.updated_at < p.since) continue;
    maxUpdated = later(maxUpdated, a.updated_at);
    // An article taken back to draft leaves the index unless drafts are indexed too.
    if (a.state === 'published' || ctx.settings.include_draft_articles) documents.push(articleToDocument(a, x));
    else deleted.push(articleExternalId(a.id));
  }
  const here = { ...p, maxUpdated };
  const totalPages = r.pages?.total_pages ?? 0;
  // Articles come most recently updated first: an incremental sync stops at the first page reaching past the cursor.
  const reachedOld = p.mode === 'incremental' && p.since !== null && oldest < p.since;
  const next = p.articlePage < totalPages && r.data.length > 0 && !reachedOld ? { ...here, articlePage: p.articlePage + 1 } : nextPhase(here, ctx.settings, 'articles');
  return { documents, deleted, next, cursor: cursorOf(here) };
}

/** `GET /conversations/{id}`: the conversation with its parts, or null when Intercom no longer has it. */
async function readConversation(ctx: IntercomCtx, id: string): Promise<IntercomConversation | null> {
  try {
    return conversation.parse(await intercomJson<unknown>(ctx, `/conversations/${encodeURIComponent(id)}`));
  } catch (err) {
    if (err instanceof VendorHttpError && err.status === 404) return null;
    throw err;
  }
}

/**
 * Names for the contacts a conversation needs (its first contact, part authors without a name): from the author
 * objects the conversation carries, else `GET /contacts/{id}` once per contact per page.
 */
async function contactNames(ctx: IntercomCtx, conversations: readonly IntercomConversation[], cache: Map<string, string>): Promise<void> {
  const wanted = new Set<string>();
  for (const c of conversations) {
    const authors = [c.source?.author, ...(c.conversation_parts?.conversation_parts ?? []).map((p) => p.author)];
    for (const a of authors) {
      if (!isContactAuthor(a) || a?.id === undefined || a.id === null) continue;
      if (a.name?.trim()) cache.set(String(a.id), a.name.trim());
      else wanted.add(String(a.id));
    }
    const first = c.contacts?.contacts[0];
    if (first) wanted.add(first.id);
  }
  for (const id of wanted) {
    if (cache.has(id)) continue;
    try {
      const k = contact.parse(await intercomJson<unknown>(ctx, `/contacts/${encodeURIComponent(id)}`));
      const name = k.name?.trim() || k.email?.trim();
      if (name) cache.set(id, name);
    } catch (err) {
      // A deleted or archived contact: the conversation keeps the id.
      if (!(err instanceof VendorHttpError && err.status === 404)) throw err;
    }
  }
}

async function readConversations(ctx: IntercomCtx, p: IntercomPage): Promise<Page<IntercomPage, IntercomCursor>> {
  const body = { query: searchQuery(p), pagination: { per_page: SEARCH_PAGE, ...(p.startingAfter ? { starting_after: p.startingAfter } : {}) } };
  const r = searchAnswer.parse(await intercomJson<unknown>(ctx, '/conversations/search', { method: 'POST', json: body }));
  const found: IntercomConversation[] = [];
  const deleted: string[] = [];
  for (const hit of r.conversations) {
    const c = await readConversation(ctx, hit.id);
    if (c) found.push(c);
    else deleted.push(conversationExternalId(hit.id));
  }
  const names = new Map<string, string>();
  await contactNames(ctx, found, names);
  let maxUpdated = p.maxUpdated;
  const x = { appId: p.appId ?? '', region: ctx.settings.region, contactNames: names, includeNotes: ctx.settings.include_notes };
  const documents = found.map((c) => {
    maxUpdated = later(maxUpdated, c.updated_at);
    return conversationToDocument(c, x);
  });
  const here = { ...p, maxUpdated };
  const after = r.pages?.next?.starting_after;
  return { documents, deleted, next: after && r.conversations.length > 0 ? { ...here, startingAfter: after } : null, cursor: cursorOf(here) };
}

async function readPage(ctx: IntercomCtx, p: IntercomPage): Promise<Page<IntercomPage, IntercomCursor>> {
  if (p.phase === 'setup') {
    const me = await getMe(ctx);
    const here: IntercomPage = { ...p, appId: me.app?.id_code ?? null, startedAt: Math.floor(ctx.now.getTime() / 1000) };
    return { documents: [], next: nextPhase(here, ctx.settings, 'setup'), cursor: cursorOf(here) };
  }
  if (p.phase === 'articles') return readArticles(ctx, p);
  return readConversations(ctx, p);
}

export const intercomSync: SyncCapability<IntercomCredentials, IntercomSettings, IntercomCursor, IntercomPage> = {
  cursorSchema: intercomCursor,
  pageSchema: intercomPage,
  start(mode: SyncMode, since: IntercomCursor | null): IntercomPage {
    return { mode, phase: 'setup', startedAt: null, appId: null, since: mode === 'incremental' ? (since?.since ?? null) : null, articlePage: 1, startingAfter: null, maxUpdated: null };
  },
  readPage,
};
