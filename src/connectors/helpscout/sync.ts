import { z } from 'zod';
import type { Page, SourceDocument, SourceIdentities, SyncCapability, SyncMode } from '../kit/index.ts';
import { docsJson, type HelpscoutCtx, mailboxJson, sameHostPath } from './client.ts';
import {
  articleToDocument,
  conversationExternalId,
  conversationToDocument,
  docsArticle,
  docsCollection,
  helpscoutConversation,
  mailboxGroup,
} from './map.ts';
import type { HelpscoutCredentials, HelpscoutSettings } from './schemas.ts';

const ARTICLE_PAGE = 100;

const collectionRef = z.object({ id: z.string(), name: z.string().nullable().optional(), visibility: z.string().optional() });

export const helpscoutPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'conversations', 'collections', 'articles']),
  startedAt: z.number().nullable(),
  /** Mailbox id → name (the conversation header names its mailbox). */
  mailboxes: z.record(z.string(), z.string()),
  /** Incremental: conversations modified since (ms); null = every conversation. */
  conversationsSince: z.number().nullable(),
  conversationPage: z.number().int(),
  maxConversation: z.number().nullable(),
  /** Incremental: articles updated after (ms); null = every published article. */
  articlesSince: z.number().nullable(),
  collections: z.array(collectionRef),
  collectionIndex: z.number().int(),
  articlePage: z.number().int(),
  maxArticle: z.number().nullable(),
});
export type HelpscoutPage = z.infer<typeof helpscoutPage>;

export const helpscoutCursor = z.object({ conversations_since: z.number().nullable(), articles_since: z.number().nullable() });
export type HelpscoutCursor = z.infer<typeof helpscoutCursor>;

/** A HAL list: `_embedded.<name>`, `page` numbers and `_links.next`. */
const halList = <T extends z.ZodType>(name: string, item: T) =>
  z.object({
    _embedded: z.record(z.string(), z.array(item)).optional(),
    page: z.object({ number: z.number(), totalPages: z.number() }).optional(),
    _links: z.object({ next: z.object({ href: z.string() }).optional() }).partial().optional(),
  }).transform((r) => ({ items: r._embedded?.[name] ?? [], next: r._links?.next?.href ?? null, page: r.page }));

/** A Docs API list: `{<name>: {page, pages, count, items}}`. */
const docsList = <T extends z.ZodType>(name: string, item: T) =>
  z.record(z.string(), z.unknown()).transform((r, ctx) => {
    const parsed = z.object({ page: z.number(), pages: z.number(), items: z.array(item).default([]) }).safeParse(r[name]);
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: `Help Scout Docs answered without ${name}` });
      return z.NEVER;
    }
    return parsed.data;
  });

const capped = (seen: number | null, startedAt: number | null): number | null => (seen !== null && startedAt !== null && seen > startedAt ? startedAt : seen);
const cursorOf = (p: HelpscoutPage): HelpscoutCursor => ({
  conversations_since: capped(p.maxConversation ?? p.conversationsSince, p.startedAt),
  articles_since: capped(p.maxArticle ?? p.articlesSince, p.startedAt),
});
const later = (a: number | null, b: string | null | undefined): number | null => {
  const t = b ? Date.parse(b) : Number.NaN;
  return Number.isNaN(t) ? a : a === null || t > a ? t : a;
};

const wantsArticles = (ctx: HelpscoutCtx): boolean => ctx.settings.include_articles && Boolean(ctx.credentials.docs_api_key);

function after(p: HelpscoutPage, ctx: HelpscoutCtx, phase: 'setup' | 'conversations'): HelpscoutPage | null {
  if (phase === 'setup' && ctx.settings.include_conversations) return { ...p, phase: 'conversations', conversationPage: 1 };
  return wantsArticles(ctx) ? { ...p, phase: 'collections', articlePage: 1 } : null;
}

/** Mailboxes and the users with access to each: the identity directory behind `helpscout:mailbox:<id>`. */
async function readSetup(ctx: HelpscoutCtx, p: HelpscoutPage): Promise<Page<HelpscoutPage, HelpscoutCursor>> {
  const here: HelpscoutPage = { ...p, startedAt: ctx.now.getTime() };
  if (!ctx.settings.include_conversations) return { documents: [], next: after(here, ctx, 'setup'), cursor: cursorOf(here) };
  const mailbox = z.object({ id: z.number(), name: z.string() });
  const user = z.object({ id: z.number(), firstName: z.string().nullable().optional(), lastName: z.string().nullable().optional(), email: z.string().nullable().optional() });
  const mailboxes: Record<string, string> = {};
  const accounts = new Map<number, { account_id: string; email: string | null; display_name: string | null }>();
  const groups: { group_id: string; members: string[] }[] = [];
  let next: string | null = '/v2/mailboxes';
  while (next) {
    const r = halList('mailboxes', mailbox).parse(await mailboxJson<unknown>(ctx, next));
    for (const m of r.items) {
      if (ctx.settings.mailbox_ids && !ctx.settings.mailbox_ids.includes(m.id)) continue;
      mailboxes[String(m.id)] = m.name;
      const members: string[] = [];
      let users: string | null = `/v2/users?mailbox=${m.id}`;
      while (users) {
        const u = halList('users', user).parse(await mailboxJson<unknown>(ctx, users));
        for (const x of u.items) {
          const ref = x.email ? x.email.toLowerCase() : `helpscout:user:${x.id}`;
          members.push(ref);
          accounts.set(x.id, { account_id: `helpscout:user:${x.id}`, email: x.email?.toLowerCase() ?? null, display_name: [x.firstName, x.lastName].filter(Boolean).join(' ') || null });
        }
        users = u.next ? sameHostPath(u.next) : null;
      }
      groups.push({ group_id: mailboxGroup(m.id), members });
    }
    next = r.next ? sameHostPath(r.next) : null;
  }
  const identities: SourceIdentities = { accounts: [...accounts.values()], groups };
  const withBoxes = { ...here, mailboxes };
  return { documents: [], identities, next: after(withBoxes, ctx, 'setup'), cursor: cursorOf(withBoxes) };
}

/** Help Scout's `modifiedSince`: ISO 8601 to the second, one second before the cursor (re-reads are unchanged). */
export const modifiedSince = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000 - 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

async function readConversations(ctx: HelpscoutCtx, p: HelpscoutPage): Promise<Page<HelpscoutPage, HelpscoutCursor>> {
  const query = {
    status: 'all',
    embed: 'threads',
    sortField: 'modifiedAt',
    sortOrder: 'asc',
    page: p.conversationPage,
    mailbox: ctx.settings.mailbox_ids?.join(','),
    modifiedSince: p.mode === 'incremental' && p.conversationsSince !== null ? modifiedSince(p.conversationsSince) : undefined,
  };
  const r = halList('conversations', z.unknown()).parse(await mailboxJson<unknown>(ctx, '/v2/conversations', query));
  const documents: SourceDocument[] = [];
  const deleted: string[] = [];
  let maxConversation = p.maxConversation;
  for (const raw of r.items) {
    const c = helpscoutConversation.parse(raw);
    maxConversation = later(maxConversation, c.userUpdatedAt ?? c.createdAt);
    // Deleted and spam conversations leave the index (an incremental sync deletes them, a full one sweeps them);
    // drafts were never sent.
    if (c.state === 'deleted' || c.status === 'spam' || c.state === 'draft') {
      if (p.mode === 'incremental') deleted.push(conversationExternalId(c.id));
      continue;
    }
    documents.push(conversationToDocument(c, { includeNotes: ctx.settings.include_notes, mailboxName: p.mailboxes[String(c.mailboxId)] }));
  }
  const here: HelpscoutPage = { ...p, maxConversation };
  const more = r.items.length > 0 && (r.page ? r.page.number < r.page.totalPages : Boolean(r.next));
  return { documents, deleted, next: more ? { ...here, conversationPage: p.conversationPage + 1 } : after(here, ctx, 'conversations'), cursor: cursorOf(here) };
}

async function readCollections(ctx: HelpscoutCtx, p: HelpscoutPage): Promise<Page<HelpscoutPage, HelpscoutCursor>> {
  const r = docsList('collections', docsCollection).parse(await docsJson<unknown>(ctx, '/v1/collections', { page: p.articlePage }));
  const here: HelpscoutPage = { ...p, collections: [...p.collections, ...r.items.map((c) => ({ id: c.id, name: c.name ?? null, visibility: c.visibility }))] };
  const next: HelpscoutPage | null =
    r.page < r.pages ? { ...here, articlePage: p.articlePage + 1 } : here.collections.length ? { ...here, phase: 'articles', collectionIndex: 0, articlePage: 1 } : null;
  return { documents: [], next, cursor: cursorOf(here) };
}

async function readArticles(ctx: HelpscoutCtx, p: HelpscoutPage): Promise<Page<HelpscoutPage, HelpscoutCursor>> {
  const collection = p.collections[p.collectionIndex];
  if (!collection) return { documents: [], next: null, cursor: cursorOf(p) };
  const ref = z.object({ id: z.string(), updatedAt: z.string().nullable().optional() });
  const r = docsList('articles', ref).parse(
    await docsJson<unknown>(ctx, `/v1/collections/${encodeURIComponent(collection.id)}/articles`, { status: 'published', sort: 'updatedAt', order: 'desc', pageSize: ARTICLE_PAGE, page: p.articlePage }),
  );
  const documents: SourceDocument[] = [];
  let maxArticle = p.maxArticle;
  let reachedOld = false;
  for (const a of r.items) {
    const updated = a.updatedAt ? Date.parse(a.updatedAt) : Number.NaN;
    // Newest first: an incremental sync stops at the first article not updated since the cursor.
    if (p.mode === 'incremental' && p.articlesSince !== null && !Number.isNaN(updated) && updated <= p.articlesSince) {
      reachedOld = true;
      break;
    }
    const full = z.object({ article: docsArticle }).parse(await docsJson<unknown>(ctx, `/v1/articles/${encodeURIComponent(a.id)}`));
    if (full.article.status !== 'published') continue;
    maxArticle = later(maxArticle, full.article.updatedAt ?? full.article.createdAt);
    documents.push(articleToDocument(full.article, collection));
  }
  const here: HelpscoutPage = { ...p, maxArticle };
  let next: HelpscoutPage | null = null;
  if (!reachedOld && r.page < r.pages) next = { ...here, articlePage: p.articlePage + 1 };
  else if (p.collectionIndex + 1 < p.collections.length) next = { ...here, collectionIndex: p.collectionIndex + 1, articlePage: 1 };
  return { documents, next, cursor: cursorOf(here) };
}

export const helpscoutSync: SyncCapability<HelpscoutCredentials, HelpscoutSettings, HelpscoutCursor, HelpscoutPage> = {
  cursorSchema: helpscoutCursor,
  pageSchema: helpscoutPage,
  start(mode: SyncMode, since: HelpscoutCursor | null): HelpscoutPage {
    const resume = mode === 'incremental' ? since : null;
    return {
      mode,
      phase: 'setup',
      startedAt: null,
      mailboxes: {},
      conversationsSince: resume?.conversations_since ?? null,
      conversationPage: 1,
      maxConversation: null,
      articlesSince: resume?.articles_since ?? null,
      collections: [],
      collectionIndex: 0,
      articlePage: 1,
      maxArticle: null,
    };
  },
  async readPage(ctx, page) {
    if (page.phase === 'setup') return readSetup(ctx, page);
    if (page.phase === 'conversations') return readConversations(ctx, page);
    if (page.phase === 'collections') return readCollections(ctx, page);
    return readArticles(ctx, page);
  },
};
