import { z } from 'zod';
import type { Page, SourceDocument, SyncCapability, SyncMode } from '../kit/index.ts';
import { type AirtableCtx, airtableJson } from './client.ts';
import { airtableBase, airtableRecord, airtableTable, baseExternalId, baseToDocument, recordToDocument, tableExternalId, tableShape, tableToDocument, type TableShape } from './map.ts';
import type { AirtableCredentials, AirtableSettings } from './schemas.ts';

/** Airtable's largest page of records. */
const PAGE_SIZE = 100;
/**
 * The incremental filter starts this long before the previous run began: LAST_MODIFIED_TIME() is Airtable's clock, the
 * cursor ours. Records in the overlap are stored again unchanged (counted as such).
 */
const OVERLAP_MS = 5 * 60_000;

const shape = z.object({
  id: z.string(),
  name: z.string(),
  primaryFieldId: z.string(),
  fields: z.array(z.object({ id: z.string(), name: z.string(), type: z.string(), symbol: z.string().optional() })),
});

export const airtablePage = z.object({
  mode: z.enum(['incremental', 'full']),
  /** Records modified after this instant are read (incremental); null = every record. */
  since: z.string().nullable(),
  /** When this run started: the next incremental sync's cursor. Set by the first page. */
  runAt: z.string().nullable(),
  phase: z.enum(['bases', 'schema', 'records']),
  basesOffset: z.string().nullable(),
  /** The bases to read, the current one first. */
  bases: z.array(z.object({ id: z.string(), name: z.string() })),
  /** The current base's tables still to read, the current one first. */
  tables: z.array(shape),
  recordsOffset: z.string().nullable(),
});
export type AirtablePage = z.infer<typeof airtablePage>;

export const airtableCursor = z.object({ modified_after: z.string() });
export type AirtableCursor = z.infer<typeof airtableCursor>;

const baseList = z.object({ bases: z.array(airtableBase), offset: z.string().optional() });
const tableList = z.object({ tables: z.array(airtableTable) });
const recordList = z.object({ records: z.array(airtableRecord), offset: z.string().optional() });

/** Airtable's formula string literal: single quotes, backslash-escaped. */
const literal = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
export const modifiedSinceFormula = (since: string) => `IS_AFTER(LAST_MODIFIED_TIME(), ${literal(since)})`;

/** Stored ids under `prefix` (an incremental sync's deletions of bases and tables that are gone). */
async function storedIds(ctx: AirtableCtx, prefix: string): Promise<string[]> {
  return (await ctx.stored(prefix)).map((s) => s.external_id);
}

/** A base or table that is gone takes its tables and records with it. */
async function goneWithChildren(ctx: AirtableCtx, ids: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const id of ids) {
    out.push(id);
    const [kind, baseId, tableId] = id.split(':');
    if (kind === 'base' && baseId) out.push(...(await storedIds(ctx, `table:${baseId}:`)), ...(await storedIds(ctx, `record:${baseId}:`)));
    if (kind === 'table' && baseId && tableId) out.push(...(await storedIds(ctx, `record:${baseId}:${tableId}:`)));
  }
  return out;
}

/** After the current base: the next base's schema, or the end. */
function nextBase(p: AirtablePage): AirtablePage | null {
  const bases = p.bases.slice(1);
  return bases.length > 0 ? { ...p, phase: 'schema', bases, tables: [], recordsOffset: null } : null;
}

async function basesPage(ctx: AirtableCtx, p: AirtablePage): Promise<Page<AirtablePage, AirtableCursor>> {
  const r = baseList.parse(await airtableJson<unknown>(ctx, '/v0/meta/bases', { query: { offset: p.basesOffset } }));
  const wanted = ctx.settings.bases ? new Set(ctx.settings.bases) : null;
  const bases = [...p.bases, ...r.bases.filter((b) => !wanted || wanted.has(b.id)).map((b) => ({ id: b.id, name: b.name }))];
  if (r.offset) return { documents: [], next: { ...p, basesOffset: r.offset, bases }, cursor: null };
  let deleted: string[] = [];
  if (p.mode === 'incremental') {
    const listed = new Set(bases.map((b) => baseExternalId(b.id)));
    deleted = await goneWithChildren(ctx, (await storedIds(ctx, 'base:')).filter((id) => !listed.has(id)));
  }
  return { documents: [], deleted, next: bases.length > 0 ? { ...p, phase: 'schema', basesOffset: null, bases } : null, cursor: cursorOf(p) };
}

async function schemaPage(ctx: AirtableCtx, p: AirtablePage): Promise<Page<AirtablePage, AirtableCursor>> {
  const base = p.bases[0];
  if (!base) return { documents: [], next: null, cursor: cursorOf(p) };
  const r = tableList.parse(await airtableJson<unknown>(ctx, `/v0/meta/bases/${encodeURIComponent(base.id)}/tables`));
  const documents: SourceDocument[] = [baseToDocument({ id: base.id, name: base.name }, r.tables), ...r.tables.map((t) => tableToDocument(t, base))];
  let deleted: string[] = [];
  if (p.mode === 'incremental') {
    const listed = new Set(r.tables.map((t) => tableExternalId(base.id, t.id)));
    deleted = await goneWithChildren(ctx, (await storedIds(ctx, `table:${base.id}:`)).filter((id) => !listed.has(id)));
  }
  const tables: TableShape[] = r.tables.map(tableShape);
  const next: AirtablePage | null = tables.length > 0 ? { ...p, phase: 'records', tables, recordsOffset: null } : nextBase(p);
  return { documents, deleted, next, cursor: cursorOf(p) };
}

async function recordsPage(ctx: AirtableCtx, p: AirtablePage): Promise<Page<AirtablePage, AirtableCursor>> {
  const base = p.bases[0];
  const table = p.tables[0];
  if (!base || !table) return { documents: [], next: base ? nextBase(p) : null, cursor: cursorOf(p) };
  const query = { pageSize: PAGE_SIZE, offset: p.recordsOffset, filterByFormula: p.since ? modifiedSinceFormula(p.since) : undefined };
  const r = recordList.parse(await airtableJson<unknown>(ctx, `/v0/${encodeURIComponent(base.id)}/${encodeURIComponent(table.id)}`, { query }));
  const documents = r.records.map((rec) => recordToDocument(rec, table, base));
  let next: AirtablePage | null;
  if (r.offset) next = { ...p, recordsOffset: r.offset };
  else if (p.tables.length > 1) next = { ...p, tables: p.tables.slice(1), recordsOffset: null };
  else next = nextBase(p);
  return { documents, next, cursor: cursorOf(p) };
}

const cursorOf = (p: AirtablePage): AirtableCursor | null => (p.runAt ? { modified_after: p.runAt } : null);

export const airtableSync: SyncCapability<AirtableCredentials, AirtableSettings, AirtableCursor, AirtablePage> = {
  cursorSchema: airtableCursor,
  pageSchema: airtablePage,
  start(mode: SyncMode, since: AirtableCursor | null): AirtablePage {
    const from = mode === 'incremental' && since ? Date.parse(since.modified_after) : NaN;
    return {
      mode,
      since: Number.isNaN(from) ? null : new Date(from - OVERLAP_MS).toISOString(),
      runAt: null,
      phase: 'bases',
      basesOffset: null,
      bases: [],
      tables: [],
      recordsOffset: null,
    };
  },
  async readPage(ctx, page) {
    const p = page.runAt ? page : { ...page, runAt: ctx.now.toISOString() };
    if (p.phase === 'bases') return basesPage(ctx, p);
    if (p.phase === 'schema') return schemaPage(ctx, p);
    return recordsPage(ctx, p);
  },
};
