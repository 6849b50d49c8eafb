import { z } from 'zod';
import type { Page, SourceDocument, SyncCapability, SyncMode } from '../kit/index.ts';
import { getAccountDetails, type HubSpotCtx, hubspotJson, searchSlot, uiDomainOf } from './client.ts';
import { type Associations, type CrmObject, crmObject, embeddedAssociations, externalId, isoOf, laterIso, nameKey, objectToDocument, recordName, SPECS } from './map.ts';
import { type HubSpotCredentials, type HubSpotSettings, OBJECT_TYPES, type ObjectType } from './schemas.ts';

const PAGE = 100;
const BATCH = 100;
/** The search endpoints page at most this many results of one query (`after` past it answers 400). */
export const SEARCH_CAP = 10_000;
/** Search index lag and clock skew: an incremental search starts this long before the cursor (re-reads are unchanged). */
const OVERLAP_MS = 5 * 60_000;

const objectType = z.enum(OBJECT_TYPES);
const stamps = z.partialRecord(objectType, z.string());

export const hubspotPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'objects', 'archived']),
  startedAt: z.string().nullable(),
  portalId: z.string().nullable(),
  uiDomain: z.string().nullable(),
  typeIndex: z.number().int(),
  after: z.string().nullable(),
  /** Incremental: the current search's lower bound (ISO: the cursor less the overlap); it moves forward when a search reaches SEARCH_CAP. */
  searchFrom: z.string().nullable(),
  /** The current type is read by listing every record (full sync, or no cursor for it yet) rather than by search. */
  listing: z.boolean(),
  /** The stored cursor: per type, records modified at or after this instant are read. */
  since: stamps,
  /** Per type, the latest last-modified time read in this sync. */
  seen: stamps,
});
export type HubSpotPage = z.infer<typeof hubspotPage>;
export const hubspotCursor = z.object({ since: stamps });
export type HubSpotCursor = z.infer<typeof hubspotCursor>;

const listAnswer = z.object({ results: z.array(crmObject), paging: z.object({ next: z.object({ after: z.string() }).optional() }).optional() });
const searchAnswer = listAnswer.extend({ total: z.number().optional() });
const batchAnswer = z.object({ results: z.array(crmObject) });
const assocAnswer = z.object({
  results: z.array(z.object({ from: z.object({ id: z.union([z.string(), z.number()]).transform(String) }), to: z.array(z.object({ toObjectId: z.union([z.string(), z.number()]).transform(String) })) })),
});

const typesOf = (s: HubSpotSettings): readonly ObjectType[] => OBJECT_TYPES.filter((t) => !s.object_types || s.object_types.includes(t));

/** The cursor to store: per type the latest modification read, else the previous cursor, else the sync's start; never past the start. */
export function cursorOf(p: HubSpotPage, types: readonly ObjectType[]): HubSpotCursor | null {
  if (!p.startedAt) return null;
  const start = p.startedAt;
  const since: Partial<Record<ObjectType, string>> = {};
  for (const t of types) {
    const v = p.seen[t] ?? p.since[t] ?? start;
    since[t] = Date.parse(v) > Date.parse(start) ? start : v;
  }
  return { since };
}

/**
 * Where an incremental search goes after a page: on with `after`, or — when the next offset would pass the search's
 * 10,000-result cap — a new search from the latest modification read (ascending order makes that a resume point).
 * When a single instant holds more than the cap, the type is listed in full instead.
 */
export function nextSearch(p: HubSpotPage, nextAfter: string | undefined, seenType: string | null): Pick<HubSpotPage, 'after' | 'searchFrom' | 'listing'> | null {
  if (!nextAfter) return null;
  if (Number(nextAfter) + PAGE <= SEARCH_CAP) return { after: nextAfter, searchFrom: p.searchFrom, listing: false };
  if (seenType && p.searchFrom && Date.parse(seenType) > Date.parse(p.searchFrom)) return { after: null, searchFrom: seenType, listing: false };
  return { after: null, searchFrom: null, listing: true };
}

/** Associated ids of records read by search (which answers none), from the v4 associations batch read. */
async function readAssociations(ctx: HubSpotCtx, type: ObjectType, ids: string[]): Promise<Map<string, Associations>> {
  const out = new Map<string, Associations>(ids.map((id) => [id, {}]));
  if (ids.length === 0) return out;
  for (const to of SPECS[type].associations) {
    const r = assocAnswer.parse(await hubspotJson<unknown>(ctx, `/crm/v4/associations/${type}/${to}/batch/read`, { method: 'POST', json: { inputs: ids.map((id) => ({ id })) } }));
    for (const row of r.results) {
      const a = out.get(row.from.id);
      if (a && row.to.length > 0) a[to] = [...new Set([...(a[to] ?? []), ...row.to.map((x) => x.toObjectId)])];
    }
  }
  return out;
}

/** Names of the records a page's records are associated with (batch read of their name properties, 100 ids a call). */
async function readNames(ctx: HubSpotCtx, assocs: Iterable<Associations>): Promise<Map<string, string>> {
  const wanted = new Map<ObjectType, Set<string>>();
  for (const a of assocs) for (const [t, ids] of Object.entries(a) as [ObjectType, string[]][]) for (const id of ids) (wanted.get(t) ?? wanted.set(t, new Set()).get(t))?.add(id);
  const names = new Map<string, string>();
  for (const [t, set] of wanted) {
    const ids = [...set];
    for (let i = 0; i < ids.length; i += BATCH) {
      const r = batchAnswer.parse(
        await hubspotJson<unknown>(ctx, `/crm/v3/objects/${t}/batch/read`, { method: 'POST', json: { properties: SPECS[t].nameProperties, inputs: ids.slice(i, i + BATCH).map((id) => ({ id })) } }),
      );
      for (const o of r.results) {
        const n = recordName(t, o.properties);
        if (n) names.set(nameKey(t, o.id), n);
      }
    }
  }
  return names;
}

function modifiedOf(type: ObjectType, o: CrmObject): string | null {
  return o.properties[SPECS[type].modified] ?? o.updatedAt ?? null;
}

/**
 * The search's overlap re-reads records modified shortly before the cursor: those stored at the same version are
 * dropped before their associations are read (they would be unchanged), so a quiet incremental sync costs a few calls.
 */
async function changedSince(ctx: HubSpotCtx, type: ObjectType, since: string | undefined, results: CrmObject[]): Promise<CrmObject[]> {
  if (!since) return results;
  const out: CrmObject[] = [];
  for (const o of results) {
    const modified = modifiedOf(type, o);
    if (modified && Date.parse(modified) <= Date.parse(since)) {
      const id = externalId(type, o.id);
      const stored = (await ctx.stored(id)).find((s) => s.external_id === id);
      if (stored && stored.metadata.modified === isoOf(modified)) continue;
    }
    out.push(o);
  }
  return out;
}

async function documentsOf(ctx: HubSpotCtx, p: HubSpotPage, type: ObjectType, records: CrmObject[], assocs: Map<string, Associations>): Promise<SourceDocument[]> {
  const names = await readNames(ctx, assocs.values());
  const m = { portalId: p.portalId ?? '', uiDomain: p.uiDomain ?? 'app.hubspot.com', names };
  return records.map((o) => objectToDocument(type, o, assocs.get(o.id) ?? {}, m));
}

/** The page after the current type is done: the next type, or the end. */
function nextType(p: HubSpotPage, types: readonly ObjectType[]): HubSpotPage | null {
  const i = p.typeIndex + 1;
  const t = types[i];
  if (!t) return null;
  const since = p.since[t];
  return { ...p, phase: 'objects', typeIndex: i, after: null, listing: p.mode === 'full' || !since, searchFrom: p.mode === 'incremental' && since ? new Date(Date.parse(since) - OVERLAP_MS).toISOString() : null };
}

async function readPage(ctx: HubSpotCtx, p: HubSpotPage): Promise<Page<HubSpotPage, HubSpotCursor>> {
  const types = typesOf(ctx.settings);
  if (p.phase === 'setup') {
    let portalId = ctx.settings.portal_id ?? null;
    let uiDomain = ctx.settings.ui_domain ?? null;
    if (!portalId) {
      const acct = await getAccountDetails(ctx);
      portalId = String(acct.portalId);
      uiDomain = uiDomainOf(acct.uiDomain);
    }
    const started: HubSpotPage = { ...p, portalId, uiDomain: uiDomain ?? 'app.hubspot.com', startedAt: ctx.now.toISOString(), typeIndex: -1 };
    return { documents: [], next: nextType(started, types), cursor: cursorOf(started, types) };
  }
  const type = types[p.typeIndex];
  if (!type) return { documents: [], next: null, cursor: cursorOf(p, types) };
  const spec = SPECS[type];

  if (p.phase === 'archived') {
    // Archived (deleted) records stay listable for 90 days; those archived since the cursor are reported deleted.
    const r = listAnswer.parse(await hubspotJson<unknown>(ctx, `/crm/v3/objects/${type}`, { query: { archived: true, limit: PAGE, after: p.after ?? undefined, properties: spec.modified } }));
    const from = p.since[type] ? Date.parse(p.since[type] ?? '') - OVERLAP_MS : null;
    const deleted = r.results.filter((o) => from === null || !o.archivedAt || Date.parse(o.archivedAt) >= from).map((o) => externalId(type, o.id));
    const after = r.paging?.next?.after;
    return { documents: [], deleted, next: after ? { ...p, after } : nextType(p, types), cursor: cursorOf(p, types) };
  }

  let records: CrmObject[];
  let assocs: Map<string, Associations>;
  let next: HubSpotPage | null;
  let here: HubSpotPage;
  let seen = p.seen[type] ?? null;
  if (p.listing) {
    const r = listAnswer.parse(
      await hubspotJson<unknown>(ctx, `/crm/v3/objects/${type}`, {
        query: { limit: PAGE, after: p.after ?? undefined, properties: spec.properties.join(','), associations: spec.associations.join(','), archived: false },
      }),
    );
    records = r.results;
    assocs = new Map(records.map((o) => [o.id, embeddedAssociations(o, spec.associations)]));
    for (const o of records) seen = laterIso(seen, modifiedOf(type, o));
    const after = r.paging?.next?.after;
    here = { ...p, seen: seen ? { ...p.seen, [type]: seen } : p.seen };
    next = after ? { ...here, after } : p.mode === 'incremental' ? { ...here, phase: 'archived', after: null } : nextType(here, types);
  } else {
    await searchSlot(ctx.connectorId, ctx.signal);
    const from = Date.parse(p.searchFrom ?? '');
    const body = {
      filterGroups: [{ filters: [{ propertyName: spec.modified, operator: 'GTE', value: String(from) }] }],
      sorts: [{ propertyName: spec.modified, direction: 'ASCENDING' }],
      properties: spec.properties,
      limit: PAGE,
      ...(p.after ? { after: p.after } : {}),
    };
    const r = searchAnswer.parse(await hubspotJson<unknown>(ctx, `/crm/v3/objects/${type}/search`, { method: 'POST', json: body }));
    records = await changedSince(ctx, type, p.since[type], r.results);
    assocs = await readAssociations(ctx, type, records.map((o) => o.id));
    let lastOfPage: string | null = null;
    for (const o of r.results) {
      seen = laterIso(seen, modifiedOf(type, o));
      lastOfPage = laterIso(lastOfPage, modifiedOf(type, o));
    }
    here = { ...p, seen: seen ? { ...p.seen, [type]: seen } : p.seen };
    const more = nextSearch(here, r.paging?.next?.after, lastOfPage);
    next = more ? { ...here, ...more } : { ...here, phase: 'archived', after: null };
  }
  const documents = await documentsOf(ctx, p, type, records, assocs);
  return { documents, next, cursor: cursorOf(next ?? here, types) };
}

export const hubspotSync: SyncCapability<HubSpotCredentials, HubSpotSettings, HubSpotCursor, HubSpotPage> = {
  cursorSchema: hubspotCursor,
  pageSchema: hubspotPage,
  start(mode: SyncMode, since: HubSpotCursor | null): HubSpotPage {
    return {
      mode,
      phase: 'setup',
      startedAt: null,
      portalId: null,
      uiDomain: null,
      typeIndex: -1,
      after: null,
      searchFrom: null,
      listing: mode === 'full',
      since: mode === 'incremental' ? (since?.since ?? {}) : {},
      seen: {},
    };
  },
  readPage,
};
