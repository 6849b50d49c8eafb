import { z } from 'zod';
import type { Page, SourceDocument, SyncCapability, SyncMode } from '../kit/index.ts';
import { getDeleted, getUserInfo, instanceUrl, query, queryAll, type QueryResult, SalesforceApiError, type SalesforceCtx } from './client.ts';
import { articleExternalId, articleToDocument, COMMENT_FIELDS, externalId, field, knowledgeFields, recordToDocument, type SfRecord, SPECS, soqlDateTime, soqlString } from './map.ts';
import type { SalesforceCredentials, SalesforceObject, SalesforceSettings } from './schemas.ts';

/** getDeleted answers for no more than 15 days before the day of the call (REST API guide, sObject Get Deleted). */
export const DELETE_LOG_DAYS = 15;
/** Ids per `IN (…)` list: keeps the GET query URL far below Salesforce's URI length limit. */
const IN_CHUNK = 200;

export const salesforcePage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'records', 'changes', 'knowledge_ids']),
  /** Salesforce's clock when this sync started (HTTP Date of the setup call): the next cursor and getDeleted's end. */
  serverStart: z.string().nullable(),
  /** Incremental: records with SystemModstamp after this instant are read; null = read everything. */
  since: z.string().nullable(),
  objectIndex: z.number().int(),
  nextRecordsUrl: z.string().nullable(),
  /** False once the org answered that the knowledge object does not exist (Knowledge not enabled). */
  knowledgeEnabled: z.boolean(),
  /** Incremental: external ids of every article still online, to find the archived and deleted ones. */
  knowledgeIds: z.array(z.string()),
});
export type SalesforcePage = z.infer<typeof salesforcePage>;
export const salesforceCursor = z.object({ since: z.string() });
export type SalesforceCursor = z.infer<typeof salesforceCursor>;

type RecordObject = Exclude<SalesforceObject, 'knowledge_article'>;
const isRecordObject = (o: SalesforceObject): o is RecordObject => o !== 'knowledge_article';

const cursorOf = (p: SalesforcePage): SalesforceCursor | null => (p.serverStart ? { since: p.serverStart } : p.since ? { since: p.since } : null);

function knowledgeSoql(s: SalesforceSettings, fields: readonly string[], since: string | null): string {
  const where = ["PublishStatus = 'Online'", ...(s.knowledge_language ? [`Language = ${soqlString(s.knowledge_language)}`] : []), ...(since ? [`SystemModstamp > ${soqlDateTime(since)}`] : [])];
  return `SELECT ${fields.join(', ')} FROM ${s.knowledge_object} WHERE ${where.join(' AND ')} ORDER BY SystemModstamp ASC`;
}

export function recordSoql(object: SalesforceObject, s: SalesforceSettings, since: string | null): string {
  if (object === 'knowledge_article') return knowledgeSoql(s, knowledgeFields(s), since);
  const spec = SPECS[object];
  return `SELECT ${spec.fields.join(', ')} FROM ${spec.sobject}${since ? ` WHERE SystemModstamp > ${soqlDateTime(since)}` : ''} ORDER BY SystemModstamp ASC`;
}

const inList = (ids: readonly string[]) => `(${ids.map(soqlString).join(', ')})`;
function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The CaseComments of these cases, grouped by case id (oldest first). */
async function caseComments(ctx: SalesforceCtx, caseIds: readonly string[]): Promise<Map<string, SfRecord[]>> {
  const byCase = new Map<string, SfRecord[]>();
  if (!ctx.settings.include_case_comments) return byCase;
  for (const ids of chunks(caseIds, IN_CHUNK)) {
    const rows = await queryAll(ctx, `SELECT ${COMMENT_FIELDS.join(', ')} FROM CaseComment WHERE ParentId IN ${inList(ids)} ORDER BY CreatedDate ASC`);
    for (const c of rows) {
      const parent = field(c, 'ParentId');
      if (parent) byCase.set(parent, [...(byCase.get(parent) ?? []), c]);
    }
  }
  return byCase;
}

async function recordDocuments(ctx: SalesforceCtx, object: SalesforceObject, records: QueryResult['records']): Promise<SourceDocument[]> {
  const instance = instanceUrl(ctx);
  if (object === 'knowledge_article') return records.map((r) => articleToDocument(r, instance, ctx.settings));
  if (object !== 'case') return records.map((r) => recordToDocument(object, r, instance));
  const comments = await caseComments(ctx, records.map((r) => field(r, 'Id') ?? ''));
  return records.map((r) => recordToDocument('case', r, instance, comments.get(field(r, 'Id') ?? '') ?? []));
}

/** After the records: the next object, or (incremental) the change phases, or the end. */
function afterObject(p: SalesforcePage, s: SalesforceSettings): SalesforcePage | null {
  const next = { ...p, nextRecordsUrl: null };
  if (p.objectIndex + 1 < s.objects.length) return { ...next, objectIndex: p.objectIndex + 1 };
  if (p.mode === 'incremental' && p.since) return { ...next, phase: 'changes' };
  return null;
}

async function readRecords(ctx: SalesforceCtx, p: SalesforcePage): Promise<Page<SalesforcePage, SalesforceCursor>> {
  const object = ctx.settings.objects[p.objectIndex];
  if (!object) return { documents: [], next: null, cursor: cursorOf(p) };
  if (object === 'knowledge_article' && !p.knowledgeEnabled) return { documents: [], next: afterObject(p, ctx.settings), cursor: cursorOf(p) };
  const since = p.mode === 'incremental' ? p.since : null;
  let r: QueryResult;
  try {
    r = await query(ctx, p.nextRecordsUrl ? { next: p.nextRecordsUrl } : { soql: recordSoql(object, ctx.settings, since) });
  } catch (err) {
    // Knowledge is an org feature: without it the article object does not exist (INVALID_TYPE); the rest still syncs.
    if (object === 'knowledge_article' && err instanceof SalesforceApiError && err.errorCode === 'INVALID_TYPE') {
      ctx.log.info({ connectorId: ctx.connectorId, object: ctx.settings.knowledge_object }, 'Salesforce Knowledge is not enabled; articles skipped');
      const skipped = { ...p, knowledgeEnabled: false };
      return { documents: [], next: afterObject(skipped, ctx.settings), cursor: cursorOf(p) };
    }
    throw err;
  }
  const documents = await recordDocuments(ctx, object, r.records);
  const next = !r.done && r.nextRecordsUrl ? { ...p, nextRecordsUrl: r.nextRecordsUrl } : afterObject(p, ctx.settings);
  return { documents, next, cursor: cursorOf(p) };
}

/** Deleted records of one type since the cursor (getDeleted), or null when the delete log cannot answer that far back. */
async function deletedIds(ctx: SalesforceCtx, sobject: string, since: string, end: string): Promise<string[] | null> {
  if (Date.parse(end) - Date.parse(since) > DELETE_LOG_DAYS * 86_400_000) return null;
  try {
    const r = await getDeleted(ctx, sobject, since, end);
    // The log was purged past our start (earliestDateAvailable after it): what went before is unknown.
    if (r.earliestDateAvailable && Date.parse(r.earliestDateAvailable.replace(/([+-]\d\d)(\d\d)$/, '$1:$2')) > Date.parse(since)) {
      ctx.log.warn({ connectorId: ctx.connectorId, sobject }, 'Salesforce delete log purged past the cursor; the next full sync removes what was deleted before it');
    }
    return r.deletedRecords.map((d) => d.id);
  } catch (err) {
    if (err instanceof SalesforceApiError && err.errorCode === 'INVALID_REPLICATION_DATE') return null;
    throw err;
  }
}

/**
 * Incremental: getDeleted for every synced type, then the cases whose comments changed or were deleted since the
 * cursor (a CaseComment edit does not move its case's SystemModstamp), read again with their comments.
 */
async function readChanges(ctx: SalesforceCtx, p: SalesforcePage): Promise<Page<SalesforcePage, SalesforceCursor>> {
  const since = p.since ?? '';
  const end = p.serverStart ?? ctx.now.toISOString();
  const deleted: string[] = [];
  const objects = ctx.settings.objects.filter(isRecordObject);
  let logGap = false;
  for (const o of objects) {
    const ids = await deletedIds(ctx, SPECS[o].sobject, since, end);
    if (ids === null) logGap = true;
    deleted.push(...(ids ?? []).map((id) => externalId(o, id)));
  }
  const documents: SourceDocument[] = [];
  if (objects.includes('case') && ctx.settings.include_case_comments) {
    const refresh = new Set<string>();
    for (const c of await queryAll(ctx, `SELECT ParentId FROM CaseComment WHERE SystemModstamp > ${soqlDateTime(since)}`)) {
      const parent = field(c, 'ParentId');
      if (parent) refresh.add(parent);
    }
    const goneComments = new Set((await deletedIds(ctx, 'CaseComment', since, end)) ?? []);
    if (goneComments.size > 0) {
      for (const s of await ctx.stored('case:')) {
        const ids = Array.isArray(s.metadata.comment_ids) ? s.metadata.comment_ids : [];
        if (ids.some((id) => typeof id === 'string' && goneComments.has(id))) refresh.add(s.external_id.slice('case:'.length));
      }
    }
    for (const d of deleted) if (d.startsWith('case:')) refresh.delete(d.slice('case:'.length));
    for (const ids of chunks([...refresh], IN_CHUNK)) {
      const cases = await queryAll(ctx, `SELECT ${SPECS.case.fields.join(', ')} FROM Case WHERE Id IN ${inList(ids)}`);
      documents.push(...(await recordDocuments(ctx, 'case', cases)));
    }
  }
  if (logGap) ctx.log.warn({ connectorId: ctx.connectorId, since }, `Salesforce getDeleted reaches ${DELETE_LOG_DAYS} days back at most; the next full sync removes older deletions`);
  const knowledge = ctx.settings.objects.includes('knowledge_article') && p.knowledgeEnabled;
  return { documents, deleted, next: knowledge ? { ...p, phase: 'knowledge_ids', nextRecordsUrl: null, knowledgeIds: [] } : null, cursor: cursorOf(p) };
}

/** Incremental: every online article's id; the stored articles not among them were archived or deleted. */
async function readKnowledgeIds(ctx: SalesforceCtx, p: SalesforcePage): Promise<Page<SalesforcePage, SalesforceCursor>> {
  const r = await query(ctx, p.nextRecordsUrl ? { next: p.nextRecordsUrl } : { soql: knowledgeSoql(ctx.settings, ['Id', 'KnowledgeArticleId', 'Language'], null) });
  const knowledgeIds = [...p.knowledgeIds, ...r.records.map((x) => articleExternalId(field(x, 'KnowledgeArticleId') ?? field(x, 'Id') ?? '', field(x, 'Language')))];
  if (!r.done && r.nextRecordsUrl) return { documents: [], next: { ...p, knowledgeIds, nextRecordsUrl: r.nextRecordsUrl }, cursor: cursorOf(p) };
  const online = new Set(knowledgeIds);
  const deleted = (await ctx.stored('knowledge_article:')).map((s) => s.external_id).filter((id) => !online.has(id));
  return { documents: [], deleted, next: null, cursor: cursorOf(p) };
}

async function readPage(ctx: SalesforceCtx, p: SalesforcePage): Promise<Page<SalesforcePage, SalesforceCursor>> {
  if (p.phase === 'setup') {
    const { serverTime } = await getUserInfo(ctx);
    const next: SalesforcePage = { ...p, phase: 'records', serverStart: serverTime ?? ctx.now.toISOString() };
    return { documents: [], next, cursor: cursorOf(p) };
  }
  if (p.phase === 'records') return readRecords(ctx, p);
  if (p.phase === 'changes') return readChanges(ctx, p);
  return readKnowledgeIds(ctx, p);
}

export const salesforceSync: SyncCapability<SalesforceCredentials, SalesforceSettings, SalesforceCursor, SalesforcePage> = {
  cursorSchema: salesforceCursor,
  pageSchema: salesforcePage,
  start(mode: SyncMode, since: SalesforceCursor | null): SalesforcePage {
    return { mode, phase: 'setup', serverStart: null, since: mode === 'incremental' ? (since?.since ?? null) : null, objectIndex: 0, nextRecordsUrl: null, knowledgeEnabled: true, knowledgeIds: [] };
  },
  readPage,
};
