import { z } from 'zod';
import type { Page, SourceDocument, SyncCapability, SyncMode } from '../kit/index.ts';
import { type FreshdeskCtx, freshdeskGet } from './client.ts';
import {
  agentDirectory,
  articleExternalId,
  articleToDocument,
  type FolderRef,
  folderRef,
  freshdeskArticle,
  type FreshdeskConversation,
  freshdeskConversation,
  freshdeskTicket,
  PUBLISHED,
  ticketExternalId,
  ticketToDocument,
} from './map.ts';
import { type FreshdeskCredentials, type FreshdeskSettings, freshdeskHost } from './schemas.ts';

const PER_PAGE = 100;
/** Freshdesk answers list pages up to 300 (30,000 tickets); past that the listing restarts at the latest updated_at. */
const MAX_PAGE = 300;
/** A full sync lists every ticket: without updated_since Freshdesk returns only those created in the last 30 days. */
const EPOCH = '1970-01-01T00:00:00Z';

export const freshdeskPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'tickets', 'deleted', 'solutions', 'articles']),
  startedAt: z.string().nullable(),
  agents: agentDirectory,
  /** The incremental cursor this sync started from (null: none). */
  cursorSince: z.string().nullable(),
  /** The `updated_since` of the current ticket listing (moves forward when the 300-page cap restarts it). */
  since: z.string(),
  page: z.number().int(),
  maxUpdated: z.string().nullable(),
  folders: z.array(folderRef),
  folderIndex: z.number().int(),
});
export type FreshdeskPage = z.infer<typeof freshdeskPage>;
export const freshdeskCursor = z.object({ updated_since: z.string() });
export type FreshdeskCursor = z.infer<typeof freshdeskCursor>;

const later = (a: string | null, b: string): string => (a && Date.parse(a) >= Date.parse(b) ? a : b);

function cursorOf(p: FreshdeskPage): FreshdeskCursor | null {
  // Nothing read: keep the previous cursor, else this sync's start; never past the start (an edit made during the
  // sync is read again next time).
  const seen = p.maxUpdated ?? p.cursorSince ?? p.startedAt;
  if (!seen) return null;
  return { updated_since: p.startedAt && Date.parse(seen) > Date.parse(p.startedAt) ? p.startedAt : seen };
}

/** Every page of a list endpoint (folders, conversations, agents), following the Link header. */
async function listAll<T>(ctx: FreshdeskCtx, path: string, item: z.ZodType<T>): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; page <= MAX_PAGE; page++) {
    const r = await freshdeskGet<unknown>(ctx, path, { query: { per_page: PER_PAGE, page } });
    out.push(...z.array(item).parse(r.body));
    if (!r.next) break;
  }
  return out;
}

const agentItem = z.object({ id: z.number(), contact: z.object({ name: z.string().nullable().optional(), email: z.string().nullable().optional() }).optional() });
const categoryItem = z.object({ id: z.number(), name: z.string() });
const folderItem = z.object({ id: z.number(), name: z.string(), visibility: z.number(), company_ids: z.array(z.number()).nullable().optional() });

const afterTickets = (p: FreshdeskPage, ctx: FreshdeskCtx): FreshdeskPage | null => {
  if (p.mode === 'incremental') return { ...p, phase: 'deleted', page: 1 };
  return ctx.settings.include_articles ? { ...p, phase: 'solutions' } : null;
};

async function readPage(ctx: FreshdeskCtx, p: FreshdeskPage): Promise<Page<FreshdeskPage, FreshdeskCursor>> {
  const host = freshdeskHost(ctx.settings);
  if (p.phase === 'setup') {
    // Agents' names (conversation authors, assignees) once per sync: a few requests instead of one per author.
    const agents = Object.fromEntries(
      (await listAll(ctx, '/api/v2/agents', agentItem)).map((a) => [String(a.id), { name: a.contact?.name || a.contact?.email || `agent ${a.id}`, email: a.contact?.email ?? null }]),
    );
    const next: FreshdeskPage = { ...p, agents, startedAt: ctx.now.toISOString() };
    return { documents: [], next: ctx.settings.include_tickets ? { ...next, phase: 'tickets' } : ctx.settings.include_articles ? { ...next, phase: 'solutions' } : null, cursor: cursorOf(next) };
  }

  if (p.phase === 'tickets') {
    const r = await freshdeskGet<unknown>(ctx, '/api/v2/tickets', {
      query: { updated_since: p.since, order_by: 'updated_at', order_type: 'asc', per_page: PER_PAGE, page: p.page, include: 'requester,description' },
    });
    const documents: SourceDocument[] = [];
    let maxUpdated = p.maxUpdated;
    for (const raw of z.array(z.unknown()).parse(r.body)) {
      const t = freshdeskTicket.parse(raw);
      const conversations: FreshdeskConversation[] = await listAll(ctx, `/api/v2/tickets/${t.id}/conversations`, freshdeskConversation);
      documents.push(ticketToDocument(t, conversations, p.agents, { host, includePrivateNotes: ctx.settings.include_private_notes }));
      maxUpdated = later(maxUpdated, t.updated_at);
    }
    const here: FreshdeskPage = { ...p, maxUpdated };
    let next: FreshdeskPage | null;
    if (r.next && p.page < MAX_PAGE) next = { ...here, page: p.page + 1 };
    else if (r.next && maxUpdated && Date.parse(maxUpdated) > Date.parse(p.since)) next = { ...here, since: maxUpdated, page: 1 };
    else next = afterTickets(here, ctx);
    return { documents, next, cursor: cursorOf(here) };
  }

  if (p.phase === 'deleted') {
    // The default listing hides deleted (trashed) tickets; an incremental sync asks for them and deletes those it has.
    const r = await freshdeskGet<unknown>(ctx, '/api/v2/tickets', { query: { filter: 'deleted', per_page: PER_PAGE, page: p.page } });
    const deleted = z
      .array(z.object({ id: z.number() }))
      .parse(r.body)
      .map((t) => ticketExternalId(t.id));
    const next: FreshdeskPage | null = r.next && p.page < MAX_PAGE ? { ...p, page: p.page + 1 } : ctx.settings.include_articles ? { ...p, phase: 'solutions' } : null;
    return { documents: [], deleted, next, cursor: cursorOf(p) };
  }

  if (p.phase === 'solutions') {
    const folders: FolderRef[] = [];
    for (const c of await listAll(ctx, '/api/v2/solutions/categories', categoryItem)) {
      for (const f of await listAll(ctx, `/api/v2/solutions/categories/${c.id}/folders`, folderItem)) {
        folders.push({ id: f.id, name: f.name, category: c.name, visibility: f.visibility, company_ids: f.company_ids ?? [] });
      }
    }
    return { documents: [], next: folders.length ? { ...p, phase: 'articles', folders, folderIndex: 0, page: 1 } : null, cursor: cursorOf(p) };
  }

  const folder = p.folders[p.folderIndex];
  if (!folder) return { documents: [], next: null, cursor: cursorOf(p) };
  const r = await freshdeskGet<unknown>(ctx, `/api/v2/solutions/folders/${folder.id}/articles`, { query: { per_page: PER_PAGE, page: p.page } });
  const documents: SourceDocument[] = [];
  const deleted: string[] = [];
  for (const raw of z.array(z.unknown()).parse(r.body)) {
    const a = freshdeskArticle.parse(raw);
    // Drafts are not synced; an article unpublished back to draft leaves the index.
    if (a.status !== PUBLISHED) {
      if (p.mode === 'incremental') deleted.push(articleExternalId(a.id));
      continue;
    }
    documents.push(articleToDocument(a, folder, p.agents, host));
  }
  let next: FreshdeskPage | null;
  if (r.next && p.page < MAX_PAGE) next = { ...p, page: p.page + 1 };
  else next = p.folderIndex + 1 < p.folders.length ? { ...p, folderIndex: p.folderIndex + 1, page: 1 } : null;
  return { documents, deleted, next, cursor: cursorOf(p) };
}

export const freshdeskSync: SyncCapability<FreshdeskCredentials, FreshdeskSettings, FreshdeskCursor, FreshdeskPage> = {
  cursorSchema: freshdeskCursor,
  pageSchema: freshdeskPage,
  start(mode: SyncMode, since: FreshdeskCursor | null): FreshdeskPage {
    const cursorSince = mode === 'incremental' ? (since?.updated_since ?? null) : null;
    return { mode, phase: 'setup', startedAt: null, agents: {}, cursorSince, since: cursorSince ?? EPOCH, page: 1, maxUpdated: null, folders: [], folderIndex: 0 };
  },
  readPage,
};
