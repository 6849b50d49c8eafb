import { z } from 'zod';
import { parseHtml, type SourceAcl, type SourceDocument } from '../kit/index.ts';
import type { ObjectType } from './schemas.ts';

/** The CRM v3 object shape (list, search and batch read answers) and its pure mapping to documents. */
const associationList = z.object({ results: z.array(z.object({ id: z.union([z.string(), z.number()]).transform(String), type: z.string().optional() })) });
export const crmObject = z.object({
  id: z.string(),
  properties: z.record(z.string(), z.string().nullable()).default({}),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  archived: z.boolean().optional(),
  archivedAt: z.string().optional(),
  /** List answers with `associations=`: plural object type → associated ids (search answers have none). */
  associations: z.record(z.string(), associationList).optional(),
});
export type CrmObject = z.infer<typeof crmObject>;

export interface ObjectSpec {
  readonly singular: 'company' | 'contact' | 'deal' | 'ticket' | 'note';
  /** HubSpot's object type id, used in record URLs. */
  readonly typeId: string;
  /** The last-modified property the search filters and sorts on (contacts have their own name for it). */
  readonly modified: string;
  readonly properties: readonly string[];
  /** Associated object types named in the document. */
  readonly associations: readonly ObjectType[];
  /** Properties that name a record of this type when it is associated with another. */
  readonly nameProperties: readonly string[];
}

const COMMON = ['hubspot_owner_id', 'hubspot_team_id', 'createdate'];
export const SPECS: Record<ObjectType, ObjectSpec> = {
  companies: {
    singular: 'company',
    typeId: '0-2',
    modified: 'hs_lastmodifieddate',
    properties: ['name', 'domain', 'website', 'industry', 'type', 'phone', 'city', 'state', 'country', 'numberofemployees', 'annualrevenue', 'lifecyclestage', 'description', 'hs_lastmodifieddate', ...COMMON],
    associations: ['contacts', 'deals', 'tickets'],
    nameProperties: ['name', 'domain'],
  },
  contacts: {
    singular: 'contact',
    typeId: '0-1',
    modified: 'lastmodifieddate',
    properties: ['firstname', 'lastname', 'email', 'phone', 'jobtitle', 'company', 'city', 'country', 'lifecyclestage', 'hs_lead_status', 'lastmodifieddate', ...COMMON],
    associations: ['companies', 'deals', 'tickets'],
    nameProperties: ['firstname', 'lastname', 'email'],
  },
  deals: {
    singular: 'deal',
    typeId: '0-3',
    modified: 'hs_lastmodifieddate',
    properties: ['dealname', 'amount', 'deal_currency_code', 'dealstage', 'pipeline', 'closedate', 'dealtype', 'description', 'hs_lastmodifieddate', ...COMMON],
    associations: ['companies', 'contacts', 'tickets'],
    nameProperties: ['dealname'],
  },
  tickets: {
    singular: 'ticket',
    typeId: '0-5',
    modified: 'hs_lastmodifieddate',
    properties: ['subject', 'content', 'hs_pipeline', 'hs_pipeline_stage', 'hs_ticket_priority', 'hs_ticket_category', 'source_type', 'hs_lastmodifieddate', ...COMMON],
    associations: ['companies', 'contacts', 'deals'],
    nameProperties: ['subject'],
  },
  notes: {
    singular: 'note',
    typeId: '0-46',
    modified: 'hs_lastmodifieddate',
    properties: ['hs_note_body', 'hs_timestamp', 'hs_lastmodifieddate', 'hubspot_owner_id', 'hubspot_team_id', 'hs_createdate'],
    associations: ['companies', 'contacts', 'deals', 'tickets'],
    nameProperties: [],
  },
};

export const externalId = (type: ObjectType, id: string) => `${SPECS[type].singular}:${id}`;
export const externalPrefix = (type: ObjectType) => `${SPECS[type].singular}:`;

/** Associated ids of one record, by object type (from a list answer or the v4 associations batch read). */
export type Associations = Partial<Record<ObjectType, string[]>>;
/** Names of associated records, keyed `<type>:<id>`. */
export type Names = ReadonlyMap<string, string>;
export const nameKey = (type: ObjectType, id: string) => `${type}:${id}`;

export function embeddedAssociations(o: CrmObject, types: readonly ObjectType[]): Associations {
  const out: Associations = {};
  for (const t of types) {
    const ids = o.associations?.[t]?.results.map((r) => r.id);
    if (ids && ids.length > 0) out[t] = [...new Set(ids)];
  }
  return out;
}

/** A record's name as other records show it (a contact: "First Last", else its email). */
export function recordName(type: ObjectType, p: Record<string, string | null>): string | null {
  const v = (k: string) => p[k]?.trim() || '';
  switch (type) {
    case 'companies':
      return v('name') || v('domain') || null;
    case 'contacts':
      return [v('firstname'), v('lastname')].filter(Boolean).join(' ') || v('email') || null;
    case 'deals':
      return v('dealname') || null;
    case 'tickets':
      return v('subject') || null;
    case 'notes':
      return null;
  }
}

export interface MapContext {
  readonly portalId: string;
  readonly uiDomain: string;
  readonly names: Names;
}

export const recordUrl = (m: Pick<MapContext, 'portalId' | 'uiDomain'>, type: ObjectType, id: string) => `https://${m.uiDomain}/contacts/${m.portalId}/record/${SPECS[type].typeId}/${id}`;

/** `hubspot:<owner id>` for the record's owner; the owner's email is not resolved (that needs /crm/v3/owners). */
export const ownerRef = (p: Record<string, string | null>) => (p.hubspot_owner_id ? `hubspot:${p.hubspot_owner_id}` : undefined);

/** The owner (and the owner's team) may read a record; a record with neither is readable by everyone in the account. */
export function recordAcl(p: Record<string, string | null>): SourceAcl {
  const users = p.hubspot_owner_id ? [`hubspot:${p.hubspot_owner_id}`] : [];
  const groups = p.hubspot_team_id ? [`hubspot:team:${p.hubspot_team_id}`] : [];
  if (users.length === 0 && groups.length === 0) return { public: true };
  return { ...(users.length ? { users } : {}), ...(groups.length ? { groups } : {}) };
}

const LABELS: Partial<Record<ObjectType, [string, string][]>> = {
  companies: [
    ['domain', 'Domain'],
    ['website', 'Website'],
    ['industry', 'Industry'],
    ['type', 'Type'],
    ['phone', 'Phone'],
    ['city', 'City'],
    ['state', 'State'],
    ['country', 'Country'],
    ['numberofemployees', 'Employees'],
    ['annualrevenue', 'Annual revenue'],
    ['lifecyclestage', 'Lifecycle stage'],
  ],
  contacts: [
    ['email', 'Email'],
    ['phone', 'Phone'],
    ['jobtitle', 'Job title'],
    ['company', 'Company name'],
    ['city', 'City'],
    ['country', 'Country'],
    ['lifecyclestage', 'Lifecycle stage'],
    ['hs_lead_status', 'Lead status'],
  ],
  deals: [
    ['pipeline', 'Pipeline'],
    ['dealstage', 'Stage'],
    ['closedate', 'Close date'],
    ['dealtype', 'Deal type'],
  ],
  tickets: [
    ['hs_pipeline', 'Pipeline'],
    ['hs_pipeline_stage', 'Stage'],
    ['hs_ticket_priority', 'Priority'],
    ['hs_ticket_category', 'Category'],
    ['source_type', 'Source'],
  ],
};
const HEADINGS: Record<ObjectType, string> = { companies: 'Companies', contacts: 'Contacts', deals: 'Deals', tickets: 'Tickets', notes: 'Notes' };
const NOUN: Record<ObjectType, string> = { companies: 'Company', contacts: 'Contact', deals: 'Deal', tickets: 'Ticket', notes: 'Note' };

/** `Contacts: Jane Doe, Bob Smith` lines for a record's associations (an id whose name is unknown shows as `#<id>`). */
export function associationLines(assoc: Associations, names: Names): string[] {
  const lines: string[] = [];
  for (const [type, ids] of Object.entries(assoc) as [ObjectType, string[]][]) {
    if (ids.length === 0) continue;
    lines.push(`${HEADINGS[type]}: ${ids.map((id) => names.get(nameKey(type, id)) ?? `#${id}`).join(', ')}`);
  }
  return lines;
}

function amountLine(p: Record<string, string | null>): string | null {
  if (!p.amount) return null;
  return `Amount: ${p.amount}${p.deal_currency_code ? ` ${p.deal_currency_code}` : ''}`;
}

/** The HTML of a note (or a ticket's content when it holds markup) as plain text. */
export function htmlText(value: string | null | undefined): string {
  if (!value) return '';
  return /<[a-z][\s\S]*>/i.test(value) ? parseHtml(value).content : value.trim();
}

function noteTitle(o: CrmObject, body: string, assoc: Associations, names: Names): string {
  for (const type of ['deals', 'companies', 'tickets', 'contacts'] as const) {
    const id = assoc[type]?.[0];
    const name = id ? names.get(nameKey(type, id)) : undefined;
    if (name) return `Note on ${name}`;
  }
  const first = body.split('\n').find((l) => l.trim())?.trim() ?? '';
  return first ? `Note: ${first.length > 80 ? `${first.slice(0, 77)}…` : first}` : `Note ${o.id}`;
}

/** One CRM record as a document: a readable text of its fields and named associations, its record URL, owner and ACL. */
export function objectToDocument(type: ObjectType, o: CrmObject, assoc: Associations, m: MapContext): SourceDocument {
  const p = o.properties;
  const spec = SPECS[type];
  const name = recordName(type, p);
  const fieldLines = (LABELS[type] ?? []).flatMap(([k, label]) => (p[k]?.trim() ? [`${label}: ${p[k]?.trim()}`] : []));
  if (type === 'deals') {
    const amount = amountLine(p);
    if (amount) fieldLines.unshift(amount);
  }
  const links = associationLines(assoc, m.names);
  let title: string;
  let body = '';
  let url: string | undefined = recordUrl(m, type, o.id);
  if (type === 'notes') {
    body = htmlText(p.hs_note_body);
    title = noteTitle(o, body, assoc, m.names);
    // A note has no record page of its own: it shows on the timeline of the records it is attached to.
    const on = (['deals', 'companies', 'tickets', 'contacts'] as const).find((t) => assoc[t]?.[0]);
    const target = on ? assoc[on]?.[0] : undefined;
    url = on && target ? recordUrl(m, on, target) : undefined;
  } else {
    title = name ?? `${NOUN[type]} ${o.id}`;
    body = type === 'tickets' ? htmlText(p.content) : type === 'companies' || type === 'deals' ? (p.description?.trim() ?? '') : '';
  }
  const head = type === 'notes' ? [] : [`${NOUN[type]}: ${title}`];
  const details = [...head, ...fieldLines].join('\n');
  const content = [details, body && (type === 'notes' ? body : `Description:\n${body}`), links.join('\n')].filter((s) => s?.trim()).join('\n\n');
  const created = o.createdAt ?? p.createdate ?? p.hs_createdate ?? undefined;
  const updated = p[spec.modified] ?? o.updatedAt ?? undefined;
  return {
    external_id: externalId(type, o.id),
    title,
    content,
    ...(url ? { url } : {}),
    author: ownerRef(p),
    document_type: spec.singular,
    ...(created ? { created_at: created } : {}),
    ...(updated ? { updated_at: updated } : {}),
    metadata: {
      hubspot_id: o.id,
      object_type: type,
      portal_id: m.portalId,
      owner_id: p.hubspot_owner_id ?? null,
      // The record's last-modified time: an incremental search's overlap skips records stored at this version.
      modified: updated ? isoOf(updated) : null,
      ...(p.hubspot_team_id ? { team_id: p.hubspot_team_id } : {}),
      ...(type === 'deals' ? { pipeline: p.pipeline ?? null, stage: p.dealstage ?? null, amount: p.amount ?? null } : {}),
      ...(type === 'tickets' ? { pipeline: p.hs_pipeline ?? null, stage: p.hs_pipeline_stage ?? null, priority: p.hs_ticket_priority ?? null } : {}),
      ...(type === 'contacts' && p.email ? { email: p.email.toLowerCase() } : {}),
      ...(type === 'companies' && p.domain ? { domain: p.domain } : {}),
      ...(type === 'notes' && p.hs_timestamp ? { timestamp: p.hs_timestamp } : {}),
      associations: assoc,
    },
    acl: recordAcl(p),
  };
}

export function isoOf(value: string): string {
  const at = Date.parse(value);
  return Number.isNaN(at) ? value : new Date(at).toISOString();
}

/** The later of two ISO timestamps (either may be null). */
export function laterIso(a: string | null, b: string | null | undefined): string | null {
  if (!b || Number.isNaN(Date.parse(b))) return a;
  if (!a) return new Date(b).toISOString();
  return Date.parse(b) > Date.parse(a) ? new Date(b).toISOString() : a;
}
