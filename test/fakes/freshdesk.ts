import { type FakeReply, type FakeRequest, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local Freshdesk API v2 fake speaking the wire format of developers.freshdesk.com/api: `GET /api/v2/agents/me`,
 * `GET /api/v2/agents`, `GET /api/v2/tickets` (`updated_since`, `order_by`/`order_type`, `page`/`per_page` ≤ 100, pages
 * ≤ 300, `include=requester,description`, `filter=deleted`; without `updated_since` only tickets created in the last
 * 30 days), `GET /api/v2/tickets/{id}/conversations`, the solutions tree (`/api/v2/solutions/categories`,
 * `/categories/{id}/folders`, `/folders/{id}/articles`), pagination by `Link: <…>; rel="next"`, `X-RateLimit-*`
 * headers, `{code, message}` / `{description, errors}` error bodies, and Freshworks OAuth's
 * `POST /org/oauth/v2/token`. API keys arrive as HTTP Basic `<key>:X`, OAuth tokens as Bearer.
 */
export interface FAgent {
  id: number;
  name: string;
  email: string;
}
export interface FConversation {
  id: number;
  user_id: number;
  body_text: string;
  incoming: boolean;
  private: boolean;
  created_at: string;
}
export interface FTicket {
  id: number;
  subject: string;
  description_text: string;
  status: number;
  priority: number;
  source: number;
  type: string | null;
  requester: { id: number; name: string; email: string };
  responder_id: number | null;
  group_id: number | null;
  tags: string[];
  deleted: boolean;
  created_at: string;
  updated_at: string;
  conversations: FConversation[];
}
export interface FFolder {
  id: number;
  name: string;
  visibility: number;
  company_ids?: number[];
  articles: FArticle[];
}
export interface FArticle {
  id: number;
  title: string;
  description: string;
  status: 1 | 2;
  agent_id: number;
  tags: string[];
  created_at: string;
  updated_at: string;
}
export interface FCategory {
  id: number;
  name: string;
  folders: FFolder[];
}
export interface FreshdeskData {
  agents: FAgent[];
  tickets: FTicket[];
  categories: FCategory[];
}

export interface FakeFreshdesk {
  readonly url: string;
  readonly domain: string;
  readonly apiKey: string;
  readonly data: FreshdeskData;
  readonly fake: VendorFake;
  /** Every ticket listing: its query. */
  readonly listings: Record<string, string>[];
  /** A timestamp later than every earlier one and than now (an edit after a sync). */
  tick(): string;
  close(): Promise<void>;
}

const BASE = Date.UTC(2026, 0, 5, 9, 0, 0);
const DOMAIN = 'acme.freshdesk.com';
const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function seedFreshdesk(opts: { extraTickets?: number } = {}): FreshdeskData {
  let at = BASE;
  const next = () => {
    at += 60_000;
    return stamp(at);
  };
  const carl = { id: 2001, name: 'Carl Customer', email: 'Carl@Customer.TEST' };
  const dana = { id: 2002, name: 'Dana Doe', email: 'dana@customer.test' };
  const ticket = (id: number, subject: string, description: string, requester: FTicket['requester'], convs: [number, string, boolean, boolean][], extra: Partial<FTicket> = {}): FTicket => {
    const created = next();
    const conversations = convs.map(([user_id, body_text, incoming, priv], i) => ({ id: id * 100 + i, user_id, body_text, incoming, private: priv, created_at: next() }));
    return {
      id,
      subject,
      description_text: description,
      status: 2,
      priority: 2,
      source: 1,
      type: 'Question',
      requester,
      responder_id: 1002,
      group_id: 50,
      tags: [],
      deleted: false,
      created_at: created,
      updated_at: conversations.at(-1)?.created_at ?? created,
      conversations,
      ...extra,
    };
  };
  const tickets: FTicket[] = [
    ticket(
      11,
      'Two-factor codes never arrive',
      'I enabled two-factor authentication but the SMS codes never arrive.',
      carl,
      [
        [1002, 'Could you confirm the phone number on your profile?', false, false],
        [1002, 'Carrier blocks short codes in this region, route through the fallback provider.', false, true],
        [2001, 'The number is correct, codes now arrive via the fallback. Thanks!', true, false],
      ],
      { priority: 3, type: 'Incident', tags: ['2fa', 'sms'], status: 4 },
    ),
    ticket(12, 'Refund for duplicate charge', 'I was charged twice for the March invoice.', dana, [], { responder_id: null, source: 2 }),
    ticket(13, 'Deleted ticket', 'junk', dana, [], { deleted: true }),
    ticket(15, 'Bulk export is slow', 'Exporting contacts takes an hour.', carl, [[1001, 'We are looking into the export queue.', false, false]], { priority: 1 }),
  ];
  for (let i = 0; i < (opts.extraTickets ?? 0); i++) tickets.push(ticket(100 + i, `Routine request ${i}`, `Routine request number ${i} about invoices.`, dana, []));
  const article = (id: number, title: string, description: string, extra: Partial<FArticle> = {}): FArticle => {
    const created = next();
    return { id, title, description, status: 2, agent_id: 1001, tags: [], created_at: created, updated_at: created, ...extra };
  };
  const categories: FCategory[] = [
    {
      id: 70,
      name: 'Getting started',
      folders: [
        {
          id: 700,
          name: 'Account security',
          visibility: 1,
          articles: [
            article(7001, 'Set up two-factor authentication', '<h2>Enable 2FA</h2><p>Open <strong>Profile</strong> and choose <em>Security</em>.</p><ol><li>Scan the QR code</li><li>Enter the code</li></ol>', { tags: ['2fa'] }),
            article(7003, 'Passkeys (coming soon)', '<p>Draft.</p>', { status: 1 }),
          ],
        },
        { id: 701, name: 'Agent playbooks', visibility: 3, articles: [article(7002, 'Escalating SMS delivery issues', '<p>Route through the fallback provider.</p>')] },
      ],
    },
  ];
  return { agents: [{ id: 1001, name: 'Ada Admin', email: 'Ada@Acme.TEST' }, { id: 1002, name: 'Grace Agent', email: 'grace@acme.test' }], tickets, categories };
}

export async function startFakeFreshdesk(data: FreshdeskData = seedFreshdesk(), opts: { perPageCap?: number } = {}): Promise<FakeFreshdesk> {
  const apiKey = 'fd-api-key-abcdef0123456789';
  const listings: Record<string, string>[] = [];
  let clock = BASE;
  let issued = 0;
  const fake = new VendorFake({
    name: 'Freshdesk',
    tokens: [apiKey],
    tokenOf: ({ headers }) => {
      const h = headers.authorization ?? '';
      if (h.startsWith('Bearer ')) return h.slice(7);
      if (h.startsWith('Basic ')) return Buffer.from(h.slice(6), 'base64').toString('utf8').split(':')[0] ?? null;
      return null;
    },
    publicPath: (p) => p === '/org/oauth/v2/token',
    unauthorized: () => ({ status: 401, json: { code: 'invalid_credentials', message: 'You have to be logged in to perform this action.' } }),
    rateLimited: () => ({ status: 429, headers: { 'x-ratelimit-total': '200', 'x-ratelimit-remaining': '0' }, json: { message: 'You have exceeded the limit of requests per minute' } }),
    serverError: () => ({ json: { code: 'internal_error', message: 'We are facing some issues. Please try again later.' } }),
  });
  const badRequest = (field: string, message: string): FakeReply => ({ status: 400, json: { description: 'Validation failed', errors: [{ field, message, code: 'invalid_value' }] } });
  /** One page of a list with Freshdesk's Link header and rate-limit headers. */
  const paged = <T>(req: FakeRequest, items: readonly T[], map: (x: T) => unknown): FakeReply => {
    const perPage = Math.min(Number(req.query.get('per_page') ?? 30), 100, opts.perPageCap ?? 100);
    const page = Number(req.query.get('page') ?? 1);
    if (!Number.isInteger(page) || page < 1 || page > 300) return badRequest('page', 'It should be a Positive Number less than or equal to 300');
    const slice = items.slice((page - 1) * perPage, page * perPage);
    const headers: Record<string, string> = { 'x-ratelimit-total': '200', 'x-ratelimit-remaining': '199', 'x-ratelimit-used-currentrequest': '1' };
    if (page * perPage < items.length) {
      const u = new URL(`https://${DOMAIN}${req.path}`);
      for (const [k, v] of req.query) u.searchParams.set(k, v);
      u.searchParams.set('page', String(page + 1));
      headers.link = `<${u.toString()}>; rel="next"`;
    }
    return { headers, json: slice.map(map) };
  };
  const agentJson = (a: FAgent) => ({ id: a.id, available: true, occasional: false, contact: { name: a.name, email: a.email, active: true }, created_at: stamp(BASE), updated_at: stamp(BASE) });
  const ticketJson = (req: FakeRequest) => (t: FTicket) => {
    const include = (req.query.get('include') ?? '').split(',');
    const { conversations: _c, requester, description_text, deleted: _d, ...rest } = t;
    return {
      ...rest,
      requester_id: requester.id,
      company_id: null,
      due_by: t.updated_at,
      fr_escalated: false,
      spam: false,
      is_escalated: false,
      ...(include.includes('description') ? { description_text, description: `<div>${description_text}</div>` } : {}),
      ...(include.includes('requester') ? { requester: { ...requester, mobile: null, phone: null } } : {}),
    };
  };

  fake.route('GET', '/api/v2/agents/me', (req) => {
    const a = data.agents[0];
    return req.token === apiKey || req.token?.startsWith('fw-oauth-') ? { json: a ? agentJson(a) : {} } : { status: 401, json: { code: 'invalid_credentials', message: 'You have to be logged in to perform this action.' } };
  });
  fake.route('GET', '/api/v2/agents', (req) => paged(req, data.agents, agentJson));

  fake.route('GET', '/api/v2/tickets', (req) => {
    listings.push(Object.fromEntries(req.query));
    if (req.query.get('filter') === 'deleted') return paged(req, data.tickets.filter((t) => t.deleted).sort((a, b) => b.created_at.localeCompare(a.created_at)), ticketJson(req));
    if (req.query.get('filter')) return badRequest('filter', 'It should be one of these values: new_and_my_open,watching,spam,deleted');
    const since = req.query.get('updated_since');
    if (since !== null && Number.isNaN(Date.parse(since))) return badRequest('updated_since', 'It should be in the \'valid date\' format');
    // Without updated_since Freshdesk lists only tickets created in the last 30 days.
    const from = since !== null ? Date.parse(since) : Date.now() - 30 * 86_400_000;
    const key = since !== null ? 'updated_at' : 'created_at';
    const asc = req.query.get('order_type') === 'asc';
    const orderBy = (req.query.get('order_by') ?? 'created_at') as 'updated_at' | 'created_at';
    const live = data.tickets
      .filter((t) => !t.deleted && Date.parse(t[key]) >= from)
      .sort((a, b) => (asc ? 1 : -1) * (a[orderBy].localeCompare(b[orderBy]) || a.id - b.id));
    return paged(req, live, ticketJson(req));
  });

  fake.route('GET', '/api/v2/tickets/:id/conversations', (req) => {
    const t = data.tickets.find((x) => String(x.id) === req.params.id);
    if (!t || t.deleted) return { status: 404, json: { code: 'access_denied', message: 'Record not found' } };
    return paged(req, t.conversations, (c) => ({
      ...c,
      body: `<div>${c.body_text}</div>`,
      source: c.private ? 2 : 0,
      ticket_id: t.id,
      from_email: c.incoming ? t.requester.email : 'support@acme.freshdesk.com',
      to_emails: [],
      attachments: [],
      updated_at: c.created_at,
    }));
  });

  fake.route('GET', '/api/v2/solutions/categories', (req) => paged(req, data.categories, (c) => ({ id: c.id, name: c.name, description: null, visible_in_portals: [1], created_at: stamp(BASE), updated_at: stamp(BASE) })));
  fake.route('GET', '/api/v2/solutions/categories/:id/folders', (req) => {
    const c = data.categories.find((x) => String(x.id) === req.params.id);
    if (!c) return { status: 404, json: { code: 'access_denied', message: 'Record not found' } };
    return paged(req, c.folders, (f) => ({ id: f.id, name: f.name, description: null, visibility: f.visibility, ...(f.company_ids ? { company_ids: f.company_ids } : {}), created_at: stamp(BASE), updated_at: stamp(BASE) }));
  });
  fake.route('GET', '/api/v2/solutions/folders/:id/articles', (req) => {
    const found = data.categories.flatMap((c) => c.folders.map((f) => ({ c, f }))).find((x) => String(x.f.id) === req.params.id);
    if (!found) return { status: 404, json: { code: 'access_denied', message: 'Record not found' } };
    return paged(req, found.f.articles, (a) => ({
      ...a,
      description_text: a.description.replace(/<[^>]+>/g, ' '),
      type: 1,
      category_id: found.c.id,
      folder_id: found.f.id,
      hits: 0,
      thumbs_up: 0,
      thumbs_down: 0,
      seo_data: {},
    }));
  });

  fake.route(
    'POST',
    '/org/oauth/v2/token',
    oauthTokenEndpoint(fake, {
      code: 'freshworks-code',
      issue: () => ({ access_token: `fw-oauth-${++issued}`, refresh_token: `fw-refresh-${issued}`, expires_in: 1799 }),
    }),
  );

  await fake.start();
  return {
    url: fake.url,
    domain: DOMAIN,
    apiKey,
    data,
    fake,
    listings,
    tick: () => {
      clock = Math.max(clock, Date.now()) + 60_000;
      return stamp(clock);
    },
    close: () => fake.close(),
  };
}
