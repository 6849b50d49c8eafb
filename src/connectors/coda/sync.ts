import { z } from 'zod';
import type { Page, SourceDocument, SyncCapability, SyncMode } from '../kit/index.ts';
import { type CodaCtx, codaJson, listAll } from './client.ts';
import { exportPageMarkdown } from './export.ts';
import {
  type CodaPage,
  codaDoc,
  codaPage,
  codaRow,
  codaTable,
  type DocRef,
  docExternalId,
  docRef,
  docToDocument,
  pageExternalId,
  pageToDocument,
  rowToDocument,
} from './map.ts';
import type { CodaCredentials, CodaSettings } from './schemas.ts';

const DOC_PAGE = 100;
const ROW_PAGE = 100;

const docRefSchema = z.object({
  id: z.string(),
  name: z.string(),
  browserLink: z.string(),
  owner: z.string().nullable(),
  ownerName: z.string().nullable(),
  workspaceId: z.string().nullable(),
  folderName: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const codaSyncPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['docs', 'doc', 'page', 'rows']),
  runAt: z.string().nullable(),
  docsToken: z.string().nullable(),
  /** Docs to read, the current one first. */
  docs: z.array(docRefSchema),
  /** The current doc's pages still to export, the current one first. */
  pages: z.array(codaPage),
  /** The current doc's tables still to read, the current one first. */
  tables: z.array(z.object({ id: z.string(), name: z.string() })),
  rowsToken: z.string().nullable(),
  /** Names for the doc's own document, written once its pages and rows are stored. */
  pageNames: z.array(z.string()),
  tableNames: z.array(z.string()),
  /** A page of the current doc could not be exported: the doc's stored `updated_at` stays null so it is read again. */
  incomplete: z.boolean().default(false),
});
export type CodaSyncPage = z.infer<typeof codaSyncPage>;

/** Coda's change mechanism is `updatedAt` on docs and pages compared with what is stored: the cursor only records the run. */
export const codaCursor = z.object({ synced_at: z.string().nullable() });
export type CodaCursor = z.infer<typeof codaCursor>;

type Result = Page<CodaSyncPage, CodaCursor>;

const docList = z.object({ items: z.array(codaDoc), nextPageToken: z.string().nullable().optional() });
const rowList = z.object({ items: z.array(codaRow), nextPageToken: z.string().nullable().optional() });

const cursorOf = (p: CodaSyncPage): CodaCursor => ({ synced_at: p.runAt });
const docPath = (id: string) => `/docs/${encodeURIComponent(id)}`;

async function storedMap(ctx: CodaCtx, prefix: string): Promise<Map<string, Readonly<Record<string, unknown>>>> {
  return new Map((await ctx.stored(prefix)).map((s) => [s.external_id, s.metadata]));
}

/** A doc that is gone takes its pages and rows with it. */
async function goneDocs(ctx: CodaCtx, ids: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const docId of ids) {
    out.push(docExternalId(docId));
    for (const prefix of [`page:${docId}:`, `row:${docId}:`]) out.push(...(await ctx.stored(prefix)).map((s) => s.external_id));
  }
  return out;
}

/** The next step inside the current doc, or (the doc done) its own document and the next doc. */
function advance(p: CodaSyncPage, documents: SourceDocument[]): CodaSyncPage | null {
  const doc = p.docs[0];
  if (p.pages.length > 0) return { ...p, phase: 'page' };
  if (p.tables.length > 0) return { ...p, phase: 'rows' };
  if (doc) documents.push(docToDocument(doc, p.pageNames, p.tableNames, !p.incomplete));
  const docs = p.docs.slice(1);
  return docs.length > 0 ? { ...p, phase: 'doc', docs, pages: [], tables: [], rowsToken: null, pageNames: [], tableNames: [], incomplete: false } : null;
}

async function docsPage(ctx: CodaCtx, p: CodaSyncPage): Promise<Result> {
  const query = { limit: DOC_PAGE, pageToken: p.docsToken, workspaceId: ctx.settings.workspace_id };
  const r = docList.parse(await codaJson<unknown>(ctx, '/docs', { query }));
  const wanted = ctx.settings.docs ? new Set(ctx.settings.docs) : null;
  const docs = [...p.docs, ...r.items.filter((d) => !wanted || wanted.has(d.id)).map(docRef)];
  if (r.nextPageToken) return { documents: [], next: { ...p, docsToken: r.nextPageToken, docs }, cursor: null };
  let queue: DocRef[] = docs;
  let deleted: string[] = [];
  if (p.mode === 'incremental') {
    const stored = await storedMap(ctx, 'doc:');
    const listed = new Set(docs.map((d) => docExternalId(d.id)));
    deleted = await goneDocs(ctx, [...stored.keys()].filter((id) => !listed.has(id)).map((id) => id.slice('doc:'.length)));
    // A doc whose updatedAt is the one stored with it changed nowhere: none of its pages or rows is read.
    queue = docs.filter((d) => stored.get(docExternalId(d.id))?.updated_at !== d.updatedAt);
  }
  const next: CodaSyncPage | null = queue.length > 0 ? { ...p, phase: 'doc', docsToken: null, docs: queue } : null;
  return { documents: [], deleted, next, cursor: cursorOf(p) };
}

async function docPage(ctx: CodaCtx, p: CodaSyncPage): Promise<Result> {
  const doc = p.docs[0];
  if (!doc) return { documents: [], next: null, cursor: cursorOf(p) };
  const pages = ctx.settings.include_pages ? await listAll(ctx, `${docPath(doc.id)}/pages`, codaPage, { limit: 100 }) : [];
  const tables = ctx.settings.include_tables ? await listAll(ctx, `${docPath(doc.id)}/tables`, codaTable, { limit: 100, tableTypes: 'table' }) : [];
  // Only canvas pages have content to export; embeds and sync pages show other docs' or sites' content.
  let toExport: CodaPage[] = pages.filter((x) => x.contentType === 'canvas');
  const deleted: string[] = [];
  if (p.mode === 'incremental') {
    const storedPages = await storedMap(ctx, `page:${doc.id}:`);
    const listed = new Set(toExport.map((x) => pageExternalId(doc.id, x.id)));
    deleted.push(...[...storedPages.keys()].filter((id) => !listed.has(id)));
    toExport = toExport.filter((x) => storedPages.get(pageExternalId(doc.id, x.id))?.updated_at !== (x.updatedAt ?? null));
    const tableIds = new Set(tables.map((t) => t.id));
    deleted.push(...(await ctx.stored(`row:${doc.id}:`)).map((s) => s.external_id).filter((id) => !tableIds.has(id.split(':')[2] ?? '')));
  }
  const documents: SourceDocument[] = [];
  const here: CodaSyncPage = {
    ...p,
    pages: toExport,
    tables: tables.map((t) => ({ id: t.id, name: t.name })),
    rowsToken: null,
    pageNames: pages.map((x) => x.name),
    tableNames: tables.map((t) => t.name),
  };
  return { documents, deleted, next: advance(here, documents), cursor: cursorOf(p) };
}

async function exportPage(ctx: CodaCtx, p: CodaSyncPage): Promise<Result> {
  const doc = p.docs[0];
  const page = p.pages[0];
  if (!doc || !page) return { documents: [], next: advance({ ...p, pages: [] }, []), cursor: cursorOf(p) };
  const documents: SourceDocument[] = [];
  const skipped: { external_id: string; reason: string }[] = [];
  const r = await exportPageMarkdown(ctx, doc.id, page.id);
  if (r.ok) documents.push(pageToDocument(page, doc, r.markdown));
  else skipped.push({ external_id: pageExternalId(doc.id, page.id), reason: r.reason });
  return { documents, skipped, next: advance({ ...p, pages: p.pages.slice(1), incomplete: p.incomplete || !r.ok }, documents), cursor: cursorOf(p) };
}

async function rowsPage(ctx: CodaCtx, p: CodaSyncPage): Promise<Result> {
  const doc = p.docs[0];
  const table = p.tables[0];
  if (!doc || !table) return { documents: [], next: advance({ ...p, tables: [] }, []), cursor: cursorOf(p) };
  const query = { useColumnNames: true, valueFormat: 'simple', limit: ROW_PAGE, pageToken: p.rowsToken };
  const r = rowList.parse(await codaJson<unknown>(ctx, `${docPath(doc.id)}/tables/${encodeURIComponent(table.id)}/rows`, { query }));
  const documents = r.items.map((row) => rowToDocument(row, table, doc));
  const next = r.nextPageToken ? { ...p, rowsToken: r.nextPageToken } : advance({ ...p, tables: p.tables.slice(1), rowsToken: null }, documents);
  return { documents, next, cursor: cursorOf(p) };
}

export const codaSync: SyncCapability<CodaCredentials, CodaSettings, CodaCursor, CodaSyncPage> = {
  cursorSchema: codaCursor,
  pageSchema: codaSyncPage,
  start(mode: SyncMode): CodaSyncPage {
    return { mode, phase: 'docs', runAt: null, docsToken: null, docs: [], pages: [], tables: [], rowsToken: null, pageNames: [], tableNames: [], incomplete: false };
  },
  async readPage(ctx, page) {
    const p = page.runAt ? page : { ...page, runAt: ctx.now.toISOString() };
    if (p.phase === 'docs') return docsPage(ctx, p);
    if (p.phase === 'doc') return docPage(ctx, p);
    if (p.phase === 'page') return exportPage(ctx, p);
    return rowsPage(ctx, p);
  },
};
