import { z } from 'zod';
import type { Page, SourceDocument, SyncCapability, SyncMode } from '../kit/index.ts';
import { getMe, type PipedriveCtx, pipedriveJson } from './client.ts';
import {
  activity,
  activityToDocument,
  deal,
  dealToDocument,
  externalId,
  type Linked,
  type LinkedEntity,
  linkKey,
  type MapContext,
  note,
  noteToDocument,
  organization,
  organizationToDocument,
  person,
  personToDocument,
  pipedriveTime,
} from './map.ts';
import { ENTITIES, type Entity, type PipedriveCredentials, type PipedriveSettings } from './schemas.ts';

/** v2 lists take up to 500 a page; v1 notes likewise. */
const PAGE = 500;
const IDS_PER_CALL = 100;
/** `updated_since` has second precision and the index may lag: an incremental read starts this long before the cursor. */
const OVERLAP_MS = 60_000;

const entity = z.enum(ENTITIES);
const stamps = z.partialRecord(entity, z.string());

export const pipedrivePage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'items', 'deleted']),
  startedAt: z.string().nullable(),
  companyDomain: z.string().nullable(),
  index: z.number().int(),
  /** v2 `next_cursor`. */
  cursor: z.string().nullable(),
  /** v1 (notes) `start` offset. */
  start: z.number().int(),
  since: stamps,
  seen: stamps,
});
export type PipedrivePage = z.infer<typeof pipedrivePage>;
export const pipedriveCursor = z.object({ since: stamps });
export type PipedriveCursor = z.infer<typeof pipedriveCursor>;

const v2List = z.object({ data: z.array(z.unknown()).nullable().default([]), additional_data: z.object({ next_cursor: z.string().nullable().optional() }).nullable().optional() });
const v1List = z.object({
  data: z.array(z.unknown()).nullable().default([]),
  additional_data: z.object({ pagination: z.object({ more_items_in_collection: z.boolean().optional(), next_start: z.number().optional() }).optional() }).nullable().optional(),
});
const linkedRow = z.object({ id: z.number(), title: z.string().optional(), name: z.string().nullable().optional(), owner_id: z.number().nullable().optional(), visible_to: z.union([z.number(), z.string()]).nullable().optional() });

const entitiesOf = (s: PipedriveSettings): readonly Entity[] => ENTITIES.filter((e) => !s.entities || s.entities.includes(e));

/** Per entity the latest `update_time` read, else the previous cursor, else the sync's start; never past the start. */
export function cursorOf(p: PipedrivePage, entities: readonly Entity[]): PipedriveCursor | null {
  if (!p.startedAt) return null;
  const start = p.startedAt;
  const since: Partial<Record<Entity, string>> = {};
  for (const e of entities) {
    const v = p.seen[e] ?? p.since[e] ?? start;
    since[e] = Date.parse(v) > Date.parse(start) ? start : v;
  }
  return { since };
}

/** The `updated_since` of an incremental read (RFC 3339, seconds), or undefined for a full read. */
export function updatedSince(p: Pick<PipedrivePage, 'mode' | 'since'>, e: Entity): string | undefined {
  const since = p.mode === 'incremental' ? p.since[e] : undefined;
  return since ? new Date(Date.parse(since) - OVERLAP_MS).toISOString().replace(/\.\d{3}Z$/, 'Z') : undefined;
}

type Links = { deal_id?: number | null; person_id?: number | null; org_id?: number | null };

/** Names and visibility of the deals, persons and organizations a page's records link to (`ids=`, 100 a call). */
async function readLinked(ctx: PipedriveCtx, rows: Links[]): Promise<Map<string, Linked>> {
  const wanted: Record<LinkedEntity, Set<number>> = { deals: new Set(), persons: new Set(), organizations: new Set() };
  for (const r of rows) {
    if (r.deal_id) wanted.deals.add(r.deal_id);
    if (r.person_id) wanted.persons.add(r.person_id);
    if (r.org_id) wanted.organizations.add(r.org_id);
  }
  const out = new Map<string, Linked>();
  for (const [e, set] of Object.entries(wanted) as [LinkedEntity, Set<number>][]) {
    const ids = [...set];
    for (let i = 0; i < ids.length; i += IDS_PER_CALL) {
      const r = v2List.parse(await pipedriveJson<unknown>(ctx, `/api/v2/${e}`, { ids: ids.slice(i, i + IDS_PER_CALL).join(','), limit: IDS_PER_CALL }));
      for (const raw of r.data ?? []) {
        const row = linkedRow.parse(raw);
        out.set(linkKey(e, row.id), { name: row.title ?? row.name ?? `#${row.id}`, owner_id: row.owner_id ?? null, visible_to: row.visible_to === null || row.visible_to === undefined ? null : Number(row.visible_to) });
      }
    }
  }
  return out;
}

/** Records an incremental read's overlap brings back at the version already stored: dropped before any lookup. */
async function unchanged(ctx: PipedriveCtx, e: Entity, since: string | undefined, rowId: number, updated: string): Promise<boolean> {
  if (!since || Date.parse(pipedriveTime(updated)) > Date.parse(since)) return false;
  const ext = externalId(e, rowId);
  const stored = (await ctx.stored(ext)).find((s) => s.external_id === ext);
  return stored?.metadata.modified === pipedriveTime(updated);
}

type Row = { id: number; update_time: string } & Links;
const SCHEMAS = { organizations: organization, persons: person, deals: deal, activities: activity, notes: note } as const;

function toDocument(e: Entity, raw: Row, m: MapContext): SourceDocument {
  let d: SourceDocument;
  if (e === 'deals') d = dealToDocument(deal.parse(raw), m);
  else if (e === 'persons') d = personToDocument(person.parse(raw), m);
  else if (e === 'organizations') d = organizationToDocument(organization.parse(raw), m);
  else if (e === 'activities') d = activityToDocument(activity.parse(raw), m);
  else d = noteToDocument(note.parse(raw), m);
  return { ...d, metadata: { ...d.metadata, modified: pipedriveTime(raw.update_time) } };
}

function linksOf(e: Entity, r: Row): Links {
  // A person's or organization's own id is not a link; a deal links its person and organization.
  if (e === 'organizations') return {};
  if (e === 'persons') return { org_id: r.org_id };
  if (e === 'deals') return { person_id: r.person_id, org_id: r.org_id };
  return { deal_id: r.deal_id, person_id: r.person_id, org_id: r.org_id };
}

function nextEntity(p: PipedrivePage, entities: readonly Entity[]): PipedrivePage | null {
  const i = p.index + 1;
  return entities[i] ? { ...p, phase: 'items', index: i, cursor: null, start: 0 } : null;
}

async function readPage(ctx: PipedriveCtx, p: PipedrivePage): Promise<Page<PipedrivePage, PipedriveCursor>> {
  const entities = entitiesOf(ctx.settings);
  if (p.phase === 'setup') {
    const companyDomain = ctx.settings.company_domain ?? (await getMe(ctx)).company_domain ?? null;
    const started: PipedrivePage = { ...p, companyDomain, startedAt: ctx.now.toISOString(), index: -1 };
    return { documents: [], next: nextEntity(started, entities), cursor: cursorOf(started, entities) };
  }
  const e = entities[p.index];
  if (!e) return { documents: [], next: null, cursor: cursorOf(p, entities) };

  if (p.phase === 'deleted') {
    // Deals deleted in the last 30 days (v2 `status=deleted`); other entities' deletions wait for a full sync's sweep.
    const r = v2List.parse(await pipedriveJson<unknown>(ctx, '/api/v2/deals', { status: 'deleted', limit: PAGE, cursor: p.cursor ?? undefined }));
    const deleted = (r.data ?? []).map((raw) => externalId('deals', z.object({ id: z.number() }).parse(raw).id));
    const after = r.additional_data?.next_cursor;
    return { documents: [], deleted, next: after ? { ...p, cursor: after } : nextEntity(p, entities), cursor: cursorOf(p, entities) };
  }

  const since = updatedSince(p, e);
  const incremental = p.mode === 'incremental' && Boolean(since);
  let raws: unknown[];
  let next: { cursor: string | null; start: number } | null;
  if (e === 'notes') {
    const r = v1List.parse(await pipedriveJson<unknown>(ctx, '/api/v1/notes', { start: p.start, limit: PAGE, sort: incremental ? 'update_time ASC' : 'id ASC', updated_since: since }));
    raws = r.data ?? [];
    const pg = r.additional_data?.pagination;
    next = pg?.more_items_in_collection ? { cursor: null, start: pg.next_start ?? p.start + raws.length } : null;
  } else {
    const r = v2List.parse(
      await pipedriveJson<unknown>(ctx, `/api/v2/${e}`, { limit: PAGE, cursor: p.cursor ?? undefined, sort_by: incremental ? 'update_time' : 'id', sort_direction: 'asc', updated_since: since }),
    );
    raws = r.data ?? [];
    const after = r.additional_data?.next_cursor;
    next = after ? { cursor: after, start: 0 } : null;
  }
  const rows = raws.map((raw) => SCHEMAS[e].parse(raw) as Row & { [k: string]: unknown });
  let seen = p.seen[e] ?? null;
  const fresh: Row[] = [];
  for (const [i, row] of rows.entries()) {
    const updated = pipedriveTime(row.update_time);
    if (!seen || Date.parse(updated) > Date.parse(seen)) seen = updated;
    if (p.mode === 'incremental' && (await unchanged(ctx, e, p.since[e], row.id, row.update_time))) continue;
    // Keep the vendor's own object (unknown fields included) for the mapper's parse.
    fresh.push(raws[i] as Row);
  }
  const linked = await readLinked(ctx, fresh.map((r) => linksOf(e, r)));
  const m: MapContext = { companyDomain: p.companyDomain, linked };
  const documents = fresh.map((r) => toDocument(e, r, m));
  const here: PipedrivePage = { ...p, seen: seen ? { ...p.seen, [e]: seen } : p.seen };
  let following: PipedrivePage | null;
  if (next) following = { ...here, ...next };
  else if (p.mode === 'incremental' && e === 'deals') following = { ...here, phase: 'deleted', cursor: null, start: 0 };
  else following = nextEntity(here, entities);
  return { documents, next: following, cursor: cursorOf(following ?? here, entities) };
}

export const pipedriveSync: SyncCapability<PipedriveCredentials, PipedriveSettings, PipedriveCursor, PipedrivePage> = {
  cursorSchema: pipedriveCursor,
  pageSchema: pipedrivePage,
  start(mode: SyncMode, since: PipedriveCursor | null): PipedrivePage {
    return { mode, phase: 'setup', startedAt: null, companyDomain: null, index: -1, cursor: null, start: 0, since: mode === 'incremental' ? (since?.since ?? {}) : {}, seen: {} };
  },
  readPage,
};
