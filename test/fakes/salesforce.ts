import { type FakeReply, type FakeRequest, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local Salesforce REST API fake, speaking the wire format of the REST API Developer Guide: `GET
 * /services/data/vXX.X/query?q=<SOQL>` (`{totalSize, done, nextRecordsUrl, records}` with `attributes` per record and
 * relationship objects such as `Owner: {attributes, Name, Email}`), query locators `GET /services/data/vXX.X/query/<id>`,
 * `GET /services/data/vXX.X/sobjects/<Type>/deleted/?start=&end=` (`deletedRecords`, `earliestDateAvailable`,
 * `latestDateCovered`; seconds ignored; 15 days back at most, else INVALID_REPLICATION_DATE), `GET
 * /services/oauth2/userinfo`, `POST /services/oauth2/token` (with `instance_url`). Errors are JSON arrays
 * `[{message, errorCode}]`: 401 INVALID_SESSION_ID, 403 REQUEST_LIMIT_EXCEEDED, 400 MALFORMED_QUERY / INVALID_FIELD /
 * INVALID_TYPE. Every answer carries the fake's clock as its `Date` header. SOQL: the subset the connector sends
 * (SELECT fields and relationship paths, FROM, WHERE with AND of `>`, `=` and `IN (…)`, ORDER BY one field).
 */
export type SfType = 'Account' | 'Contact' | 'Opportunity' | 'Case' | 'CaseComment' | 'KnowledgeArticleVersion';
export interface SfUser {
  Id: string;
  Name: string;
  Email: string;
}
export type SfRow = Record<string, unknown> & { Id: string; SystemModstamp: string };

export interface SalesforceData {
  orgId: string;
  me: SfUser;
  users: SfUser[];
  rows: Record<SfType, SfRow[]>;
  deleted: { type: SfType; id: string; deletedDate: string }[];
  knowledgeEnabled: boolean;
}

const BASE = Date.UTC(2026, 0, 5, 9, 0, 0);
/** Salesforce's timestamp form: milliseconds and `+0000`. */
export const sfStamp = (ms: number) => new Date(ms).toISOString().replace('Z', '+0000');
const at = (s: string) => Date.parse(s.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));

/** The fields each type answers (relationship paths resolved from the Id fields). */
const FIELDS: Record<SfType, string[]> = {
  Account: ['Id', 'Name', 'Type', 'Industry', 'Website', 'Phone', 'BillingCity', 'BillingCountry', 'AnnualRevenue', 'NumberOfEmployees', 'Description', 'OwnerId', 'CreatedDate', 'LastModifiedDate', 'SystemModstamp'],
  Contact: ['Id', 'Name', 'Title', 'Email', 'Phone', 'Department', 'AccountId', 'MailingCity', 'MailingCountry', 'Description', 'OwnerId', 'CreatedDate', 'LastModifiedDate', 'SystemModstamp'],
  Opportunity: ['Id', 'Name', 'StageName', 'Amount', 'CloseDate', 'Probability', 'Type', 'LeadSource', 'NextStep', 'AccountId', 'Description', 'OwnerId', 'CreatedDate', 'LastModifiedDate', 'SystemModstamp'],
  Case: ['Id', 'CaseNumber', 'Subject', 'Status', 'Priority', 'Origin', 'Type', 'Reason', 'IsClosed', 'AccountId', 'ContactId', 'Description', 'OwnerId', 'CreatedDate', 'LastModifiedDate', 'SystemModstamp'],
  CaseComment: ['Id', 'ParentId', 'CommentBody', 'IsPublished', 'CreatedById', 'CreatedDate', 'SystemModstamp'],
  KnowledgeArticleVersion: ['Id', 'KnowledgeArticleId', 'ArticleNumber', 'Title', 'Summary', 'UrlName', 'Language', 'VersionNumber', 'LastPublishedDate', 'PublishStatus', 'CreatedById', 'CreatedDate', 'LastModifiedDate', 'SystemModstamp'],
};
/** Relationship name → [id field, target type]. */
const RELATIONS: Record<string, [string, 'User' | SfType]> = { Owner: ['OwnerId', 'User'], CreatedBy: ['CreatedById', 'User'], Account: ['AccountId', 'Account'], Contact: ['ContactId', 'Contact'] };
const USER_FIELDS = ['Id', 'Name', 'Email'];
const PREFIX: Record<SfType, string> = { Account: '001', Contact: '003', Opportunity: '006', Case: '500', CaseComment: '00a', KnowledgeArticleVersion: 'ka0' };

let serial = 0;
/** An 18-character Salesforce-like id with the type's key prefix. */
export const sfId = (prefix: string) => `${prefix}Dn000000${String(++serial).padStart(4, '0')}AAA`.slice(0, 18);

/** A small org: 2 accounts, 3 contacts, 2 opportunities, 3 cases (one with comments, one owned by a queue), 2 online articles. */
export function seedSalesforce(): SalesforceData {
  serial = 0;
  const users: SfUser[] = [
    { Id: '005Dn000001AdaAAA', Name: 'Ada Lovelace', Email: 'Ada@Acme.test' },
    { Id: '005Dn000002GrcAAA', Name: 'Grace Hopper', Email: 'grace@acme.test' },
  ];
  let clock = BASE;
  const stamp = () => {
    clock += 60_000;
    return sfStamp(clock);
  };
  const row = (type: SfType, fields: Record<string, unknown>): SfRow => {
    const s = stamp();
    return { Id: sfId(PREFIX[type]), CreatedDate: s, LastModifiedDate: s, SystemModstamp: s, ...fields };
  };
  const [ada, grace] = users as [SfUser, SfUser];
  const acme = row('Account', { Name: 'Acme Corp', Type: 'Customer', Industry: 'Manufacturing', Website: 'https://acme.test', Phone: '+1 555 0100', BillingCity: 'Springfield', BillingCountry: 'USA', AnnualRevenue: 5_000_000, NumberOfEmployees: 250, Description: 'Makes anvils and rocket skates; renewal due in March.', OwnerId: ada.Id });
  const globex = row('Account', { Name: 'Globex', Type: 'Prospect', Industry: 'Energy', Description: null, OwnerId: grace.Id });
  const contacts = [
    row('Contact', { Name: 'Wile E. Coyote', Title: 'Head of Procurement', Email: 'wile@acme.test', Phone: '+1 555 0101', Department: 'Purchasing', AccountId: acme.Id, MailingCity: 'Springfield', MailingCountry: 'USA', Description: 'Prefers email; evaluates the premium anvil line.', OwnerId: ada.Id }),
    row('Contact', { Name: 'Road Runner', Title: 'CTO', Email: 'rr@acme.test', AccountId: acme.Id, OwnerId: grace.Id }),
    row('Contact', { Name: 'Hank Scorpio', Title: 'CEO', Email: 'hank@globex.test', AccountId: globex.Id, OwnerId: grace.Id }),
  ];
  const opportunities = [
    row('Opportunity', { Name: 'Acme — 2026 renewal', StageName: 'Negotiation/Review', Amount: 120000, CloseDate: '2026-03-31', Probability: 80, Type: 'Existing Customer - Upgrade', LeadSource: 'Partner', NextStep: 'Send the revised quote', AccountId: acme.Id, Description: 'Upgrade to the rocket skates bundle.', OwnerId: ada.Id }),
    row('Opportunity', { Name: 'Globex pilot', StageName: 'Prospecting', Amount: 15000, CloseDate: '2026-06-30', Probability: 10, AccountId: globex.Id, OwnerId: grace.Id }),
  ];
  const cases = [
    row('Case', { CaseNumber: '00001026', Subject: 'Anvil delivery arrived dented', Status: 'Working', Priority: 'High', Origin: 'Email', Type: 'Problem', Reason: 'Damaged', IsClosed: false, AccountId: acme.Id, ContactId: contacts[0]?.Id, Description: 'The anvil shipped on order 4711 has a dent on the horn.', OwnerId: ada.Id }),
    row('Case', { CaseNumber: '00001027', Subject: 'Invoice address change', Status: 'New', Priority: 'Low', Origin: 'Web', IsClosed: false, AccountId: globex.Id, OwnerId: '00GDn000000SupQAAS' }),
    row('Case', { CaseNumber: '00001028', Subject: 'Skates too fast', Status: 'Closed', Priority: 'Medium', Origin: 'Phone', IsClosed: true, AccountId: acme.Id, OwnerId: grace.Id }),
  ];
  const first = cases[0] as SfRow;
  const comments = [
    row('CaseComment', { ParentId: first.Id, CommentBody: 'Photos received; the horn is bent by 3 mm.', IsPublished: true, CreatedById: grace.Id }),
    row('CaseComment', { ParentId: first.Id, CommentBody: 'Replacement approved by the warehouse.', IsPublished: false, CreatedById: ada.Id }),
  ];
  const article = (n: number, title: string, summary: string): SfRow => {
    const r = row('KnowledgeArticleVersion', { ArticleNumber: `00000${n}`, Title: title, Summary: summary, UrlName: title.toLowerCase().replace(/\W+/g, '-'), Language: 'en_US', VersionNumber: 1, PublishStatus: 'Online', CreatedById: ada.Id });
    return { ...r, KnowledgeArticleId: `kA0Dn00000000${n}AAA`, LastPublishedDate: r.CreatedDate };
  };
  const articles = [article(1, 'How to return a damaged anvil', 'Photograph the damage, then open a case with the order number.'), article(2, 'Rocket skate safety', 'Never exceed 200 km/h on public roads.')];
  return {
    orgId: '00DDn00000AcmeQAA',
    me: ada,
    users,
    rows: { Account: [acme, globex], Contact: contacts, Opportunity: opportunities, Case: cases, CaseComment: comments, KnowledgeArticleVersion: articles },
    deleted: [],
    knowledgeEnabled: true,
  };
}

export interface FakeSalesforce {
  readonly url: string;
  readonly token: string;
  readonly data: SalesforceData;
  readonly fake: VendorFake;
  /** Every SOQL query received. */
  readonly queries: string[];
  /** The fake's clock (its Date header), ms. */
  now(): number;
  /** Advances the clock a minute and returns the new time as a Salesforce timestamp (for edits after a sync). */
  tick(): string;
  add(type: SfType, fields: Record<string, unknown>): SfRow;
  /** The next `count` API requests answer the spent 24-hour allocation (403 REQUEST_LIMIT_EXCEEDED, no Retry-After). */
  dailyLimitNext(count: number): void;
  /** Deletes a record (to the delete log, stamped now). */
  remove(type: SfType, id: string): void;
  close(): Promise<void>;
}

const sfError = (status: number, errorCode: string, message: string): FakeReply => ({ status, json: [{ message, errorCode }] });

class SoqlError extends Error {
  constructor(
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
  }
}

interface Parsed {
  fields: string[];
  type: SfType;
  filter: (r: SfRow) => boolean;
  order: string | null;
  desc: boolean;
}

export async function startFakeSalesforce(data: SalesforceData = seedSalesforce(), opts: { batchSize?: number; version?: string } = {}): Promise<FakeSalesforce> {
  const version = opts.version ?? '62.0';
  const token = '00DDn00000AcmeQAA!AQ0AQFakeSessionToken';
  const batchSize = opts.batchSize ?? 2000;
  let clock = BASE + 86_400_000;
  const queries: string[] = [];
  const locators = new Map<string, { records: unknown[]; offset: number }>();
  let locatorSerial = 0;
  const fake = new VendorFake({
    name: 'Salesforce',
    tokens: [token, 'second-org-user-token'],
    publicPath: (p) => p === '/services/oauth2/token',
    unauthorized: () => sfError(401, 'INVALID_SESSION_ID', 'Session expired or invalid'),
    rateLimited: () => sfError(403, 'REQUEST_LIMIT_EXCEEDED', 'ConcurrentRequests (Concurrent API Requests) Limit exceeded.'),
    serverError: () => ({ json: [{ message: 'An unexpected error occurred. Please include this ErrorId if you contact support: 1234-5678 (-42)', errorCode: 'UNKNOWN_EXCEPTION' }] }),
  });
  /** Moves the clock a minute on and answers the new time as a Salesforce timestamp. */
  const advance = () => {
    clock += 60_000;
    return sfStamp(clock);
  };
  let dailyLimited = 0;
  const route = (method: string, path: string, h: (req: FakeRequest) => FakeReply | Promise<FakeReply>) =>
    fake.route(method, path, async (req) => {
      if (dailyLimited > 0) {
        dailyLimited--;
        return sfError(403, 'REQUEST_LIMIT_EXCEEDED', 'TotalRequests Limit exceeded.');
      }
      const r = await h(req);
      return { ...r, headers: { date: new Date(clock).toUTCString(), ...r.headers } };
    });

  const user = (id: unknown) => data.users.find((u) => u.Id === id);
  const byId = (type: SfType, id: unknown) => data.rows[type].find((r) => r.Id === id);
  const attributes = (type: string, id: string) => ({ type, url: `/services/data/v${version}/sobjects/${type}/${id}` });

  function project(type: SfType, r: SfRow, fields: string[]): Record<string, unknown> {
    const out: Record<string, unknown> = { attributes: attributes(type, r.Id) };
    for (const f of fields) {
      const [rel, sub] = f.split('.');
      if (!sub) {
        out[f] = r[f] ?? null;
        continue;
      }
      const [idField, target] = RELATIONS[rel ?? ''] ?? ['', 'User'];
      const id = r[idField];
      const linked = target === 'User' ? user(id) : byId(target, id);
      if (!linked) {
        // A queue owner has a Name but no user fields here; a missing lookup is null.
        out[rel ?? ''] = typeof id === 'string' && id.startsWith('00G') ? { attributes: attributes('Name', id), Name: 'Support Queue', Email: null } : null;
        continue;
      }
      const prev = (out[rel ?? ''] as Record<string, unknown> | undefined) ?? { attributes: attributes(target, String(linked.Id)) };
      prev[sub] = (linked as Record<string, unknown>)[sub] ?? null;
      out[rel ?? ''] = prev;
    }
    return out;
  }

  function parse(soql: string): Parsed {
    const m = /^SELECT\s+(.+?)\s+FROM\s+(\w+)(?:\s+WHERE\s+(.+?))?(?:\s+ORDER\s+BY\s+(\w+)(?:\s+(ASC|DESC))?)?\s*$/is.exec(soql.trim());
    if (!m) throw new SoqlError('MALFORMED_QUERY', `unexpected token: ${soql.slice(0, 60)}`);
    const type = m[2] as SfType;
    if (!(type in FIELDS) || (type === 'KnowledgeArticleVersion' && !data.knowledgeEnabled)) throw new SoqlError('INVALID_TYPE', `sObject type '${m[2]}' is not supported.`);
    const fields = (m[1] ?? '').split(',').map((f) => f.trim());
    for (const f of fields) {
      const [rel, sub] = f.split('.');
      const ok = sub ? rel !== undefined && rel in RELATIONS && (RELATIONS[rel]?.[1] === 'User' ? USER_FIELDS.includes(sub) : FIELDS[RELATIONS[rel]?.[1] as SfType].includes(sub)) : FIELDS[type].includes(f);
      if (!ok) throw new SoqlError('INVALID_FIELD', `No such column '${f}' on entity '${type}'.`);
    }
    const conds = (m[3] ?? '').split(/\s+AND\s+/i).filter(Boolean).map((c) => condition(type, c.trim()));
    if (type === 'KnowledgeArticleVersion' && !(m[3] ?? '').includes('PublishStatus')) throw new SoqlError('MALFORMED_QUERY', 'Implementation restriction: When querying the KnowledgeArticleVersion object, you must filter using the following syntax: PublishStatus = [status].');
    return { fields, type, filter: (r) => conds.every((c) => c(r)), order: m[4] ?? null, desc: (m[5] ?? '').toUpperCase() === 'DESC' };
  }

  function condition(type: SfType, c: string): (r: SfRow) => boolean {
    let m = /^(\w+)\s*>\s*(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)$/.exec(c);
    if (m) {
      const [, f, v] = m;
      return (r) => at(String(r[f ?? ''])) > Date.parse(v ?? '');
    }
    m = /^(\w+)\s*=\s*'([^']*)'$/.exec(c);
    if (m) return (r) => String(r[m?.[1] ?? '']) === m?.[2];
    m = /^(\w+)\s+IN\s*\(([^)]*)\)$/i.exec(c);
    if (m) {
      const list = (m[2] ?? '').split(',').map((s) => s.trim().replace(/^'|'$/g, ''));
      return (r) => list.includes(String(r[m?.[1] ?? '']));
    }
    throw new SoqlError('MALFORMED_QUERY', `unexpected token in WHERE on ${type}: ${c}`);
  }

  const batch = (records: unknown[], offset: number, locator: string | null) => {
    const page = records.slice(offset, offset + batchSize);
    const more = offset + batchSize < records.length;
    let next: string | undefined;
    if (more) {
      const id = locator ?? `01gDn0000${String(++locatorSerial).padStart(7, '0')}`;
      locators.set(id, { records, offset: offset + batchSize });
      next = `/services/data/v${version}/query/${id}-${offset + batchSize}`;
    }
    return { totalSize: records.length, done: !more, ...(next ? { nextRecordsUrl: next } : {}), records: page };
  };

  route('GET', '/services/oauth2/userinfo', () => ({
    json: { sub: `https://login.salesforce.com/id/${data.orgId}/${data.me.Id}`, user_id: data.me.Id, organization_id: data.orgId, preferred_username: data.me.Email.toLowerCase(), name: data.me.Name, email: data.me.Email.toLowerCase(), email_verified: true, zoneinfo: 'Europe/Berlin', active: true },
  }));
  route('GET', '/services/data/:version/query', (req) => {
    const q = req.query.get('q') ?? '';
    queries.push(q);
    if (req.params.version !== `v${version}`) return sfError(404, 'NOT_FOUND', 'The requested resource does not exist');
    try {
      const p = parse(q);
      const rows = data.rows[p.type].filter(p.filter);
      if (p.order) {
        const key = p.order;
        rows.sort((a, b) => (p.desc ? -1 : 1) * (String(a[key]) < String(b[key]) ? -1 : String(a[key]) > String(b[key]) ? 1 : 0));
      }
      return { json: batch(rows.map((r) => project(p.type, r, p.fields)), 0, null) };
    } catch (err) {
      if (err instanceof SoqlError) return sfError(400, err.errorCode, err.message);
      throw err;
    }
  });
  route('GET', '/services/data/:version/query/:locator', (req) => {
    const [id, offset] = (req.params.locator ?? '').split('-');
    const l = locators.get(id ?? '');
    if (!l || Number(offset) !== l.offset) return sfError(400, 'INVALID_QUERY_LOCATOR', 'invalid query locator');
    return { json: batch(l.records, l.offset, id ?? null) };
  });
  route('GET', '/services/data/:version/sobjects/:type/deleted', (req) => {
    const type = req.params.type as SfType;
    if (!(type in FIELDS)) return sfError(404, 'NOT_FOUND', 'The requested resource does not exist');
    const start = Date.parse(req.query.get('start') ?? '');
    const end = Date.parse(req.query.get('end') ?? '');
    if (Number.isNaN(start) || Number.isNaN(end)) return sfError(400, 'MALFORMED_QUERY', 'start and end are required ISO 8601 dates');
    const minute = (ms: number) => Math.floor(ms / 60_000) * 60_000;
    const from = minute(start);
    const to = minute(end);
    if (from < minute(clock) - 15 * 86_400_000 || to <= from) return sfError(400, 'INVALID_REPLICATION_DATE', 'startDate must be within the last 15 days and before endDate');
    const records = data.deleted.filter((d) => d.type === type && at(d.deletedDate) >= from && at(d.deletedDate) <= to).map((d) => ({ id: d.id, deletedDate: d.deletedDate }));
    return { json: { deletedRecords: records, earliestDateAvailable: sfStamp(BASE), latestDateCovered: sfStamp(to) } };
  });
  let issued = 0;
  fake.route('POST', '/services/oauth2/token', (req) =>
    oauthTokenEndpoint(fake, {
      code: 'salesforce-code',
      issue: () => ({ access_token: `00DDn00000AcmeQAA!oauth-${++issued}`, refresh_token: `5Aep861-refresh-${issued}`, instance_url: fake.url, id: `https://login.salesforce.com/id/${data.orgId}/${data.me.Id}`, issued_at: String(clock), signature: 'c2lnbmF0dXJl' }),
    })(req),
  );

  await fake.start();
  return {
    get url() {
      return fake.url;
    },
    token,
    data,
    fake,
    queries,
    now: () => clock,
    tick: advance,
    dailyLimitNext: (count) => {
      dailyLimited = count;
    },
    add(type, fields) {
      const s = advance();
      const r: SfRow = { Id: sfId(PREFIX[type]), CreatedDate: s, LastModifiedDate: s, SystemModstamp: s, ...fields };
      data.rows[type].push(r);
      return r;
    },
    remove(type, id) {
      const i = data.rows[type].findIndex((r) => r.Id === id);
      if (i < 0) throw new Error(`no ${type} ${id}`);
      data.rows[type].splice(i, 1);
      data.deleted.push({ type, id, deletedDate: advance() });
    },
    close: () => fake.close(),
  };
}
