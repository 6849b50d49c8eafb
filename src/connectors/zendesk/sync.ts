import { z } from 'zod';
import type { Page, SourceDocument, SyncCapability, SyncMode } from '../kit/index.ts';
import { sameHostPath, type ZendeskCtx, zendeskJson } from './client.ts';
import {
  articleExternalId,
  articleToDocument,
  directory,
  ticketExternalId,
  ticketToDocument,
  type ZendeskComment,
  zendeskArticle,
  zendeskComment,
  type ZendeskTicket,
  zendeskTicket,
  type ZendeskUser,
  zendeskUser,
} from './map.ts';
import { type ZendeskCredentials, type ZendeskSettings, zendeskHost } from './schemas.ts';

/**
 * Tickets per export page. The export allows up to 1000, but each ticket costs a comments request (Support API quota):
 * 100 keeps one engine page (one checkpoint) to about a hundred requests.
 */
const TICKET_PAGE = 100;
const COMMENT_PAGE = 100;

export const zendeskPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['tickets', 'articles']),
  /** The export cursor to ask next (`cursor=`); null = start the export at `ticketStartTime`. */
  ticketCursor: z.string().nullable(),
  ticketStartTime: z.number().int(),
  /** The latest `after_cursor` Zendesk gave: where the next incremental export resumes. */
  ticketAfter: z.string().nullable(),
  articleStartTime: z.number().int(),
  /** The latest `end_time` of the article export: the next incremental export's `start_time`. */
  articleEnd: z.number().int().nullable(),
});
export type ZendeskPage = z.infer<typeof zendeskPage>;

export const zendeskCursor = z.object({
  /** The ticket export's `after_cursor` (Zendesk's recommended resume point); null = from the start. */
  tickets: z.string().nullable(),
  /** The article export's `start_time` for the next incremental sync (epoch seconds). */
  articles_start_time: z.number().int().nullable(),
});
export type ZendeskCursor = z.infer<typeof zendeskCursor>;

const ticketExport = z.object({
  tickets: z.array(z.unknown()).default([]),
  users: z.array(zendeskUser).optional(),
  after_cursor: z.string().nullable().optional(),
  end_of_stream: z.boolean(),
});
const commentList = z.object({
  comments: z.array(zendeskComment),
  users: z.array(zendeskUser).optional(),
  meta: z.object({ has_more: z.boolean(), after_cursor: z.string().nullable().optional() }).optional(),
  links: z.object({ next: z.string().nullable().optional() }).optional(),
});
const articleExport = z.object({
  articles: z.array(z.unknown()).default([]),
  users: z.array(zendeskUser).optional(),
  next_page: z.string().nullable().optional(),
  end_time: z.number().nullable().optional(),
});

const cursorOf = (p: ZendeskPage): ZendeskCursor => ({ tickets: p.ticketAfter, articles_start_time: p.articleEnd ?? p.articleStartTime });

/** Every comment of a ticket in order (cursor pagination, `include=users` for the authors' names). */
export async function ticketComments(ctx: ZendeskCtx, ticketId: number): Promise<{ comments: ZendeskComment[]; users: ZendeskUser[] }> {
  const comments: ZendeskComment[] = [];
  const users: ZendeskUser[] = [];
  let next: string | null = `/api/v2/tickets/${ticketId}/comments.json`;
  while (next) {
    // `links.next` carries the page cursor; the sideload and page size are asked again on every page.
    const r = commentList.parse(await zendeskJson<unknown>(ctx, next, { query: { include: 'users', 'page[size]': COMMENT_PAGE } }));
    comments.push(...r.comments);
    users.push(...(r.users ?? []));
    next = r.meta?.has_more && r.links?.next ? sameHostPath(r.links.next) : null;
  }
  return { comments, users };
}

async function ticketPage(ctx: ZendeskCtx, p: ZendeskPage): Promise<Page<ZendeskPage, ZendeskCursor>> {
  const query = { ...(p.ticketCursor ? { cursor: p.ticketCursor } : { start_time: p.ticketStartTime }), include: 'users', per_page: TICKET_PAGE };
  const r = ticketExport.parse(await zendeskJson<unknown>(ctx, '/api/v2/incremental/tickets/cursor.json', { query }));
  const users = directory(r.users);
  const documents: SourceDocument[] = [];
  const deleted: string[] = [];
  for (const raw of r.tickets) {
    const t: ZendeskTicket = zendeskTicket.parse(raw);
    // Deleted tickets stay in the export (status "deleted"): an incremental sync deletes them; a full sync skips them
    // (and so sweeps them).
    if (t.status === 'deleted') {
      if (p.mode === 'incremental') deleted.push(ticketExternalId(t.id));
      continue;
    }
    const c = await ticketComments(ctx, t.id);
    documents.push(ticketToDocument(t, c.comments, directory(c.users, new Map(users)), { host: zendeskHost(ctx.settings), includeInternalNotes: ctx.settings.include_internal_notes }));
  }
  const here: ZendeskPage = { ...p, ticketAfter: r.after_cursor ?? p.ticketAfter };
  let next: ZendeskPage | null;
  if (!r.end_of_stream && r.after_cursor) next = { ...here, ticketCursor: r.after_cursor };
  else next = ctx.settings.include_articles ? { ...here, phase: 'articles' } : null;
  return { documents, deleted, next, cursor: cursorOf(here) };
}

async function articlePage(ctx: ZendeskCtx, p: ZendeskPage): Promise<Page<ZendeskPage, ZendeskCursor>> {
  const r = articleExport.parse(
    await zendeskJson<unknown>(ctx, '/api/v2/help_center/incremental/articles.json', { query: { start_time: p.articleStartTime, include: 'users' } }),
  );
  const users = directory(r.users);
  const documents: SourceDocument[] = [];
  const deleted: string[] = [];
  for (const raw of r.articles) {
    const a = zendeskArticle.parse(raw);
    // Drafts are not synced; an article turned back into a draft leaves the index.
    if (a.draft) {
      if (p.mode === 'incremental') deleted.push(articleExternalId(a.id));
      continue;
    }
    documents.push(articleToDocument(a, users, zendeskHost(ctx.settings)));
  }
  const end = r.end_time ?? null;
  const advanced = end !== null && end > p.articleStartTime;
  const here: ZendeskPage = { ...p, articleEnd: advanced ? end : p.articleEnd };
  // Time-based pages: the next starts at this page's end_time; stop when Zendesk gives no next page or no progress.
  const more = r.articles.length > 0 && Boolean(r.next_page) && advanced;
  return { documents, deleted, next: more && end !== null ? { ...here, articleStartTime: end } : null, cursor: cursorOf(here) };
}

export const zendeskSync: SyncCapability<ZendeskCredentials, ZendeskSettings, ZendeskCursor, ZendeskPage> = {
  cursorSchema: zendeskCursor,
  pageSchema: zendeskPage,
  start(mode: SyncMode, since: ZendeskCursor | null, settings: ZendeskSettings): ZendeskPage {
    const resume = mode === 'incremental' ? since : null;
    return {
      mode,
      phase: settings.include_tickets ? 'tickets' : 'articles',
      ticketCursor: resume?.tickets ?? null,
      ticketStartTime: 0,
      ticketAfter: resume?.tickets ?? null,
      articleStartTime: resume?.articles_start_time ?? 0,
      articleEnd: null,
    };
  },
  async readPage(ctx, page) {
    if (page.phase === 'tickets') return ticketPage(ctx, page);
    if (!ctx.settings.include_articles) return { documents: [], next: null, cursor: cursorOf(page) };
    return articlePage(ctx, page);
  },
};
