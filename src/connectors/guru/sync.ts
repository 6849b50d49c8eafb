import { z } from 'zod';
import type { Page, SourceDocument, SyncCapability, SyncMode } from '../kit/index.ts';
import { type GuruCtx, guruAll, guruPage } from './client.ts';
import { cardToDocument, collectionExternalId, collectionToDocument, guruCard, guruCollection } from './map.ts';
import type { GuruCredentials, GuruSettings } from './schemas.ts';

export const guruSyncPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['collections', 'cards']),
  runAt: z.string().nullable(),
  /** The previous run's start: cards with `lastModified >=` it are read (incremental). */
  since: z.string().nullable(),
  collections: z.array(guruCollection),
  /** The card search's `next-page` URL, or null for its first page. */
  next: z.string().nullable(),
});
export type GuruSyncPage = z.infer<typeof guruSyncPage>;

/** Guru's change mechanism: the cards' `lastModified`, queried with `lastModified >= <previous run>`. */
export const guruCursor = z.object({ since: z.string().nullable() });
export type GuruCursor = z.infer<typeof guruCursor>;

type Result = Page<GuruSyncPage, GuruCursor>;

const cursorOf = (p: GuruSyncPage): GuruCursor => ({ since: p.runAt });

/** Guru's query language wants an ISO-8601 time with an explicit offset (`2016-01-15T08:00:00.000+00:00`). */
export function lastModifiedQuery(since: string): string {
  return `lastModified >= ${new Date(since).toISOString().replace('Z', '+00:00')}`;
}

async function collectionsPage(ctx: GuruCtx, p: GuruSyncPage): Promise<Result> {
  const wanted = ctx.settings.collections;
  const collections = (await guruAll(ctx, '/collections', guruCollection)).filter((c) => !wanted || wanted.includes(c.id));
  const deleted: string[] = [];
  if (p.mode === 'incremental') {
    // A collection that is gone (or no longer readable) takes its cards with it.
    const listed = new Set(collections.map((c) => c.id));
    const goneIds = new Set(
      (await ctx.stored('collection:')).map((s) => s.external_id.slice('collection:'.length)).filter((id) => !listed.has(id)),
    );
    if (goneIds.size) {
      deleted.push(...[...goneIds].map(collectionExternalId));
      for (const s of await ctx.stored('card:')) if (goneIds.has(String(s.metadata.collection_id))) deleted.push(s.external_id);
    }
  }
  const documents = collections.map(collectionToDocument);
  return { documents, deleted, next: collections.length ? { ...p, phase: 'cards', collections } : null, cursor: cursorOf(p) };
}

/** One page of `GET /search/query` (every card; incremental: `q=lastModified >= …`), then its `Link: rel="next-page"`. */
async function cardsPage(ctx: GuruCtx, p: GuruSyncPage): Promise<Result> {
  const query = p.mode === 'incremental' && p.since ? { q: lastModifiedQuery(p.since) } : undefined;
  const r = p.next ? await guruPage<unknown>(ctx, p.next) : await guruPage<unknown>(ctx, '/search/query', query);
  const cards = z.array(guruCard).parse(r.body);
  const byId = new Map(p.collections.map((c) => [c.id, c]));
  const documents: SourceDocument[] = [];
  for (const card of cards) {
    const collection = card.collection ? byId.get(card.collection.id) : undefined;
    if (collection) documents.push(cardToDocument(card, collection));
  }
  return { documents, next: r.next ? { ...p, next: r.next } : null, cursor: cursorOf(p) };
}

export const guruSync: SyncCapability<GuruCredentials, GuruSettings, GuruCursor, GuruSyncPage> = {
  cursorSchema: guruCursor,
  pageSchema: guruSyncPage,
  start(mode: SyncMode, since: GuruCursor | null): GuruSyncPage {
    return { mode: mode === 'incremental' && since?.since ? 'incremental' : 'full', phase: 'collections', runAt: null, since: since?.since ?? null, collections: [], next: null };
  },
  async readPage(ctx, page) {
    const p = page.runAt ? page : { ...page, runAt: ctx.now.toISOString() };
    return p.phase === 'collections' ? collectionsPage(ctx, p) : cardsPage(ctx, p);
  },
};
