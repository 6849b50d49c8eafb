import { z } from 'zod';
import { parseHtml, type SourceAcl, type SourceDocument } from '../kit/index.ts';
import type { Entity } from './schemas.ts';

/** The Pipedrive shapes the connector reads (API v2 entities, v1 notes) and their pure mapping to documents. */
const id = z.number().int();
const ref = id.nullable().optional();
const str = z.string().nullable().optional();
/** v2 answers `visible_to` as a number; v1 and some v2 answers as a string. */
const visibility = z.union([z.number(), z.string()]).nullable().optional().transform((v) => (v === null || v === undefined ? null : Number(v)));
const contact = z.array(z.object({ value: z.string().nullable().optional(), primary: z.boolean().optional(), label: str })).nullable().optional();

export const deal = z.object({
  id,
  title: z.string(),
  owner_id: ref,
  creator_user_id: ref,
  value: z.number().nullable().optional(),
  currency: str,
  person_id: ref,
  org_id: ref,
  stage_id: ref,
  pipeline_id: ref,
  status: str,
  probability: z.number().nullable().optional(),
  expected_close_date: str,
  close_time: str,
  lost_reason: str,
  visible_to: visibility,
  add_time: z.string(),
  update_time: z.string(),
});
export const person = z.object({
  id,
  name: z.string().nullable().optional(),
  owner_id: ref,
  org_id: ref,
  emails: contact,
  phones: contact,
  job_title: str,
  visible_to: visibility,
  add_time: z.string(),
  update_time: z.string(),
});
export const organization = z.object({
  id,
  name: z.string(),
  owner_id: ref,
  address: z.object({ value: str }).nullable().optional(),
  visible_to: visibility,
  add_time: z.string(),
  update_time: z.string(),
});
export const activity = z.object({
  id,
  subject: z.string().nullable().optional(),
  type: str,
  owner_id: ref,
  deal_id: ref,
  person_id: ref,
  org_id: ref,
  due_date: str,
  due_time: str,
  duration: str,
  done: z.boolean().nullable().optional(),
  note: str,
  public_description: str,
  location: z.object({ value: str }).nullable().optional(),
  add_time: z.string(),
  update_time: z.string(),
});
export const note = z.object({
  id,
  user_id: ref,
  deal_id: ref,
  person_id: ref,
  org_id: ref,
  content: z.string().nullable().optional(),
  add_time: z.string(),
  update_time: z.string(),
  deal: z.object({ title: z.string() }).nullable().optional(),
  person: z.object({ name: z.string() }).nullable().optional(),
  organization: z.object({ name: z.string() }).nullable().optional(),
});
export type Deal = z.infer<typeof deal>;
export type Person = z.infer<typeof person>;
export type Organization = z.infer<typeof organization>;
export type Activity = z.infer<typeof activity>;
export type Note = z.infer<typeof note>;

/** The entities other records link to (deal, person, organization): a name and who may see them. */
export type LinkedEntity = 'deals' | 'persons' | 'organizations';
export interface Linked {
  readonly name: string;
  readonly owner_id: number | null;
  readonly visible_to: number | null;
}
export type LinkedMap = ReadonlyMap<string, Linked>;
export const linkKey = (entity: LinkedEntity, entityId: number) => `${entity}:${entityId}`;

export interface MapContext {
  /** The company subdomain for links (`acme` → https://acme.pipedrive.com); links are left out when unknown. */
  readonly companyDomain: string | null;
  readonly linked: LinkedMap;
}

const SINGULAR: Record<Entity, string> = { deals: 'deal', persons: 'person', organizations: 'organization', activities: 'activity', notes: 'note' };
export const externalId = (entity: Entity, entityId: number) => `${SINGULAR[entity]}:${entityId}`;

/** Pipedrive's v1 `2026-01-05 09:00:00` (UTC) and v2's RFC 3339 both as ISO 8601 UTC. */
export function pipedriveTime(value: string): string {
  const v = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(value) ? `${value.replace(' ', 'T')}Z` : value;
  const at = Date.parse(v);
  return Number.isNaN(at) ? value : new Date(at).toISOString();
}

export const userRef = (userId: number | null | undefined) => (userId ? `pipedrive:${userId}` : undefined);

/**
 * `visible_to`: 3 and 7 (entire company) → public; 1 (owner and followers) and 5 (the owner's visibility group) → the
 * owner (followers and visibility-group members are not resolved). Unknown visibility → the owner, else public.
 */
export function visibilityAcl(ownerId: number | null | undefined, visibleTo: number | null): SourceAcl {
  if (visibleTo === 3 || visibleTo === 7) return { public: true };
  if (ownerId) return { users: [`pipedrive:${ownerId}`] };
  return { public: true };
}

/** Notes and activities have no visibility of their own: they follow the deal (else person, else organization) they are linked to. */
function linkedAcl(links: { deal_id?: number | null; person_id?: number | null; org_id?: number | null }, ownerId: number | null | undefined, m: MapContext): SourceAcl {
  const candidates: [LinkedEntity, number | null | undefined][] = [
    ['deals', links.deal_id],
    ['persons', links.person_id],
    ['organizations', links.org_id],
  ];
  for (const [entity, linkedId] of candidates) {
    const l = linkedId ? m.linked.get(linkKey(entity, linkedId)) : undefined;
    if (l) return visibilityAcl(l.owner_id, l.visible_to);
  }
  return visibilityAcl(ownerId, null);
}

const PATH: Record<LinkedEntity, string> = { deals: 'deal', persons: 'person', organizations: 'organization' };
export function recordUrl(m: Pick<MapContext, 'companyDomain'>, entity: LinkedEntity, entityId: number): string | undefined {
  return m.companyDomain ? `https://${m.companyDomain}.pipedrive.com/${PATH[entity]}/${entityId}` : undefined;
}

/** The first linked record's page (notes and activities have none of their own). */
function linkedUrl(links: { deal_id?: number | null; person_id?: number | null; org_id?: number | null }, m: MapContext): string | undefined {
  if (links.deal_id) return recordUrl(m, 'deals', links.deal_id);
  if (links.person_id) return recordUrl(m, 'persons', links.person_id);
  if (links.org_id) return recordUrl(m, 'organizations', links.org_id);
  return undefined;
}

const nameOf = (m: MapContext, entity: LinkedEntity, linkedId: number | null | undefined, fallback?: string | null) =>
  linkedId ? (fallback ?? m.linked.get(linkKey(entity, linkedId))?.name ?? `#${linkedId}`) : null;

function linkLines(links: { deal_id?: number | null; person_id?: number | null; org_id?: number | null }, m: MapContext, names: { deal?: string | null; person?: string | null; org?: string | null } = {}): string[] {
  return [
    ['Deal', nameOf(m, 'deals', links.deal_id, names.deal)],
    ['Person', nameOf(m, 'persons', links.person_id, names.person)],
    ['Organization', nameOf(m, 'organizations', links.org_id, names.org)],
  ].flatMap(([label, value]) => (value ? [`${label}: ${value}`] : []));
}

const lines = (pairs: [string, string | number | null | undefined][]) => pairs.flatMap(([k, v]) => (v === null || v === undefined || v === '' ? [] : [`${k}: ${v}`]));
const join = (...blocks: string[]) => blocks.filter((b) => b.trim()).join('\n\n');

/** HTML (notes, activity notes) as text; plain text passes through. */
export function htmlText(value: string | null | undefined): string {
  if (!value) return '';
  return /<[a-z][\s\S]*>/i.test(value) ? parseHtml(value).content : value.trim();
}

const dates = (r: { add_time: string; update_time: string }) => ({ created_at: pipedriveTime(r.add_time), updated_at: pipedriveTime(r.update_time) });
const primary = (list: Person['emails']) => (list ?? []).filter((x) => x.value).sort((a, b) => Number(Boolean(b.primary)) - Number(Boolean(a.primary))).map((x) => x.value as string);

export function dealToDocument(d: Deal, m: MapContext): SourceDocument {
  const value = d.value !== null && d.value !== undefined ? `${d.value}${d.currency ? ` ${d.currency}` : ''}` : null;
  const head = lines([
    ['Deal', d.title],
    ['Value', value],
    ['Status', d.status],
    ['Pipeline', d.pipeline_id],
    ['Stage', d.stage_id],
    ['Probability', d.probability !== null && d.probability !== undefined ? `${d.probability}%` : null],
    ['Expected close date', d.expected_close_date],
    ['Lost reason', d.lost_reason],
  ]);
  return {
    external_id: externalId('deals', d.id),
    title: d.title,
    content: join(head.join('\n'), linkLines({ person_id: d.person_id, org_id: d.org_id }, m).join('\n')),
    url: recordUrl(m, 'deals', d.id),
    author: userRef(d.owner_id),
    document_type: 'deal',
    ...dates(d),
    metadata: { pipedrive_id: d.id, status: d.status ?? null, pipeline_id: d.pipeline_id ?? null, stage_id: d.stage_id ?? null, value: d.value ?? null, currency: d.currency ?? null, person_id: d.person_id ?? null, org_id: d.org_id ?? null, owner_id: d.owner_id ?? null, visible_to: d.visible_to },
    acl: visibilityAcl(d.owner_id, d.visible_to),
  };
}

export function personToDocument(p: Person, m: MapContext): SourceDocument {
  const name = p.name?.trim() || primary(p.emails)[0] || `Person ${p.id}`;
  const emails = primary(p.emails);
  const phones = primary(p.phones);
  const head = lines([
    ['Person', name],
    ['Email', emails.join(', ')],
    ['Phone', phones.join(', ')],
    ['Job title', p.job_title],
  ]);
  return {
    external_id: externalId('persons', p.id),
    title: name,
    content: join(head.join('\n'), linkLines({ org_id: p.org_id }, m).join('\n')),
    url: recordUrl(m, 'persons', p.id),
    author: userRef(p.owner_id),
    document_type: 'person',
    ...dates(p),
    metadata: { pipedrive_id: p.id, emails: emails.map((e) => e.toLowerCase()), org_id: p.org_id ?? null, owner_id: p.owner_id ?? null, visible_to: p.visible_to },
    acl: visibilityAcl(p.owner_id, p.visible_to),
  };
}

export function organizationToDocument(o: Organization, m: MapContext): SourceDocument {
  return {
    external_id: externalId('organizations', o.id),
    title: o.name,
    content: lines([
      ['Organization', o.name],
      ['Address', o.address?.value],
    ]).join('\n'),
    url: recordUrl(m, 'organizations', o.id),
    author: userRef(o.owner_id),
    document_type: 'organization',
    ...dates(o),
    metadata: { pipedrive_id: o.id, owner_id: o.owner_id ?? null, visible_to: o.visible_to },
    acl: visibilityAcl(o.owner_id, o.visible_to),
  };
}

export function activityToDocument(a: Activity, m: MapContext): SourceDocument {
  const subject = a.subject?.trim() || `${a.type ?? 'Activity'} ${a.id}`;
  const due = [a.due_date, a.due_time].filter(Boolean).join(' ');
  const head = lines([
    ['Activity', subject],
    ['Type', a.type],
    ['Due', due],
    ['Duration', a.duration],
    ['Done', a.done === null || a.done === undefined ? null : a.done ? 'yes' : 'no'],
    ['Location', a.location?.value],
  ]);
  return {
    external_id: externalId('activities', a.id),
    title: subject,
    content: join(head.join('\n'), linkLines(a, m).join('\n'), htmlText(a.note), htmlText(a.public_description)),
    url: linkedUrl(a, m),
    author: userRef(a.owner_id),
    document_type: 'activity',
    ...dates(a),
    metadata: { pipedrive_id: a.id, type: a.type ?? null, done: a.done ?? null, due_date: a.due_date ?? null, deal_id: a.deal_id ?? null, person_id: a.person_id ?? null, org_id: a.org_id ?? null, owner_id: a.owner_id ?? null },
    acl: linkedAcl(a, a.owner_id, m),
  };
}

export function noteToDocument(n: Note, m: MapContext): SourceDocument {
  const body = htmlText(n.content);
  const on = n.deal?.title ?? nameOf(m, 'deals', n.deal_id) ?? n.person?.name ?? nameOf(m, 'persons', n.person_id) ?? n.organization?.name ?? nameOf(m, 'organizations', n.org_id);
  const first = body.split('\n').find((l) => l.trim())?.trim() ?? '';
  const title = on ? `Note on ${on}` : first ? `Note: ${first.length > 80 ? `${first.slice(0, 77)}…` : first}` : `Note ${n.id}`;
  return {
    external_id: externalId('notes', n.id),
    title,
    content: join(body, linkLines(n, m, { deal: n.deal?.title, person: n.person?.name, org: n.organization?.name }).join('\n')),
    url: linkedUrl(n, m),
    author: userRef(n.user_id),
    document_type: 'note',
    ...dates(n),
    metadata: { pipedrive_id: n.id, deal_id: n.deal_id ?? null, person_id: n.person_id ?? null, org_id: n.org_id ?? null, user_id: n.user_id ?? null },
    acl: linkedAcl(n, n.user_id, m),
  };
}
