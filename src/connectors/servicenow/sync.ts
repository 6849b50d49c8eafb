import { z } from 'zod';
import { type Page, type SourceDocument, type SyncCapability, type SyncMode, VendorHttpError } from '../kit/index.ts';
import { type ServicenowCtx, tableGet } from './client.ts';
import { INCIDENT_FIELDS, incident, incidentExternalId, incidentToDocument, journalEntry, KB_FIELDS, kbArticle, kbExternalId, kbToDocument } from './map.ts';
import type { ServicenowCredentials, ServicenowSettings } from './schemas.ts';

/** Records a page. KB bodies can be large and each incident page adds one journal request: 100 keeps pages short. */
const PAGE = 100;
const JOURNAL_PAGE = 1000;

export const servicenowPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'knowledge', 'incidents', 'deletions']),
  /** The Link header's next page of the current phase (path and query); null = its first page. */
  path: z.string().nullable(),
  /** Knowledge bases with "Can read" user criteria; null = unknown (every article is then kept to its base's group). */
  restrictedKbs: z.array(z.string()).nullable(),
  knowledgeSince: z.string().nullable(),
  incidentsSince: z.string().nullable(),
  deletionsSince: z.string().nullable(),
  maxKnowledge: z.string().nullable(),
  maxIncident: z.string().nullable(),
  maxDeletion: z.string().nullable(),
});
export type ServicenowPage = z.infer<typeof servicenowPage>;

/** Stored ServiceNow datetimes (UTC `YYYY-MM-DD HH:mm:ss`), which order as strings. */
export const servicenowCursor = z.object({ knowledge_since: z.string().nullable(), incidents_since: z.string().nullable(), deletions_since: z.string().nullable() });
export type ServicenowCursor = z.infer<typeof servicenowCursor>;

const latest = (...values: (string | null)[]): string | null => values.reduce<string | null>((a, b) => (b && (!a || b > a) ? b : a), null);

function cursorOf(p: ServicenowPage): ServicenowCursor {
  const knowledge = p.maxKnowledge ?? p.knowledgeSince;
  const incidents = p.maxIncident ?? p.incidentsSince;
  // Deletions are read from the latest change this connector saw on; a full sync starts them there.
  return { knowledge_since: knowledge, incidents_since: incidents, deletions_since: latest(p.deletionsSince, p.maxDeletion, knowledge, incidents) };
}

const resultOf = (body: unknown): unknown[] => z.object({ result: z.array(z.unknown()) }).parse(body).result;

function nextPhase(p: ServicenowPage, ctx: ServicenowCtx, after: ServicenowPage['phase']): ServicenowPage | null {
  const order: ServicenowPage['phase'][] = ['setup', 'knowledge', 'incidents', 'deletions'];
  for (const phase of order.slice(order.indexOf(after) + 1)) {
    if (phase === 'knowledge' && ctx.settings.include_knowledge) return { ...p, phase, path: null };
    if (phase === 'incidents' && ctx.settings.include_incidents) return { ...p, phase, path: null };
    if (phase === 'deletions' && p.mode === 'incremental' && p.deletionsSince) return { ...p, phase, path: null };
  }
  return null;
}

/** A 403 on an optional table (criteria, deletion audit) means the user may not read it: null, not a credentials error. */
async function optionalTable(ctx: ServicenowCtx, path: string, query: Record<string, string | number>): Promise<{ body: unknown; next: string | null } | null> {
  try {
    return await tableGet(ctx, path, query, { forbiddenIsAuth: false });
  } catch (err) {
    if (err instanceof VendorHttpError && err.status === 403) return null;
    throw err;
  }
}

/**
 * Which knowledge bases restrict reading (a row in `kb_uc_can_read_mtom` or `kb_uc_cannot_read_mtom`); either table
 * unreadable → null (every base treated as restricted).
 */
async function readSetup(ctx: ServicenowCtx, p: ServicenowPage): Promise<Page<ServicenowPage, ServicenowCursor>> {
  let restricted: string[] | null = [];
  for (const table of ctx.settings.include_knowledge ? ['kb_uc_can_read_mtom', 'kb_uc_cannot_read_mtom'] : []) {
    const bases = await criteriaBases(ctx, table);
    if (!bases) {
      ctx.log.info({ table }, 'knowledge base user criteria are not readable: every knowledge base is treated as restricted');
      restricted = null;
      break;
    }
    restricted.push(...bases);
  }
  const here: ServicenowPage = { ...p, restrictedKbs: restricted ? [...new Set(restricted)] : null };
  return { documents: [], next: nextPhase(here, ctx, 'setup'), cursor: cursorOf(here) };
}

/** The knowledge bases named in a user-criteria relation table, or null when the user may not read it. */
async function criteriaBases(ctx: ServicenowCtx, table: string): Promise<string[] | null> {
  const row = z.object({ kb_knowledge_base: z.string() });
  const out: string[] = [];
  let r = await optionalTable(ctx, `/api/now/table/${table}`, { sysparm_fields: 'kb_knowledge_base', sysparm_exclude_reference_link: 'true', sysparm_limit: JOURNAL_PAGE, sysparm_offset: 0 });
  while (r) {
    for (const raw of resultOf(r.body)) out.push(row.parse(raw).kb_knowledge_base);
    if (!r.next) return out;
    r = await optionalTable(ctx, r.next, {});
  }
  return null;
}

function kbQuery(p: ServicenowPage, settings: ServicenowSettings): string {
  const parts: string[] = [];
  // An incremental sync reads every change, so an article that left `published` (retired, outdated, back in review) is seen and deleted.
  if (p.mode === 'incremental' && p.knowledgeSince) parts.push(`sys_updated_on>=${p.knowledgeSince}`);
  else parts.push('workflow_state=published');
  if (settings.knowledge_bases?.length) parts.push(`kb_knowledge_baseIN${settings.knowledge_bases.join(',')}`);
  return `${parts.join('^')}^ORDERBYsys_updated_on`;
}

const tableQuery = (query: string, fields: string) => ({
  sysparm_query: query,
  sysparm_fields: fields,
  sysparm_display_value: 'all',
  sysparm_exclude_reference_link: 'true',
  sysparm_limit: PAGE,
  sysparm_offset: 0,
});

async function readKnowledge(ctx: ServicenowCtx, p: ServicenowPage): Promise<Page<ServicenowPage, ServicenowCursor>> {
  const r = p.path ? await tableGet(ctx, p.path) : await tableGet(ctx, '/api/now/table/kb_knowledge', tableQuery(kbQuery(p, ctx.settings), KB_FIELDS));
  const rows = resultOf(r.body);
  const documents: SourceDocument[] = [];
  const deleted: string[] = [];
  const restricted = p.restrictedKbs ? new Set(p.restrictedKbs) : null;
  let maxKnowledge = p.maxKnowledge;
  for (const raw of rows) {
    const a = kbArticle.parse(raw);
    maxKnowledge = latest(maxKnowledge, a.sys_updated_on.value);
    if (a.workflow_state.value !== 'published') {
      if (p.mode === 'incremental') deleted.push(kbExternalId(a.sys_id.value));
      continue;
    }
    documents.push(kbToDocument(a, { instanceUrl: ctx.settings.instance_url, restrictedKbs: restricted }));
  }
  const here: ServicenowPage = { ...p, maxKnowledge };
  const next = r.next && rows.length > 0 ? { ...here, path: r.next } : nextPhase(here, ctx, 'knowledge');
  return { documents, deleted, next, cursor: cursorOf(here) };
}

/** The additional comments and work notes of a page of incidents, in one query (`element_idIN…`). */
async function readJournal(ctx: ServicenowCtx, ids: readonly string[]): Promise<Map<string, z.infer<typeof journalEntry>[]>> {
  const out = new Map<string, z.infer<typeof journalEntry>[]>();
  if (!ids.length || !ctx.settings.include_journal) return out;
  let r = await tableGet(ctx, '/api/now/table/sys_journal_field', {
    sysparm_query: `name=incident^element_idIN${ids.join(',')}^elementINcomments,work_notes^ORDERBYsys_created_on`,
    sysparm_fields: 'element_id,element,value,sys_created_on,sys_created_by',
    sysparm_limit: JOURNAL_PAGE,
    sysparm_offset: 0,
  });
  for (;;) {
    for (const raw of resultOf(r.body)) {
      const j = journalEntry.parse(raw);
      out.set(j.element_id, [...(out.get(j.element_id) ?? []), j]);
    }
    if (!r.next) return out;
    r = await tableGet(ctx, r.next);
  }
}

async function readIncidents(ctx: ServicenowCtx, p: ServicenowPage): Promise<Page<ServicenowPage, ServicenowCursor>> {
  const query = `${p.mode === 'incremental' && p.incidentsSince ? `sys_updated_on>=${p.incidentsSince}^` : ''}ORDERBYsys_updated_on`;
  const r = p.path ? await tableGet(ctx, p.path) : await tableGet(ctx, '/api/now/table/incident', tableQuery(query, INCIDENT_FIELDS));
  const rows = resultOf(r.body).map((raw) => incident.parse(raw));
  const journal = await readJournal(ctx, rows.map((i) => i.sys_id.value));
  let maxIncident = p.maxIncident;
  const documents = rows.map((i) => {
    maxIncident = latest(maxIncident, i.sys_updated_on.value);
    return incidentToDocument(i, journal.get(i.sys_id.value) ?? [], { instanceUrl: ctx.settings.instance_url });
  });
  const here: ServicenowPage = { ...p, maxIncident };
  const next = r.next && rows.length > 0 ? { ...here, path: r.next } : nextPhase(here, ctx, 'incidents');
  return { documents, next, cursor: cursorOf(here) };
}

/**
 * Deleted records from the deletion audit (`sys_audit_delete`, readable by admins): an incremental sync deletes the
 * incidents and articles it names; unreadable → nothing here, the nightly full sync's sweep removes them.
 */
async function readDeletions(ctx: ServicenowCtx, p: ServicenowPage): Promise<Page<ServicenowPage, ServicenowCursor>> {
  const row = z.object({ tablename: z.string(), documentkey: z.string(), sys_created_on: z.string() });
  const r = p.path
    ? await optionalTable(ctx, p.path, {})
    : await optionalTable(ctx, '/api/now/table/sys_audit_delete', {
        sysparm_query: `tablenameINincident,kb_knowledge^sys_created_on>=${p.deletionsSince}^ORDERBYsys_created_on`,
        sysparm_fields: 'tablename,documentkey,sys_created_on',
        sysparm_limit: JOURNAL_PAGE,
        sysparm_offset: 0,
      });
  if (!r) {
    ctx.log.info('sys_audit_delete is not readable: deletions wait for the full sync');
    return { documents: [], next: null, cursor: cursorOf(p) };
  }
  const deleted: string[] = [];
  let maxDeletion = p.maxDeletion;
  for (const raw of resultOf(r.body)) {
    const d = row.parse(raw);
    maxDeletion = latest(maxDeletion, d.sys_created_on);
    if (d.tablename === 'incident' && ctx.settings.include_incidents) deleted.push(incidentExternalId(d.documentkey));
    if (d.tablename === 'kb_knowledge' && ctx.settings.include_knowledge) deleted.push(kbExternalId(d.documentkey));
  }
  const here: ServicenowPage = { ...p, maxDeletion };
  return { documents: [], deleted, next: r.next ? { ...here, path: r.next } : null, cursor: cursorOf(here) };
}

export const servicenowSync: SyncCapability<ServicenowCredentials, ServicenowSettings, ServicenowCursor, ServicenowPage> = {
  cursorSchema: servicenowCursor,
  pageSchema: servicenowPage,
  start(mode: SyncMode, since: ServicenowCursor | null): ServicenowPage {
    const resume = mode === 'incremental' ? since : null;
    return {
      mode,
      phase: 'setup',
      path: null,
      restrictedKbs: null,
      knowledgeSince: resume?.knowledge_since ?? null,
      incidentsSince: resume?.incidents_since ?? null,
      deletionsSince: since?.deletions_since ?? null,
      maxKnowledge: null,
      maxIncident: null,
      maxDeletion: null,
    };
  },
  async readPage(ctx, page) {
    if (page.phase === 'setup') return readSetup(ctx, page);
    if (page.phase === 'knowledge') return readKnowledge(ctx, page);
    if (page.phase === 'incidents') return readIncidents(ctx, page);
    return readDeletions(ctx, page);
  },
};
