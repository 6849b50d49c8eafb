import { type FakeReply, type FakeRequest, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local Zoho CRM API v2 fake, speaking the wire format of zoho.com/crm/developer/docs/api/v2: `GET
 * /crm/v2/{module}` (`page`, `per_page` ≤ 200, `sort_by`/`sort_order`; `{data, info: {per_page, count, page,
 * more_records}}`; `If-Modified-Since` → records modified after it, 304 when none; 204 for an empty module), `GET
 * /crm/v2/{module}/deleted?type=all|recycle|permanent` (`{data: [{id, display_name, type, deleted_by, deleted_time}],
 * info}`), `GET /crm/v2/users?type=CurrentUser`, `GET /crm/v2/org`, and the accounts server's `POST /oauth/v2/token`
 * (with `api_domain`). Tokens arrive as `Authorization: Zoho-oauthtoken <token>`; errors are `{code, details, message,
 * status: "error"}` (401 INVALID_TOKEN, 429 TOO_MANY_REQUESTS). Every answer carries the fake's clock as `Date`.
 */
export type ZModule = 'Leads' | 'Contacts' | 'Accounts' | 'Deals' | 'Notes';
export interface ZUser {
  id: string;
  full_name: string;
  email: string;
}
export type ZRecord = Record<string, unknown> & { id: string; Modified_Time: string };

export interface ZohoData {
  me: ZUser;
  users: ZUser[];
  records: Record<ZModule, ZRecord[]>;
  deleted: { module: ZModule; id: string; display_name: string; type: 'recycle' | 'permanent'; deleted_time: string }[];
}

const BASE = Date.UTC(2026, 0, 5, 9, 0, 0);
/** Zoho's timestamp form: seconds and the org's offset (here CET, +01:00). */
export const zohoStamp = (ms: number) => `${new Date(ms + 3_600_000).toISOString().slice(0, 19)}+01:00`;

let serial = 0;
const zid = () => String(4_876_876_000_000_100_000 + ++serial * 1000 + 7);

export function seedZoho(): ZohoData {
  serial = 0;
  const users: ZUser[] = [
    { id: '4876876000000225013', full_name: 'Patricia Boyle', email: 'Patricia.Boyle@Zylker.test' },
    { id: '4876876000000225029', full_name: 'Ravi Kumar', email: 'ravi@zylker.test' },
  ];
  let clock = BASE;
  const owner = (u: ZUser) => ({ name: u.full_name, id: u.id, email: u.email });
  const rec = (fields: Record<string, unknown>, u: ZUser): ZRecord => {
    clock += 60_000;
    const s = zohoStamp(clock);
    return { id: zid(), Owner: owner(u), Created_By: owner(u), Modified_By: owner(u), Created_Time: s, Modified_Time: s, ...fields };
  };
  const [pat, ravi] = users as [ZUser, ZUser];
  const zylker = rec({ Account_Name: 'Zylker Inc', Account_Type: 'Customer', Industry: 'Technology', Website: 'https://zylker.test', Phone: '+49 30 1234', Billing_City: 'Berlin', Billing_Country: 'Germany', Annual_Revenue: 2_400_000, Employees: 120, Description: 'Buys our analytics suite; champion is the CFO.' }, pat);
  const sparta = rec({ Account_Name: 'Sparta Logistics', Account_Type: 'Prospect', Industry: 'Transport', Description: null }, ravi);
  const contact = rec({ First_Name: 'Lena', Last_Name: 'Schmidt', Full_Name: 'Lena Schmidt', Title: 'CFO', Email: 'lena@zylker.test', Department: 'Finance', Account_Name: { name: 'Zylker Inc', id: zylker.id }, Description: 'Signs off on renewals above 50k.' }, pat);
  const deal = rec({ Deal_Name: 'Zylker renewal 2026', Stage: 'Negotiation/Review', Amount: 84000, Closing_Date: '2026-03-15', Probability: 75, Account_Name: { name: 'Zylker Inc', id: zylker.id }, Contact_Name: { name: 'Lena Schmidt', id: contact.id }, Next_Step: 'Send the three-year quote', Description: 'Upsell of the forecasting add-on.' }, pat);
  const leads = [
    rec({ First_Name: 'Tom', Last_Name: 'Becker', Full_Name: 'Tom Becker', Company: 'Becker Bikes', Designation: 'Owner', Email: 'tom@beckerbikes.test', Lead_Status: 'Contacted', Lead_Source: 'Trade Show', Industry: 'Retail', Description: 'Met at the Berlin trade fair; wants a demo in February.' }, ravi),
    rec({ Last_Name: 'Okafor', Full_Name: 'Ngozi Okafor', Company: 'Lagos Freight', Lead_Status: 'Not Contacted' }, ravi),
  ];
  const notes = [rec({ Note_Title: 'Pricing call', Note_Content: 'Lena asked for a 10% discount on a three-year term.', Parent_Id: { name: 'Zylker renewal 2026', id: deal.id }, $se_module: 'Deals' }, pat)];
  return { me: pat, users, records: { Leads: leads, Contacts: [contact], Accounts: [zylker, sparta], Deals: [deal], Notes: notes }, deleted: [] };
}

export interface FakeZoho {
  readonly url: string;
  readonly token: string;
  readonly data: ZohoData;
  readonly fake: VendorFake;
  /** Every list request: module, page and If-Modified-Since. */
  readonly lists: { module: string; page: number; ifModifiedSince: string | null; deleted: boolean }[];
  now(): number;
  /** Advances the clock a minute and returns it as a Zoho timestamp. */
  tick(): string;
  add(module: ZModule, fields: Record<string, unknown>): ZRecord;
  remove(module: ZModule, id: string, type?: 'recycle' | 'permanent'): void;
  close(): Promise<void>;
}

const zError = (status: number, code: string, message: string): FakeReply => ({ status, json: { code, details: {}, message, status: 'error' } });

export async function startFakeZoho(data: ZohoData = seedZoho(), opts: { perPageMax?: number } = {}): Promise<FakeZoho> {
  const token = '1000.8cb99dxxxxxxxxxxxxx9be93.9b8xxxxxxxxxxxxxxxf';
  let clock = BASE + 86_400_000;
  const lists: FakeZoho['lists'] = [];
  const fake = new VendorFake({
    name: 'Zoho CRM',
    tokens: [token, 'second-user-token'],
    tokenOf: ({ headers }) => {
      const h = headers.authorization ?? '';
      return h.startsWith('Zoho-oauthtoken ') ? h.slice('Zoho-oauthtoken '.length) : null;
    },
    publicPath: (p) => p === '/oauth/v2/token',
    unauthorized: () => zError(401, 'INVALID_TOKEN', 'invalid oauth token'),
    rateLimited: () => zError(429, 'TOO_MANY_REQUESTS', 'The concurrency limit for your organization has been reached.'),
    serverError: () => ({ json: { code: 'INTERNAL_ERROR', details: {}, message: 'Internal Server Error', status: 'error' } }),
  });
  const advance = () => {
    clock += 60_000;
    return zohoStamp(clock);
  };
  const route = (method: string, path: string, h: (req: FakeRequest) => FakeReply | Promise<FakeReply>) =>
    fake.route(method, path, async (req) => {
      const r = await h(req);
      return { ...r, headers: { date: new Date(clock).toUTCString(), ...r.headers } };
    });
  const isModule = (m: string | undefined): m is ZModule => m !== undefined && m in data.records;
  const since = (req: FakeRequest): number | null => {
    const h = req.headers['if-modified-since'];
    if (typeof h !== 'string') return null;
    const t = Date.parse(h);
    return Number.isNaN(t) ? null : t;
  };
  const paging = (req: FakeRequest) => {
    const page = Math.max(1, Number(req.query.get('page') ?? 1));
    const perPage = Math.min(opts.perPageMax ?? 200, Math.max(1, Number(req.query.get('per_page') ?? 200)));
    return { page, perPage };
  };

  route('GET', '/crm/v2/users', (req) => {
    if (req.query.get('type') !== 'CurrentUser') return zError(400, 'INVALID_DATA', 'the fake answers type=CurrentUser only');
    const u = data.me;
    return { json: { users: [{ id: u.id, full_name: u.full_name, email: u.email, role: { name: 'CEO', id: '4876876000000026005' }, profile: { name: 'Administrator', id: '4876876000000026011' }, status: 'active' }], info: { per_page: 200, count: 1, page: 1, more_records: false } } };
  });
  route('GET', '/crm/v2/org', () => ({ json: { org: [{ id: '4876876000000022001', company_name: 'Zylker', domain_name: 'org20067510', time_zone: 'Europe/Berlin', currency: 'EUR' }] } }));
  route('GET', '/crm/v2/:module/deleted', (req) => {
    const module = req.params.module;
    if (!isModule(module)) return zError(400, 'INVALID_MODULE', 'the module name given seems to be invalid');
    const { page, perPage } = paging(req);
    const type = req.query.get('type') ?? 'all';
    const after = since(req);
    lists.push({ module, page, ifModifiedSince: typeof req.headers['if-modified-since'] === 'string' ? req.headers['if-modified-since'] : null, deleted: true });
    const rows = data.deleted.filter((d) => d.module === module && (type === 'all' || d.type === type) && (after === null || Date.parse(d.deleted_time) > after));
    if (rows.length === 0) return { status: after === null ? 204 : 304, body: '' };
    const slice = rows.slice((page - 1) * perPage, page * perPage);
    const who = { name: data.me.full_name, id: data.me.id };
    return {
      json: {
        data: slice.map((d) => ({ deleted_by: who, id: d.id, display_name: d.display_name, type: d.type, created_by: who, deleted_time: d.deleted_time })),
        info: { per_page: perPage, count: slice.length, page, more_records: page * perPage < rows.length },
      },
    };
  });
  route('GET', '/crm/v2/:module', (req) => {
    const module = req.params.module;
    if (!isModule(module)) return zError(400, 'INVALID_MODULE', 'the module name given seems to be invalid');
    const { page, perPage } = paging(req);
    const after = since(req);
    lists.push({ module, page, ifModifiedSince: typeof req.headers['if-modified-since'] === 'string' ? req.headers['if-modified-since'] : null, deleted: false });
    let rows = data.records[module].filter((r) => after === null || Date.parse(r.Modified_Time) > after);
    if (req.query.get('sort_by') === 'Modified_Time') {
      const dir = req.query.get('sort_order') === 'desc' ? -1 : 1;
      rows = [...rows].sort((a, b) => dir * (Date.parse(a.Modified_Time) - Date.parse(b.Modified_Time)));
    }
    if (rows.length === 0) return { status: after === null ? 204 : 304, body: '' };
    const slice = rows.slice((page - 1) * perPage, page * perPage);
    return { json: { data: slice, info: { per_page: perPage, count: slice.length, page, more_records: page * perPage < rows.length } } };
  });
  let issued = 0;
  fake.route('POST', '/oauth/v2/token', (req) =>
    oauthTokenEndpoint(fake, { code: 'zoho-grant-code', issue: () => ({ access_token: `1000.oauth-${++issued}`, refresh_token: `1000.refresh-${issued}`, expires_in: 3600, api_domain: fake.url }) })(req),
  );

  await fake.start();
  return {
    get url() {
      return fake.url;
    },
    token,
    data,
    fake,
    lists,
    now: () => clock,
    tick: advance,
    add(module, fields) {
      const s = advance();
      const u = data.me;
      const r: ZRecord = { id: zid(), Owner: { name: u.full_name, id: u.id, email: u.email }, Created_Time: s, Modified_Time: s, ...fields };
      data.records[module].push(r);
      return r;
    },
    remove(module, id, type = 'recycle') {
      const i = data.records[module].findIndex((r) => r.id === id);
      if (i < 0) throw new Error(`no ${module} ${id}`);
      const [gone] = data.records[module].splice(i, 1);
      data.deleted.push({ module, id, display_name: String(gone?.Full_Name ?? gone?.Account_Name ?? gone?.Deal_Name ?? id), type, deleted_time: advance() });
    },
    close: () => fake.close(),
  };
}
