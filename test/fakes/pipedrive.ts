import { cursorPage, type FakeReply, oauthTokenEndpoint, offsetPage, VendorFake } from './kit/index.ts';

/**
 * A local Pipedrive API fake, speaking the wire format of developers.pipedrive.com/docs/api: API v2 lists
 * `GET /api/v2/{organizations,persons,deals,activities}` (`limit` ≤ 500, opaque `cursor` answered in
 * `additional_data.next_cursor`, `sort_by` id/update_time/add_time + `sort_direction`, `updated_since` in RFC 3339
 * (`update_time >=`), `ids` (≤ 100), deals' `status` incl. `deleted` (deleted in the last 30 days)); v1
 * `GET /api/v1/notes` (`start`/`limit`, `sort`, `updated_since`, `additional_data.pagination.more_items_in_collection`,
 * related `deal`/`person`/`organization` objects, `YYYY-MM-DD HH:MM:SS` times) and `GET /api/v1/users/me`;
 * `POST /oauth/token` answering `api_domain`. The API token arrives as `x-api-token` (or the `api_token` query
 * parameter), OAuth tokens as bearer; `{success: false, error, errorCode}` error bodies; 429 with `x-ratelimit-*` headers.
 */
export interface PUser {
  id: number;
  name: string;
  email: string;
}
type Base = { id: number; owner_id: number; add_time: string; update_time: string };
export type POrg = Base & { name: string; address: string | null; visible_to: number };
export type PPerson = Base & { name: string; org_id: number | null; emails: string[]; phones: string[]; job_title: string | null; visible_to: number };
export type PDeal = Base & { title: string; value: number; currency: string; person_id: number | null; org_id: number | null; stage_id: number; pipeline_id: number; status: 'open' | 'won' | 'lost'; visible_to: number; deleted?: boolean };
export type PActivity = Base & { subject: string; type: string; deal_id: number | null; person_id: number | null; org_id: number | null; due_date: string; due_time: string; done: boolean; note: string | null };
export type PNote = Omit<Base, 'owner_id'> & { user_id: number; content: string; deal_id: number | null; person_id: number | null; org_id: number | null };
export interface PipedriveData {
  me: PUser & { company_id: number; company_name: string; company_domain: string };
  users: PUser[];
  organizations: POrg[];
  persons: PPerson[];
  deals: PDeal[];
  activities: PActivity[];
  notes: PNote[];
}

export interface FakePipedrive {
  readonly url: string;
  readonly apiToken: string;
  readonly data: PipedriveData;
  readonly fake: VendorFake;
  /** A time later than every earlier one (RFC 3339, seconds), for edits after a sync. */
  tick(): string;
  close(): Promise<void>;
}

const BASE = Date.UTC(2026, 0, 5, 9, 0, 0);
export const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const v1Time = (iso: string) => iso.replace('T', ' ').replace(/(\.\d{3})?Z$/, '');

export function seedPipedrive(): PipedriveData {
  let at = BASE;
  const t = () => {
    at += 60_000;
    return rfc3339(at);
  };
  const stamp = () => {
    const v = t();
    return { add_time: v, update_time: v };
  };
  const me = { id: 11, name: 'Ada Lovelace', email: 'Ada@acme.test', company_id: 5001, company_name: 'Acme GmbH', company_domain: 'acme' };
  return {
    me,
    users: [me, { id: 12, name: 'Grace Hopper', email: 'grace@acme.test' }],
    organizations: [
      { id: 1, name: 'Acme Corp', address: 'Torstraße 1, 10119 Berlin', owner_id: 11, visible_to: 3, ...stamp() },
      { id: 2, name: 'Globex', address: null, owner_id: 12, visible_to: 1, ...stamp() },
    ],
    persons: [
      { id: 101, name: 'Jane Doe', org_id: 1, emails: ['Jane@acme.test'], phones: ['+49 30 1234'], job_title: 'CTO', owner_id: 11, visible_to: 3, ...stamp() },
      { id: 102, name: 'Bob Smith', org_id: 2, emails: ['bob@globex.test'], phones: [], job_title: null, owner_id: 12, visible_to: 1, ...stamp() },
    ],
    deals: [
      { id: 201, title: 'Acme expansion', value: 50000, currency: 'EUR', person_id: 101, org_id: 1, stage_id: 3, pipeline_id: 1, status: 'open', owner_id: 11, visible_to: 3, ...stamp() },
      { id: 202, title: 'Globex pilot', value: 4000, currency: 'USD', person_id: 102, org_id: 2, stage_id: 1, pipeline_id: 1, status: 'open', owner_id: 12, visible_to: 1, ...stamp() },
    ],
    activities: [
      { id: 301, subject: 'Discovery call', type: 'call', deal_id: 201, person_id: 101, org_id: 1, due_date: '2026-02-01', due_time: '10:00', done: false, note: '<p>Ask about <b>SSO</b> requirements and the data residency clause.</p>', owner_id: 11, ...stamp() },
      { id: 302, subject: 'Send proposal', type: 'task', deal_id: 202, person_id: null, org_id: 2, due_date: '2026-02-03', due_time: '', done: true, note: null, owner_id: 12, ...stamp() },
    ],
    notes: [
      { id: 401, user_id: 11, content: '<p>Jane confirmed the <b>budget</b> for the second quarter.</p><ul><li>Procurement via reseller</li></ul>', deal_id: 201, person_id: 101, org_id: 1, ...stamp() },
      { id: 402, user_id: 12, content: 'Bob prefers email over phone calls.', deal_id: null, person_id: 102, org_id: null, ...stamp() },
    ],
  };
}

const fail = (status: number, error: string, extra: Record<string, unknown> = {}): FakeReply => ({ status, json: { success: false, error, errorCode: status, error_info: 'Please check developers.pipedrive.com', data: null, additional_data: null, ...extra } });

/** `maxPage`: the most items one page holds (Pipedrive may answer fewer than `limit` asks for). */
export async function startFakePipedrive(data: PipedriveData = seedPipedrive(), opts: { maxPage?: number } = {}): Promise<FakePipedrive> {
  const apiToken = '5f2a8c1e9b7d4a0c3e6f1b2d8a9c7e4f0b1d2c3a';
  let clock = BASE + 1000 * 60_000;
  const fake = new VendorFake({
    name: 'Pipedrive',
    // A second user's token keeps the token check on after the first is revoked.
    tokens: [apiToken, 'grace-api-token-0000000000000000000000000'],
    tokenOf: ({ headers, query }) => {
      const h = headers['x-api-token'];
      if (typeof h === 'string') return h;
      if (query.get('api_token')) return query.get('api_token');
      const auth = headers.authorization;
      return auth?.startsWith('Bearer ') ? auth.slice(7) : null;
    },
    publicPath: (path) => path === '/oauth/token',
    unauthorized: () => fail(401, 'unauthorized access'),
    rateLimited: () => ({ ...fail(429, 'Request over limit'), headers: { 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' } }),
    serverError: (status) => fail(status, 'Internal server error'),
  });
  const page = (items: unknown[], next: string | null) => ({ json: { success: true, data: items, additional_data: { next_cursor: next } } });
  const limitOf = (q: URLSearchParams, max = 500) => Math.min(opts.maxPage ?? max, Math.max(1, Number(q.get('limit') ?? 100)));
  const since = (q: URLSearchParams): number | null | FakeReply => {
    const v = q.get('updated_since');
    if (v === null) return null;
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(v)) return fail(400, `Validation failed: updated_since: Invalid date-time '${v}', expected RFC 3339 such as 2025-01-01T10:20:00Z`);
    return Date.parse(v);
  };
  const contact = (values: string[]) => values.map((value, i) => ({ value, primary: i === 0, label: 'work' }));
  const v2 = {
    organizations: (o: POrg) => ({ id: o.id, name: o.name, owner_id: o.owner_id, add_time: o.add_time, update_time: o.update_time, visible_to: o.visible_to, label_ids: [], is_deleted: false, address: o.address ? { value: o.address, country: 'Germany' } : null }),
    persons: (p: PPerson) => ({ id: p.id, name: p.name, first_name: p.name.split(' ')[0], last_name: p.name.split(' ').slice(1).join(' '), owner_id: p.owner_id, org_id: p.org_id, add_time: p.add_time, update_time: p.update_time, emails: contact(p.emails), phones: contact(p.phones), job_title: p.job_title, visible_to: p.visible_to, label_ids: [], is_deleted: false }),
    deals: (d: PDeal) => ({ id: d.id, title: d.title, creator_user_id: d.owner_id, owner_id: d.owner_id, value: d.value, currency: d.currency, person_id: d.person_id, org_id: d.org_id, stage_id: d.stage_id, pipeline_id: d.pipeline_id, status: d.status, probability: null, expected_close_date: null, close_time: null, lost_reason: null, visible_to: d.visible_to, add_time: d.add_time, update_time: d.update_time, is_deleted: Boolean(d.deleted) }),
    activities: (a: PActivity) => ({ id: a.id, subject: a.subject, type: a.type, owner_id: a.owner_id, creator_user_id: a.owner_id, deal_id: a.deal_id, person_id: a.person_id, org_id: a.org_id, lead_id: null, project_id: null, due_date: a.due_date, due_time: a.due_time, duration: '', busy: false, done: a.done, note: a.note, public_description: null, location: null, add_time: a.add_time, update_time: a.update_time, is_deleted: false }),
  };
  const list = <T extends Base>(name: string, rows: () => T[], toJson: (r: T) => unknown, opt: { check?: (q: URLSearchParams) => FakeReply | null; filter?: (r: T, q: URLSearchParams) => boolean } = {}) =>
    fake.route('GET', `/api/v2/${name}`, (req) => {
      const q = req.query;
      const s = since(q);
      if (s !== null && typeof s === 'object') return s;
      const ids = q.get('ids')?.split(',').map(Number);
      if (ids && ids.length > 100) return fail(400, 'Validation failed: ids: must contain at most 100 items');
      const by = q.get('sort_by') ?? 'id';
      if (!['id', 'update_time', 'add_time'].includes(by)) return fail(400, 'Validation failed: sort_by: must be one of id, update_time, add_time');
      const bad = opt.check?.(q);
      if (bad) return bad;
      const dir = q.get('sort_direction') === 'desc' ? -1 : 1;
      const key = (r: T) => (by === 'id' ? r.id : Date.parse(by === 'add_time' ? r.add_time : r.update_time));
      const hits = rows()
        .filter((r) => (s === null || Date.parse(r.update_time) >= s) && (!ids || ids.includes(r.id)) && (opt.filter?.(r, q) ?? true))
        .sort((a, b) => dir * (key(a) - key(b)) || a.id - b.id);
      const pg = cursorPage(hits, q.get('cursor'), limitOf(q));
      return page(pg.items.map(toJson), pg.next);
    });
  list('organizations', () => data.organizations, v2.organizations);
  list('persons', () => data.persons, v2.persons);
  list('activities', () => data.activities, v2.activities);
  const statuses = (q: URLSearchParams) => (q.get('status') ?? 'open,won,lost').split(',');
  list('deals', () => data.deals, v2.deals, {
    check: (q) => (statuses(q).some((x) => !['open', 'won', 'lost', 'deleted'].includes(x)) ? fail(400, 'Validation failed: status') : null),
    // Deleted deals are listed only when asked for (Pipedrive keeps them 30 days).
    filter: (d, q) => (d.deleted ? statuses(q).includes('deleted') : statuses(q).includes(d.status)),
  });
  fake.route('GET', '/api/v1/users/me', () => ({
    json: { success: true, data: { ...data.me, default_currency: 'EUR', locale: 'en_US', lang: 1, timezone_name: 'Europe/Berlin', active_flag: true, is_admin: 1, language: { language_code: 'en', country_code: 'US' } } },
  }));
  fake.route('GET', '/api/v1/notes', (req) => {
    const q = req.query;
    const s = since(q);
    if (s !== null && typeof s === 'object') return s;
    const sort = q.get('sort') ?? 'id ASC';
    const m = /^(id|update_time|add_time) (ASC|DESC)$/.exec(sort);
    if (!m) return fail(400, `Invalid sort field: ${sort}`);
    const key = (n: PNote) => (m[1] === 'id' ? n.id : Date.parse(m[1] === 'add_time' ? n.add_time : n.update_time));
    const hits = data.notes.filter((n) => s === null || Date.parse(n.update_time) >= s).sort((a, b) => (m[2] === 'DESC' ? -1 : 1) * (key(a) - key(b)) || a.id - b.id);
    const start = Number(q.get('start') ?? 0);
    const pg = offsetPage(hits, start, Math.min(opts.maxPage ?? 500, Number(q.get('limit') ?? 100)));
    const deal = (id: number | null) => data.deals.find((d) => d.id === id && !d.deleted);
    const items = pg.items.map((n) => ({
      id: n.id,
      user_id: n.user_id,
      deal_id: n.deal_id,
      person_id: n.person_id,
      org_id: n.org_id,
      lead_id: null,
      content: n.content,
      add_time: v1Time(n.add_time),
      update_time: v1Time(n.update_time),
      active_flag: true,
      pinned_to_deal_flag: false,
      deal: n.deal_id ? { title: deal(n.deal_id)?.title ?? '' } : null,
      person: n.person_id ? { name: data.persons.find((p) => p.id === n.person_id)?.name ?? '' } : null,
      organization: n.org_id ? { name: data.organizations.find((o) => o.id === n.org_id)?.name ?? '' } : null,
      user: { email: data.users.find((u) => u.id === n.user_id)?.email ?? '', name: data.users.find((u) => u.id === n.user_id)?.name ?? '', icon_url: null, is_you: n.user_id === data.me.id },
    }));
    return { json: { success: true, data: items.length ? items : null, additional_data: { pagination: { start, limit: pg.items.length, more_items_in_collection: pg.next !== null, ...(pg.next !== null ? { next_start: pg.next } : {}) } } } };
  });
  let issued = 0;
  fake.route('POST', '/oauth/token', oauthTokenEndpoint(fake, { code: 'pipedrive-code', issue: () => ({ access_token: `v1u:oauth-${++issued}`, refresh_token: `pd-rt-${issued}`, expires_in: 3599, scope: 'base,deals:read,contacts:read,activities:read', api_domain: fake.url }) }));

  await fake.start();
  return {
    get url() {
      return fake.url;
    },
    apiToken,
    data,
    fake,
    tick: () => {
      clock += 60_000;
      return rfc3339(clock);
    },
    close: () => fake.close(),
  };
}
