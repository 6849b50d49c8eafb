import { cursorPage, type FakeReply, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local Airtable Web API fake, speaking the wire format of airtable.com/developers/web/api: `GET /v0/meta/whoami`
 * (`{id, email, scopes}`); `POST /oauth2/v1/token`; `GET /v0/meta/bases` (`{bases: [{id, name, permissionLevel}], offset}`, opaque `offset`);
 * `GET /v0/meta/bases/{baseId}/tables` (`{tables: [{id, name, description, primaryFieldId, fields, views}]}`);
 * `GET /v0/{baseId}/{tableIdOrName}` (`pageSize` ≤ 100, opaque `offset`, `filterByFormula` — this fake evaluates
 * `IS_AFTER(LAST_MODIFIED_TIME(), '<iso>')` and refuses other formulas with 422 INVALID_FILTER_BY_FORMULA; empty fields are
 * left out of `fields` as Airtable does). Bearer tokens (PAT or OAuth); `{error: {type, message}}` error bodies; a 429
 * answers `{errors: [{error: 'RATE_LIMIT_REACHED', …}]}`.
 */
export interface AField {
  id: string;
  name: string;
  type: string;
  description?: string;
  options?: Record<string, unknown>;
}
export interface ATable {
  id: string;
  name: string;
  description?: string;
  primaryFieldId: string;
  fields: AField[];
  records: ARecord[];
}
export interface ARecord {
  id: string;
  createdTime: string;
  /** Airtable's LAST_MODIFIED_TIME() of the record (not on the wire unless a lastModifiedTime field shows it). */
  modified: string;
  fields: Record<string, unknown>;
}
export interface ABase {
  id: string;
  name: string;
  permissionLevel: string;
  tables: ATable[];
}
export interface AirtableData {
  user: { id: string; email: string };
  bases: ABase[];
}

export interface FakeAirtable {
  readonly url: string;
  readonly token: string;
  readonly data: AirtableData;
  readonly fake: VendorFake;
  /** A timestamp later than every earlier one (for edits after a sync). */
  tick(): string;
  base(id: string): ABase;
  table(baseId: string, tableId: string): ATable;
  /** Adds a record (created and modified now). */
  add(baseId: string, tableId: string, fields: Record<string, unknown>): ARecord;
  close(): Promise<void>;
}

const BASE = Date.UTC(2026, 0, 10, 9, 0, 0);
/** Airtable ids: a 3-letter prefix and 14 characters. */
export const aid = (prefix: 'app' | 'tbl' | 'fld' | 'rec' | 'usr', n: number | string) => `${prefix}${String(n).padStart(14, '0')}`.slice(0, 17);

export function seedAirtable(): AirtableData {
  let at = BASE;
  const next = () => {
    at += 60_000;
    return new Date(at).toISOString();
  };
  const ada = { id: aid('usr', 1), email: 'Ada@Acme.test', name: 'Ada Lovelace' };
  const grace = { id: aid('usr', 2), email: 'grace@acme.test', name: 'Grace Hopper' };
  const f = (n: number, name: string, type: string, extra: Partial<AField> = {}): AField => ({ id: aid('fld', n), name, type, ...extra });
  const projectFields = [
    f(1, 'Name', 'singleLineText'),
    f(2, 'Notes', 'multilineText', { description: 'what the project is about' }),
    f(3, 'Status', 'singleSelect', { options: { choices: [{ name: 'Planned' }, { name: 'Active' }, { name: 'Done' }] } }),
    f(4, 'Owner', 'singleCollaborator'),
    f(5, 'Tags', 'multipleSelects'),
    f(6, 'Budget', 'currency', { options: { precision: 2, symbol: '€' } }),
    f(7, 'Progress', 'percent', { options: { precision: 0 } }),
    f(8, 'Shipped', 'checkbox', { options: { icon: 'check', color: 'greenBright' } }),
    f(9, 'Brief', 'multipleAttachments'),
    f(10, 'Created by', 'createdBy'),
    f(11, 'Last modified', 'lastModifiedTime', { options: { isValid: true, referencedFieldIds: [] } }),
  ];
  const project = (n: number, fields: Record<string, unknown>, creator = ada): ARecord => {
    const t = next();
    return { id: aid('rec', n), createdTime: t, modified: t, fields: { ...fields, 'Created by': creator, 'Last modified': t } };
  };
  const client = (n: number, fields: Record<string, unknown>): ARecord => {
    const t = next();
    return { id: aid('rec', n), createdTime: t, modified: t, fields };
  };
  return {
    user: { id: ada.id, email: ada.email },
    bases: [
      {
        id: aid('app', 1),
        name: 'Product Roadmap',
        permissionLevel: 'create',
        tables: [
          {
            id: aid('tbl', 1),
            name: 'Projects',
            description: 'Everything the product team is building',
            primaryFieldId: aid('fld', 1),
            fields: projectFields,
            records: [
              project(101, {
                Name: 'Quantum billing',
                Notes: 'Replace the invoice engine with usage-based pricing.\nPilot with three customers in March.',
                Status: 'Active',
                Owner: grace,
                Tags: ['billing', 'q1'],
                Budget: 125000,
                Progress: 0.4,
                Brief: [{ id: 'att1', url: 'https://dl.airtable.test/brief.pdf', filename: 'billing-brief.pdf', size: 1024, type: 'application/pdf' }],
              }),
              project(102, { Name: 'Mobile offline mode', Status: 'Planned', Tags: ['mobile'] }, grace),
              project(103, { Name: 'Search relevance', Notes: 'Tune ranking for long queries.', Status: 'Done', Shipped: true, Progress: 1 }),
            ],
          },
          {
            id: aid('tbl', 2),
            name: 'Clients',
            primaryFieldId: aid('fld', 21),
            fields: [f(21, 'Company', 'singleLineText'), f(22, 'Contact email', 'email'), f(23, 'Projects', 'multipleRecordLinks')],
            records: [
              client(201, { Company: 'Globex', 'Contact email': 'buyer@globex.test', Projects: [aid('rec', 101)] }),
              client(202, { Company: 'Initech', 'Contact email': 'ceo@initech.test' }),
              client(203, { Company: 'Umbrella' }),
            ],
          },
        ],
      },
      {
        id: aid('app', 2),
        name: 'Hiring',
        permissionLevel: 'read',
        tables: [
          {
            id: aid('tbl', 3),
            name: 'Candidates',
            primaryFieldId: aid('fld', 31),
            fields: [f(31, 'Name', 'singleLineText'), f(32, 'Stage', 'singleSelect')],
            records: [client(301, { Name: 'Linus T.', Stage: 'Onsite' }), client(302, { Name: 'Barbara L.', Stage: 'Offer' })],
          },
        ],
      },
    ],
  };
}

const error = (status: number, type: string, message: string): FakeReply => ({ status, json: { error: { type, message } } });

export async function startFakeAirtable(data: AirtableData = seedAirtable(), opts: { basePage?: number; recordPage?: number } = {}): Promise<FakeAirtable> {
  const token = 'patAtriumTest.0123456789abcdef';
  const fake = new VendorFake({
    name: 'Airtable',
    tokens: [token],
    publicPath: (p) => p === '/oauth2/v1/token',
    unauthorized: () => error(401, 'AUTHENTICATION_REQUIRED', 'Authentication required'),
    rateLimited: () => ({ status: 429, json: { errors: [{ error: 'RATE_LIMIT_REACHED', message: 'Rate limit exceeded. Please try again later' }] } }),
    serverError: () => ({ json: { error: { type: 'SERVER_ERROR', message: 'Try again. If the problem persists, contact support.' } } }),
  });
  let last = Date.now();
  const tick = () => {
    last = Math.max(Date.now(), last + 1000);
    return new Date(last).toISOString();
  };
  const base = (id: string) => {
    const b = data.bases.find((x) => x.id === id);
    if (!b) throw new Error(`no base ${id}`);
    return b;
  };
  const table = (baseId: string, tableId: string) => {
    const t = base(baseId).tables.find((x) => x.id === tableId || x.name === tableId);
    if (!t) throw new Error(`no table ${tableId}`);
    return t;
  };
  fake.route('GET', '/v0/meta/whoami', () => ({ json: { id: data.user.id, email: data.user.email, scopes: ['data.records:read', 'schema.bases:read'] } }));
  fake.route('GET', '/v0/meta/bases', (req) => {
    const page = cursorPage(data.bases, req.query.get('offset'), opts.basePage ?? 1000);
    return { json: { bases: page.items.map((b) => ({ id: b.id, name: b.name, permissionLevel: b.permissionLevel })), ...(page.next ? { offset: page.next } : {}) } };
  });
  fake.route('GET', '/v0/meta/bases/:baseId/tables', (req) => {
    const b = data.bases.find((x) => x.id === req.params.baseId);
    if (!b) return error(404, 'NOT_FOUND', 'Could not find what you are looking for');
    const tables = b.tables.map(({ records: _r, ...t }) => ({ ...t, views: [{ id: `viw${t.id.slice(3)}`, name: 'Grid view', type: 'grid' }] }));
    return { json: { tables } };
  });
  fake.route('GET', '/v0/:baseId/:table', (req) => {
    const b = data.bases.find((x) => x.id === req.params.baseId);
    const t = b?.tables.find((x) => x.id === req.params.table || x.name === req.params.table);
    if (!b || !t) return error(404, 'TABLE_NOT_FOUND', 'Could not find table in application');
    const pageSize = Number(req.query.get('pageSize') ?? 100);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) return error(422, 'INVALID_PAGE_SIZE', 'pageSize must be between 1 and 100');
    let records = t.records;
    const formula = req.query.get('filterByFormula');
    if (formula) {
      const m = /^IS_AFTER\(LAST_MODIFIED_TIME\(\), '([^']+)'\)$/.exec(formula);
      const since = m?.[1] ? Date.parse(m[1]) : NaN;
      if (Number.isNaN(since)) return error(422, 'INVALID_FILTER_BY_FORMULA', `The formula for filtering records is invalid: ${formula}`);
      records = records.filter((r) => Date.parse(r.modified) > since);
    }
    const page = cursorPage(records, req.query.get('offset'), Math.min(pageSize, opts.recordPage ?? 100));
    const visible = (fields: Record<string, unknown>) => Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== undefined && v !== '' && v !== false && !(Array.isArray(v) && v.length === 0)));
    return { json: { records: page.items.map((r) => ({ id: r.id, createdTime: r.createdTime, fields: visible(r.fields) })), ...(page.next ? { offset: page.next } : {}) } };
  });
  // The OAuth token endpoint (airtable.com/oauth2/v1/token): code `airtable-code` issues `oaa-<n>` access tokens.
  let issued = 0;
  fake.route('POST', '/oauth2/v1/token', oauthTokenEndpoint(fake, { code: 'airtable-code', issue: () => ({ access_token: `oaa-${++issued}`, refresh_token: `oar-${issued}`, expires_in: 3600 }) }));
  await fake.start();
  let added = 0;
  return {
    get url() {
      return fake.url;
    },
    token,
    data,
    fake,
    tick,
    base,
    table,
    add(baseId, tableId, fields) {
      const t = tick();
      const r: ARecord = { id: aid('rec', 900 + ++added), createdTime: t, modified: t, fields };
      table(baseId, tableId).records.push(r);
      return r;
    },
    close: () => fake.close(),
  };
}
