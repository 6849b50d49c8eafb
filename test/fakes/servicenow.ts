import { type FakeReply, type FakeRequest, VendorFake } from './kit/index.ts';

/**
 * A local ServiceNow fake speaking the Table API of developer.servicenow.com (REST API reference → Table API):
 * `GET /api/now/table/{table}` with `sysparm_query` (encoded query: `field=value`, `field>=value`, `fieldINa,b`,
 * `ORDERBYfield`, `ORDERBYDESCfield`, `^` between terms, and `sys_id=javascript:gs.getUserID()`), `sysparm_fields`,
 * `sysparm_display_value` (`false` raw values, `true` display values, `all` `{display_value, value}` pairs),
 * `sysparm_exclude_reference_link`, `sysparm_limit` / `sysparm_offset`; answers `{result: [...]}` with `X-Total-Count`
 * and a `Link` header (`rel="first"`, `"prev"`, `"next"`, `"last"`) naming the instance host. Tables: `kb_knowledge`,
 * `kb_uc_can_read_mtom`, `kb_uc_cannot_read_mtom`, `incident`, `sys_journal_field`, `sys_audit_delete`, `sys_user`; datetimes are UTC
 * `YYYY-MM-DD HH:mm:ss`. Basic or Bearer auth; errors are `{error: {message, detail}, status: "failure"}`; a 429 carries
 * `Retry-After` and `X-RateLimit-*`. Also `POST /oauth_token.do`.
 */
export type SnRecord = Record<string, string>;
export interface ServicenowData {
  sys_user: SnRecord[];
  kb_knowledge_base: SnRecord[];
  kb_uc_can_read_mtom: SnRecord[];
  kb_uc_cannot_read_mtom: SnRecord[];
  kb_knowledge: SnRecord[];
  incident: SnRecord[];
  sys_journal_field: SnRecord[];
  sys_audit_delete: SnRecord[];
}

export interface FakeServicenow {
  readonly url: string;
  readonly username: string;
  readonly password: string;
  readonly basicToken: string;
  readonly data: ServicenowData;
  readonly fake: VendorFake;
  /** A datetime later than every earlier one. */
  tick(): string;
  /** Deletes a record as ServiceNow does: gone from its table, one row in sys_audit_delete. */
  remove(table: 'incident' | 'kb_knowledge', sysId: string): void;
  close(): Promise<void>;
  /** Tables the integration user may not read (403). */
  readonly forbidden: Set<string>;
}

const INSTANCE = 'https://acme.service-now.com';
const BASE = Date.UTC(2026, 0, 5, 9, 0, 0);
const sn = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
export const sysId = (n: number) => n.toString(16).padStart(32, '0');

export const ADA = sysId(0xa1);
export const GRACE = sysId(0xa2);
export const CARL = sysId(0xc1);
export const KB_IT = sysId(0xb1);
export const KB_HR = sysId(0xb2);

export function seedServicenow(opts: { extraIncidents?: number } = {}): ServicenowData {
  let at = BASE;
  const next = () => {
    at += 60_000;
    return sn(at);
  };
  const sys_user = [
    { sys_id: ADA, user_name: 'atrium.integration', name: 'Ada Admin', email: 'Ada@Acme.TEST' },
    { sys_id: GRACE, user_name: 'grace.agent', name: 'Grace Agent', email: 'grace@acme.test' },
    { sys_id: CARL, user_name: 'carl.caller', name: 'Carl Caller', email: 'carl@acme.test' },
  ];
  const kb_knowledge_base = [
    { sys_id: KB_IT, title: 'IT' },
    { sys_id: KB_HR, title: 'HR' },
  ];
  const kb_uc_can_read_mtom = [{ sys_id: sysId(0xd1), kb_knowledge_base: KB_HR, user_criteria: sysId(0xe1) }];
  const article = (n: number, kb: string, title: string, text: string, extra: SnRecord = {}): SnRecord => {
    const created = next();
    return {
      sys_id: sysId(0x1000 + n),
      number: `KB00100${n}`,
      short_description: title,
      text,
      wiki: '',
      article_type: 'html',
      workflow_state: 'published',
      kb_knowledge_base: kb,
      kb_category: '',
      author: ADA,
      can_read_user_criteria: '',
      cannot_read_user_criteria: '',
      valid_to: '2100-01-01',
      sys_created_on: created,
      sys_updated_on: created,
      ...extra,
    };
  };
  const kb_knowledge = [
    article(1, KB_IT, 'How to reset your password', '<h2>Reset your password</h2><p>Open <strong>Settings</strong> and choose <em>Reset password</em>.</p>'),
    article(2, KB_HR, 'Parental leave policy', '<p>Twelve weeks of paid leave.</p>'),
    article(3, KB_IT, 'VPN for contractors', '<p>Contractors use the separate gateway.</p>', { can_read_user_criteria: `${sysId(0xe2)},${sysId(0xe3)}` }),
    article(4, KB_IT, 'Upcoming laptop refresh', '<p>Draft.</p>', { workflow_state: 'draft' }),
    article(5, KB_IT, 'Badge access for visitors', '<p>Visitors sign in at reception.</p>', { cannot_read_user_criteria: sysId(0xe4) }),
  ];
  const sys_journal_field: SnRecord[] = [];
  const incidentRow = (n: number, title: string, extra: SnRecord = {}, journal: [string, string, string][] = []): SnRecord => {
    const opened = next();
    const id = sysId(0x2000 + n);
    for (const [element, by, value] of journal) sys_journal_field.push({ sys_id: sysId(0x3000 + sys_journal_field.length), name: 'incident', element_id: id, element, value, sys_created_by: by, sys_created_on: next() });
    return {
      sys_id: id,
      number: `INC00100${n}`,
      short_description: title,
      description: '',
      state: '2',
      priority: '3',
      category: 'software',
      caller_id: CARL,
      assigned_to: GRACE,
      assignment_group: '',
      close_notes: '',
      opened_at: opened,
      sys_created_on: opened,
      sys_updated_on: at === BASE ? opened : next(),
      ...extra,
    };
  };
  const incident = [
    incidentRow(1, 'Email not syncing on phone', { description: 'Since this morning my phone shows no new mail.' }, [
      ['comments', 'carl.caller', 'Still broken after a restart.'],
      ['work_notes', 'grace.agent', 'Exchange ActiveSync policy blocks the device; whitelisting.'],
      ['comments', 'grace.agent', 'Please try again now.'],
    ]),
    incidentRow(2, 'Printer on 3rd floor jammed', { state: '7', priority: '4', close_notes: 'Cleared the jam.' }),
  ];
  for (let i = 0; i < (opts.extraIncidents ?? 0); i++) incident.push(incidentRow(10 + i, `Routine request ${i}`, { description: `Routine request number ${i}.` }));
  return { sys_user, kb_knowledge_base, kb_uc_can_read_mtom, kb_uc_cannot_read_mtom: [], kb_knowledge, incident, sys_journal_field, sys_audit_delete: [] };
}

const STATES: Record<string, string> = { '1': 'New', '2': 'In Progress', '3': 'On Hold', '6': 'Resolved', '7': 'Closed', '8': 'Canceled' };
const PRIORITIES: Record<string, string> = { '1': '1 - Critical', '2': '2 - High', '3': '3 - Moderate', '4': '4 - Low', '5': '5 - Planning' };
const failure = (status: number, message: string, detail: string | null): FakeReply => ({ status, json: { error: { message, detail }, status: 'failure' } });

type Term = (r: SnRecord) => boolean;

export async function startFakeServicenow(data: ServicenowData = seedServicenow(), opts: { maxLimit?: number } = {}): Promise<FakeServicenow> {
  const username = 'atrium.integration';
  const password = 'sn-password-0123456789';
  const basicToken = `${username}:${password}`;
  const forbidden = new Set<string>();
  let clock = BASE + 86_400_000;
  let issued = 0;
  const oauthTokens = new Set<string>();
  const fake = new VendorFake({
    name: 'ServiceNow',
    tokens: [basicToken],
    tokenOf: ({ headers }) => {
      const h = headers.authorization ?? '';
      if (h.startsWith('Bearer ')) return h.slice(7);
      if (h.startsWith('Basic ')) return Buffer.from(h.slice(6), 'base64').toString('utf8');
      return null;
    },
    publicPath: (p) => p === '/oauth_token.do',
    unauthorized: () => failure(401, 'User Not Authenticated', 'Required to provide Auth information'),
    rateLimited: () => ({ ...failure(429, 'Rate limit exceeded', 'The rate limit for this user has been reached'), headers: { 'x-ratelimit-limit': '1000', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 1) } }),
    serverError: (status) => failure(status, 'Internal server error', null),
  });
  const userOf = (req: FakeRequest) => (req.token && oauthTokens.has(req.token) ? data.sys_user[0] : data.sys_user.find((u) => u.user_name === req.token?.split(':')[0]));
  const display = (table: string, field: string, value: string): string => {
    if (!value) return '';
    if (['author', 'caller_id', 'assigned_to'].includes(field)) return data.sys_user.find((u) => u.sys_id === value)?.name ?? value;
    if (field === 'kb_knowledge_base') return data.kb_knowledge_base.find((k) => k.sys_id === value)?.title ?? value;
    if (table === 'incident' && field === 'state') return STATES[value] ?? value;
    if (table === 'incident' && field === 'priority') return PRIORITIES[value] ?? value;
    if (table === 'incident' && field === 'category') return value.charAt(0).toUpperCase() + value.slice(1);
    if (field === 'workflow_state') return value.charAt(0).toUpperCase() + value.slice(1);
    return value;
  };
  const parse = (req: FakeRequest, query: string): { terms: Term[]; order: { field: string; desc: boolean }[] } => {
    const terms: Term[] = [];
    const order: { field: string; desc: boolean }[] = [];
    for (const t of query.split('^').filter(Boolean)) {
      const orderBy = /^ORDERBY(DESC)?(\w+)$/.exec(t);
      const cmp = /^(\w+?)(IN|>=|=)(.*)$/.exec(t);
      if (orderBy) order.push({ field: orderBy[2] ?? '', desc: Boolean(orderBy[1]) });
      else if (t === 'sys_id=javascript:gs.getUserID()') {
        const me = userOf(req)?.sys_id;
        terms.push((r) => r.sys_id === me);
      } else if (cmp) {
        const [f, op, v] = [cmp[1] ?? '', cmp[2], cmp[3] ?? ''];
        if (op === 'IN') terms.push((r) => v.split(',').includes(r[f] ?? ''));
        else if (op === '>=') terms.push((r) => (r[f] ?? '') >= v);
        else terms.push((r) => (r[f] ?? '') === v);
      } else throw new Error(`fake cannot evaluate ${t}`);
    }
    return { terms, order };
  };

  fake.route('GET', '/api/now/table/:table', (req) => {
    const table = req.params.table ?? '';
    const rows = (data as unknown as Record<string, SnRecord[] | undefined>)[table];
    if (!rows) return failure(400, 'Invalid table', `Invalid table ${table}`);
    if (forbidden.has(table)) return failure(403, 'User Not Authorized', `Read ACL on ${table} denied`);
    let q: ReturnType<typeof parse>;
    try {
      q = parse(req, req.query.get('sysparm_query') ?? '');
    } catch (err) {
      return failure(400, 'Invalid query', (err as Error).message);
    }
    let list = rows.filter((r) => q.terms.every((t) => t(r)));
    if (q.order.length) list = [...list].sort((a, b) => { for (const o of q.order) { const c = (a[o.field] ?? '').localeCompare(b[o.field] ?? ''); if (c) return o.desc ? -c : c; } return 0; });
    const limit = Math.min(Number(req.query.get('sysparm_limit') ?? 10_000), 10_000, opts.maxLimit ?? 10_000);
    const offset = Number(req.query.get('sysparm_offset') ?? 0);
    const page = list.slice(offset, offset + limit);
    const fields = req.query.get('sysparm_fields')?.split(',').filter(Boolean);
    const mode = req.query.get('sysparm_display_value') ?? 'false';
    const linkless = req.query.get('sysparm_exclude_reference_link') === 'true';
    const result = page.map((r) => {
      const out: Record<string, unknown> = {};
      for (const f of fields ?? Object.keys(r)) {
        const value = r[f] ?? '';
        const shown = display(table, f, value);
        const isRef = ['author', 'caller_id', 'assigned_to', 'kb_knowledge_base'].includes(f) && value;
        if (mode === 'all') out[f] = { display_value: shown, value, ...(isRef && !linkless ? { link: `${INSTANCE}/api/now/table/x/${value}` } : {}) };
        else if (mode === 'true') out[f] = shown;
        else out[f] = isRef && !linkless ? { link: `${INSTANCE}/api/now/table/x/${value}`, value } : value;
      }
      return out;
    });
    const link = (o: number) => {
      const u = new URL(`${INSTANCE}${req.path}`);
      for (const [k, v] of req.query) u.searchParams.set(k, v);
      u.searchParams.set('sysparm_offset', String(o));
      return u.toString();
    };
    const last = Math.max(0, Math.floor((list.length - 1) / limit) * limit);
    const links = [`<${link(0)}>;rel="first"`, ...(offset > 0 ? [`<${link(Math.max(0, offset - limit))}>;rel="prev"`] : []), ...(offset + limit < list.length ? [`<${link(offset + limit)}>;rel="next"`] : []), `<${link(last)}>;rel="last"`];
    return { headers: { 'x-total-count': String(list.length), link: links.join(',') }, json: { result } };
  });
  fake.route('POST', '/oauth_token.do', (req) => {
    const body = (req.body ?? {}) as Record<string, string>;
    if ((body.grant_type === 'authorization_code' && body.code === 'servicenow-code') || (body.grant_type === 'refresh_token' && body.refresh_token)) {
      const access_token = `sn-oauth-${++issued}`;
      oauthTokens.add(access_token);
      fake.allow(access_token);
      return { json: { access_token, refresh_token: `sn-refresh-${issued}`, scope: 'useraccount', token_type: 'Bearer', expires_in: 1799 } };
    }
    return { status: 401, json: { error_description: 'access_denied', error: 'server_error' } };
  });

  await fake.start();
  const tick = () => {
    clock += 60_000;
    return sn(clock);
  };
  return {
    url: fake.url,
    username,
    password,
    basicToken,
    data,
    fake,
    forbidden,
    tick,
    remove(table, id) {
      const rows = data[table];
      const i = rows.findIndex((r) => r.sys_id === id);
      if (i < 0) throw new Error(`no ${table} ${id}`);
      rows.splice(i, 1);
      data.sys_audit_delete.push({ sys_id: sysId(0x9000 + data.sys_audit_delete.length), tablename: table, documentkey: id, sys_created_on: tick() });
    },
    close: () => fake.close(),
  };
}
