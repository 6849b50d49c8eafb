import { randomUUID } from 'node:crypto';
import { cursorPage, type FakeReply, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local HubSpot CRM API fake, speaking the wire format of developers.hubspot.com/docs/api-reference (CRM v3 objects):
 * `GET /account-info/v3/details`; `GET /crm/v3/objects/{type}` (`limit` ≤ 100, opaque `after` answered in
 * `paging.next.after`, `properties`, `associations` embedded as `{<type>: {results: [{id, type}]}}`, `archived=true`
 * lists archived records with `archivedAt`); `POST /crm/v3/objects/{type}/search` (filterGroups with EQ/GTE/GT/LTE/LT,
 * sorts, `limit` ≤ 200, numeric `after` offsets; an offset past 10,000 answers 400 like HubSpot; no associations);
 * `POST /crm/v3/objects/{type}/batch/read`; `POST /crm/v4/associations/{from}/{to}/batch/read`; `POST /oauth/v1/token`.
 * Bearer tokens (private app or OAuth); `{status: 'error', message, correlationId, category}` error bodies.
 */
export type HType = 'companies' | 'contacts' | 'deals' | 'tickets' | 'notes';
export interface HRecord {
  id: string;
  type: HType;
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
  archivedAt?: string;
  associations: Partial<Record<HType, string[]>>;
}
export interface HubSpotData {
  portalId: number;
  uiDomain: string;
  records: HRecord[];
}

export interface FakeHubSpot {
  readonly url: string;
  readonly token: string;
  readonly data: HubSpotData;
  readonly fake: VendorFake;
  /** Every search: its object type and body. */
  readonly searches: { type: string; body: Record<string, unknown> }[];
  /** A timestamp later than every earlier one (for edits after a sync). */
  tick(): string;
  record(type: HType, id: string): HRecord;
  /** Adds a record (modified now); returns it. */
  add(type: HType, id: string, properties: Record<string, string | null>, associations?: Partial<Record<HType, string[]>>): HRecord;
  /** Changes properties and bumps the last-modified time. */
  touch(r: HRecord, properties?: Record<string, string | null>): void;
  /** Archives (deletes) a record, as the HubSpot UI's delete does. */
  archive(r: HRecord): void;
  close(): Promise<void>;
}

const BASE = Date.UTC(2026, 0, 10, 9, 0, 0);
const MODIFIED: Record<HType, string> = { companies: 'hs_lastmodifieddate', contacts: 'lastmodifieddate', deals: 'hs_lastmodifieddate', tickets: 'hs_lastmodifieddate', notes: 'hs_lastmodifieddate' };
const SINGULAR: Record<HType, string> = { companies: 'company', contacts: 'contact', deals: 'deal', tickets: 'ticket', notes: 'note' };
const TYPES = Object.keys(MODIFIED) as HType[];
const isType = (t: string | undefined): t is HType => TYPES.includes(t as HType);

export function seedHubSpot(): HubSpotData {
  let at = BASE;
  const next = () => {
    at += 60_000;
    return new Date(at).toISOString();
  };
  const records: HRecord[] = [];
  const add = (type: HType, id: string, properties: Record<string, string | null>) => {
    const t = next();
    const r: HRecord = { id, type, properties: { ...properties, [MODIFIED[type]]: t, createdate: t, hs_object_id: id }, createdAt: t, updatedAt: t, associations: {} };
    records.push(r);
    return r;
  };
  const link = (a: HRecord, b: HRecord) => {
    a.associations[b.type] = [...(a.associations[b.type] ?? []), b.id];
    b.associations[a.type] = [...(b.associations[a.type] ?? []), a.id];
  };
  const acme = add('companies', '9001', { name: 'Acme Corp', domain: 'acme.com', industry: 'COMPUTER_SOFTWARE', city: 'Berlin', country: 'Germany', numberofemployees: '250', lifecyclestage: 'customer', description: 'Builds rocket-powered roller skates for enterprise coyotes.', hubspot_owner_id: '101' });
  const globex = add('companies', '9002', { name: 'Globex', domain: 'globex.test', industry: 'UTILITIES', hubspot_owner_id: '102', hubspot_team_id: '7' });
  const initech = add('companies', '9003', { name: 'Initech', domain: 'initech.test', hubspot_owner_id: null });
  const jane = add('contacts', '501', { firstname: 'Jane', lastname: 'Doe', email: 'Jane.Doe@acme.com', jobtitle: 'VP Engineering', phone: '+49 30 1234', lifecyclestage: 'customer', hubspot_owner_id: '101' });
  const bob = add('contacts', '502', { firstname: 'Bob', lastname: 'Smith', email: 'bob@globex.test', hubspot_owner_id: '102' });
  const ceo = add('contacts', '503', { firstname: null, lastname: null, email: 'ceo@initech.test' });
  const renewal = add('deals', '7001', { dealname: 'Acme renewal 2026', amount: '12000', deal_currency_code: 'EUR', dealstage: 'contractsent', pipeline: 'default', closedate: '2026-03-31T00:00:00Z', hubspot_owner_id: '101' });
  const pilot = add('deals', '7002', { dealname: 'Globex pilot', amount: '3000', dealstage: 'appointmentscheduled', pipeline: 'default', hubspot_owner_id: '102' });
  const sso = add('tickets', '3001', { subject: 'Login fails with SSO', content: 'Customer reports an SSO redirect loop after the October upgrade.', hs_pipeline: '0', hs_pipeline_stage: '1', hs_ticket_priority: 'HIGH', hubspot_owner_id: '101' });
  const call = add('notes', '8001', {
    hs_note_body: '<p>Call with <strong>Jane</strong>: they need <a href="https://acme.com/sso">SSO</a> before the renewal.</p><ul><li>Budget approved</li><li>Legal review pending</li></ul>',
    hs_timestamp: new Date(at).toISOString(),
    hubspot_owner_id: '101',
  });
  const kickoff = add('notes', '8002', { hs_note_body: '<div>Pilot kickoff scheduled with the Globex platform team.</div>', hs_timestamp: new Date(at).toISOString(), hubspot_owner_id: '102' });
  link(jane, acme);
  link(bob, globex);
  link(ceo, initech);
  link(renewal, acme);
  link(renewal, jane);
  link(pilot, globex);
  link(sso, acme);
  link(sso, jane);
  link(call, renewal);
  link(call, acme);
  link(call, jane);
  link(kickoff, pilot);
  return { portalId: 4455667, uiDomain: 'app-eu1.hubspot.com', records };
}

const error = (status: number, message: string, category: string): FakeReply => ({ status, json: { status: 'error', message, correlationId: randomUUID(), category } });

export async function startFakeHubSpot(data: HubSpotData = seedHubSpot()): Promise<FakeHubSpot> {
  const token = 'pat-eu1-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
  const searches: FakeHubSpot['searches'] = [];
  let clock = Math.max(...data.records.map((r) => Date.parse(r.updatedAt))) + 600_000;
  const tick = () => {
    clock += 600_000;
    return new Date(clock).toISOString();
  };
  const fake = new VendorFake({
    name: 'HubSpot',
    // A second token keeps the token check on after the first is revoked.
    tokens: [token, 'pat-eu1-other-app'],
    publicPath: (path) => path === '/oauth/v1/token',
    unauthorized: () =>
      error(401, 'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview', 'INVALID_AUTHENTICATION'),
    rateLimited: () => ({ status: 429, json: { status: 'error', message: 'You have reached your secondly limit.', errorType: 'RATE_LIMIT', correlationId: randomUUID(), policyName: 'SECONDLY' } }),
    serverError: (status) => error(status, 'internal error', 'INTERNAL_ERROR'),
  });
  const live = (type: HType) => data.records.filter((r) => r.type === type && !r.archivedAt);
  const pick = (r: HRecord, props: string[]) => {
    const defaults = ['hs_object_id', 'createdate', MODIFIED[r.type]];
    return Object.fromEntries([...new Set([...defaults, ...props])].filter((k) => k in r.properties).map((k) => [k, r.properties[k] ?? null]));
  };
  const json = (r: HRecord, props: string[], assoc: string[] = []) => {
    const associations = Object.fromEntries(
      assoc.filter(isType).flatMap((t) => {
        const ids = (r.associations[t] ?? []).filter((id) => data.records.some((x) => x.type === t && x.id === id && !x.archivedAt));
        return ids.length ? [[t, { results: ids.map((id) => ({ id, type: `${SINGULAR[r.type]}_to_${SINGULAR[t]}` })) }]] : [];
      }),
    );
    return {
      id: r.id,
      properties: pick(r, props),
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      archived: Boolean(r.archivedAt),
      ...(r.archivedAt ? { archivedAt: r.archivedAt } : {}),
      ...(Object.keys(associations).length ? { associations } : {}),
    };
  };
  const typeOr400 = (t: string | undefined): HType | FakeReply => (isType(t) ? t : error(400, `Unable to infer object type from: ${t}`, 'OBJECT_NOT_FOUND'));

  fake.route('GET', '/account-info/v3/details', () => ({
    json: { portalId: data.portalId, accountType: 'STANDARD', timeZone: 'Europe/Berlin', companyCurrency: 'EUR', additionalCurrencies: [], utcOffset: '+01:00', utcOffsetMilliseconds: 3_600_000, uiDomain: data.uiDomain, dataHostingLocation: 'eu1' },
  }));
  fake.route('GET', '/crm/v3/objects/:type', (req) => {
    const type = typeOr400(req.params.type);
    if (typeof type !== 'string') return type;
    const limit = Math.min(100, Number(req.query.get('limit') ?? 10));
    const archived = req.query.get('archived') === 'true';
    const rows = data.records.filter((r) => r.type === type && Boolean(r.archivedAt) === archived).sort((a, b) => Number(a.id) - Number(b.id));
    const page = cursorPage(rows, req.query.get('after'), limit);
    const props = (req.query.get('properties') ?? '').split(',').filter(Boolean);
    const assoc = (req.query.get('associations') ?? '').split(',').filter(Boolean);
    return { json: { results: page.items.map((r) => json(r, props, assoc)), ...(page.next ? { paging: { next: { after: page.next, link: `${fake.url}/crm/v3/objects/${type}?after=${page.next}` } } } : {}) } };
  });
  fake.route('POST', '/crm/v3/objects/:type/search', (req) => {
    const type = typeOr400(req.params.type);
    if (typeof type !== 'string') return type;
    const body = (req.body ?? {}) as { filterGroups?: { filters: { propertyName: string; operator: string; value?: string }[] }[]; sorts?: { propertyName: string; direction?: string }[]; properties?: string[]; limit?: number; after?: string };
    searches.push({ type, body: body as Record<string, unknown> });
    const limit = Math.min(200, body.limit ?? 10);
    const offset = Number(body.after ?? 0);
    if (offset + limit > 10_000) return error(400, 'There was a problem with the request.', 'VALIDATION_ERROR');
    const value = (r: HRecord, prop: string) => r.properties[prop] ?? null;
    const num = (v: string) => (/^\d+$/.test(v) ? Number(v) : Date.parse(v));
    const test = (r: HRecord, f: { propertyName: string; operator: string; value?: string }) => {
      const v = value(r, f.propertyName);
      if (v === null || f.value === undefined) return false;
      const [a, b] = [num(v), num(f.value)];
      switch (f.operator) {
        case 'EQ':
          return v === f.value;
        case 'GTE':
          return a >= b;
        case 'GT':
          return a > b;
        case 'LTE':
          return a <= b;
        case 'LT':
          return a < b;
        default:
          throw new Error(`fake: operator ${f.operator}`);
      }
    };
    const groups = body.filterGroups ?? [];
    let rows = live(type).filter((r) => groups.length === 0 || groups.some((g) => g.filters.every((f) => test(r, f))));
    const sort = body.sorts?.[0];
    if (sort) rows = rows.sort((a, b) => (sort.direction === 'DESCENDING' ? -1 : 1) * (num(value(a, sort.propertyName) ?? '0') - num(value(b, sort.propertyName) ?? '0')) || Number(a.id) - Number(b.id));
    const items = rows.slice(offset, offset + limit);
    const more = offset + limit < rows.length;
    return { json: { total: rows.length, results: items.map((r) => json(r, body.properties ?? [])), ...(more ? { paging: { next: { after: String(offset + limit) } } } : {}) } };
  });
  fake.route('POST', '/crm/v3/objects/:type/batch/read', (req) => {
    const type = typeOr400(req.params.type);
    if (typeof type !== 'string') return type;
    const body = (req.body ?? {}) as { properties?: string[]; inputs?: { id: string }[] };
    if ((body.inputs ?? []).length > 100) return error(400, 'Too many inputs (max 100)', 'VALIDATION_ERROR');
    const found = (body.inputs ?? []).map((i) => live(type).find((r) => r.id === i.id)).filter((r): r is HRecord => Boolean(r));
    const at = new Date(clock).toISOString();
    return { json: { status: 'COMPLETE', results: found.map((r) => json(r, body.properties ?? [])), startedAt: at, completedAt: at } };
  });
  fake.route('POST', '/crm/v4/associations/:from/:to/batch/read', (req) => {
    const [from, to] = [req.params.from, req.params.to];
    if (!isType(from) || !isType(to)) return error(400, 'Unknown object type', 'VALIDATION_ERROR');
    const inputs = ((req.body ?? {}) as { inputs?: { id: string }[] }).inputs ?? [];
    const results = inputs.flatMap((i) => {
      const r = live(from).find((x) => x.id === i.id);
      const ids = (r?.associations[to] ?? []).filter((id) => live(to).some((x) => x.id === id));
      return ids.length ? [{ from: { id: i.id }, to: ids.map((id) => ({ toObjectId: Number(id), associationTypes: [{ category: 'HUBSPOT_DEFINED', typeId: 1, label: null }] })) }] : [];
    });
    // HubSpot answers 207 Multi-Status when some inputs have no associations (listed under `errors`).
    const missing = inputs.filter((i) => !results.some((r) => r.from.id === i.id));
    return { status: missing.length ? 207 : 200, json: { status: 'COMPLETE', results, ...(missing.length ? { numErrors: missing.length, errors: missing.map((i) => ({ status: 'error', category: 'OBJECT_NOT_FOUND', message: `No ${to} is associated with ${SINGULAR[from]} ${i.id}.`, context: { fromObjectId: [i.id] } })) } : {}) } };
  });
  let issued = 0;
  fake.route('POST', '/oauth/v1/token', oauthTokenEndpoint(fake, { code: 'hubspot-code', issue: () => ({ access_token: `CJT-oauth-${++issued}`, refresh_token: `hs-rt-${issued}`, expires_in: 1800 }) }));

  await fake.start();
  const record = (type: HType, id: string) => {
    const r = data.records.find((x) => x.type === type && x.id === id);
    if (!r) throw new Error(`no ${type} ${id}`);
    return r;
  };
  return {
    get url() {
      return fake.url;
    },
    token,
    data,
    fake,
    searches,
    tick,
    record,
    add(type, id, properties, associations = {}) {
      const t = tick();
      const r: HRecord = { id, type, properties: { ...properties, [MODIFIED[type]]: t, createdate: t, hs_object_id: id }, createdAt: t, updatedAt: t, associations };
      for (const [other, ids] of Object.entries(associations) as [HType, string[]][]) for (const oid of ids) record(other, oid).associations[type] = [...(record(other, oid).associations[type] ?? []), id];
      data.records.push(r);
      return r;
    },
    touch(r, properties = {}) {
      const t = tick();
      Object.assign(r.properties, properties, { [MODIFIED[r.type]]: t });
      r.updatedAt = t;
    },
    archive(r) {
      r.archivedAt = tick();
    },
    close: () => fake.close(),
  };
}
