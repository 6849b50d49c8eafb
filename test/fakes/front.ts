import { cursorPage, type FakeReply, type FakeRequest, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local Front fake speaking the Core API wire format of dev.frontapp.com/reference: `GET /me` (the company),
 * `GET /inboxes`, `GET /inboxes/{id}/teammates`, `GET /conversations` (most recently updated first), the search
 * `GET /conversations/search/{query}` (filters `after:<unix>`, `inbox:<id>`; `_total`), `GET /conversations/{id}/messages`
 * (`sort_by=created_at`, `sort_order`), `.../comments`, `.../inboxes`, and `POST /oauth/token`. Lists answer
 * `{_links, _results, _pagination: {next}}` with `limit` (max 100) and an opaque `page_token` in the next link; timestamps
 * are Unix seconds with decimals; errors are `{_error: {status, title, message}}`; Bearer tokens; a 429 carries
 * Retry-After and the X-RateLimit-* headers.
 */
export interface FTeammate {
  id: string;
  email: string;
  username: string;
  first_name: string;
  last_name: string;
}
export interface FInbox {
  id: string;
  name: string;
  is_private: boolean;
  teammates: string[];
}
export interface FMessage {
  id: string;
  created_at: number;
  /** A teammate id (outbound) or a customer handle (inbound). */
  from: string;
  from_name?: string;
  text: string;
  draft?: boolean;
  attachments?: string[];
}
export interface FComment {
  id: string;
  author: string;
  body: string;
  posted_at: number;
}
export interface FConversation {
  id: string;
  subject: string;
  status: 'assigned' | 'unassigned' | 'archived' | 'deleted';
  assignee: string | null;
  tags: string[];
  inboxes: string[];
  created_at: number;
  updated_at: number;
  messages: FMessage[];
  comments: FComment[];
}
export interface FrontData {
  teammates: FTeammate[];
  inboxes: FInbox[];
  conversations: FConversation[];
}

export interface FakeFront {
  readonly url: string;
  readonly token: string;
  readonly data: FrontData;
  readonly fake: VendorFake;
  /** A Unix time later than every earlier one (for edits after a sync). */
  tick(): number;
  close(): Promise<void>;
}

const BASE = Date.UTC(2026, 0, 5, 9, 0, 0) / 1000;
const COMPANY_API = 'https://acme.api.frontapp.com';

export function seedFront(opts: { extraConversations?: number } = {}): FrontData {
  let at = BASE;
  const next = () => {
    at += 60.125;
    return at;
  };
  const teammates: FTeammate[] = [
    { id: 'tea_1', email: 'Ada@Acme.TEST', username: 'ada', first_name: 'Ada', last_name: 'Admin' },
    { id: 'tea_2', email: 'grace@acme.test', username: 'grace', first_name: 'Grace', last_name: 'Agent' },
  ];
  const inboxes: FInbox[] = [
    { id: 'inb_sup', name: 'Support', is_private: false, teammates: ['tea_1', 'tea_2'] },
    { id: 'inb_bil', name: 'Billing', is_private: false, teammates: ['tea_1'] },
  ];
  const conversation = (
    id: string,
    subject: string,
    inbox: string,
    messages: [string, string, string?][],
    comments: [string, string][] = [],
    extra: Partial<FConversation> = {},
  ): FConversation => {
    const created = next();
    const ms = messages.map(([from, text, name], i) => ({ id: `msg_${id}_${i}`, created_at: next(), from, ...(name ? { from_name: name } : {}), text }));
    const cs = comments.map(([author, body], i) => ({ id: `com_${id}_${i}`, author, body, posted_at: next() }));
    const last = Math.max(created, ...ms.map((m) => m.created_at), ...cs.map((c) => c.posted_at));
    return { id, subject, status: 'assigned', assignee: 'tea_2', tags: [], inboxes: [inbox], created_at: created, updated_at: last, messages: ms, comments: cs, ...extra };
  };
  const conversations: FConversation[] = [
    conversation(
      'cnv_101',
      'Cannot log in after password reset',
      'inb_sup',
      [
        ['carl@customer.test', 'After resetting my password the login page keeps spinning.', 'Carl Customer'],
        ['tea_2', 'Could you clear the browser cookies and try again?'],
        ['carl@customer.test', 'Clearing cookies fixed it, thank you!', 'Carl Customer'],
      ],
      [['tea_2', 'Customer is on the legacy SSO tenant, escalate to identity team.']],
      { tags: ['login', 'sso'] },
    ),
    conversation('cnv_102', 'Invoice shows the wrong VAT rate', 'inb_bil', [['dana@customer.test', 'My January invoice charges 21% VAT instead of 19%.', 'Dana Doe']], [], { status: 'unassigned', assignee: null }),
    conversation('cnv_103', 'Spam', 'inb_sup', [['spam@spam.test', 'buy now']], [], { status: 'deleted' }),
    conversation('cnv_104', 'Export to CSV times out', 'inb_sup', [['carl@customer.test', 'Exporting 50k rows to CSV times out after 30 seconds.'], ['tea_1', 'Known issue, fixed in the next release.']], [], { status: 'archived' }),
  ];
  for (let i = 0; i < (opts.extraConversations ?? 0); i++) {
    conversations.push(conversation(`cnv_2${String(i).padStart(2, '0')}`, `Routine question ${i}`, 'inb_sup', [['dana@customer.test', `Routine question number ${i} about billing cycles.`]]));
  }
  return { teammates, inboxes, conversations };
}

const error = (status: number, title: string, message: string): FakeReply => ({ status, json: { _error: { status, title, message } } });

export async function startFakeFront(data: FrontData = seedFront(), opts: { page?: number; messagePage?: number } = {}): Promise<FakeFront> {
  const token = 'front-api-token-0123456789';
  let clock = BASE + 86_400;
  let issued = 0;
  const fake = new VendorFake({
    name: 'Front',
    tokens: [token],
    publicPath: (p) => p === '/oauth/token',
    unauthorized: () => error(401, 'Unauthorized', 'Invalid token'),
    rateLimited: () => ({
      ...error(429, 'Too Many Requests', 'Rate limit exceeded. Please retry in 1 second.'),
      headers: { 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 1) },
    }),
    serverError: (status) => error(status, 'Internal Server Error', 'Something went wrong'),
  });
  const teammate = (id: string) => {
    const t = data.teammates.find((x) => x.id === id);
    return t ? { _links: { self: `${COMPANY_API}/teammates/${t.id}` }, ...t, is_admin: t.id === 'tea_1', is_available: true, is_blocked: false, type: 'user', license_type: 'regular', custom_fields: {} } : null;
  };
  const inboxJson = (i: FInbox) => ({ _links: { self: `${COMPANY_API}/inboxes/${i.id}` }, id: i.id, name: i.name, is_private: i.is_private, is_public: !i.is_private, custom_fields: {} });
  const conversationJson = (c: FConversation) => ({
    _links: { self: `${COMPANY_API}/conversations/${c.id}` },
    id: c.id,
    subject: c.subject,
    status: c.status,
    ticket_ids: [],
    assignee: c.assignee ? teammate(c.assignee) : null,
    recipient: c.messages[0] && !c.messages[0].from.startsWith('tea_') ? { _links: { related: { contact: null } }, name: c.messages[0].from_name ?? null, handle: c.messages[0].from, role: 'from' } : null,
    tags: c.tags.map((name, i) => ({ id: `tag_${i}`, name })),
    links: [],
    custom_fields: {},
    created_at: c.created_at,
    updated_at: c.updated_at,
    is_private: false,
    scheduled_reminders: [],
    metadata: {},
  });
  /** One list page: `_results`, and `_pagination.next` carrying the request's parameters with a page_token. */
  const list = <T>(req: FakeRequest, items: readonly T[], max = 100, extra: Record<string, unknown> = {}): FakeReply => {
    const limit = Math.min(Number(req.query.get('limit') ?? max), max);
    const page = cursorPage(items, req.query.get('page_token'), limit);
    const nextUrl = new URL(`${COMPANY_API}${req.path}`);
    for (const [k, v] of req.query) if (k !== 'page_token') nextUrl.searchParams.set(k, v);
    if (page.next) nextUrl.searchParams.set('page_token', page.next);
    return { json: { _pagination: { next: page.next ? nextUrl.toString() : null }, _links: { self: `${COMPANY_API}${req.path}` }, ...extra, _results: page.items } };
  };
  const conversationOf = (req: FakeRequest): FConversation | FakeReply => {
    const c = data.conversations.find((x) => x.id === req.params.id);
    return c ?? error(404, 'Not found', `Unknown conversation ${req.params.id}`);
  };
  const byActivity = () => [...data.conversations].sort((a, b) => b.updated_at - a.updated_at);

  fake.route('GET', '/me', () => ({ json: { _links: { self: `${COMPANY_API}/me` }, id: 'cmp_acme', name: 'Acme Inc' } }));
  fake.route('GET', '/inboxes', (req) => list(req, data.inboxes.map(inboxJson)));
  fake.route('GET', '/inboxes/:id/teammates', (req) => {
    const i = data.inboxes.find((x) => x.id === req.params.id);
    if (!i) return error(404, 'Not found', 'Unknown inbox');
    return { json: { _links: { self: `${COMPANY_API}${req.path}` }, _results: i.teammates.map(teammate).filter(Boolean) } };
  });
  fake.route('GET', '/conversations', (req) => list(req, byActivity().map(conversationJson), opts.page ?? 100));
  fake.route('GET', '/conversations/search/:query', (req) => {
    let hits = byActivity();
    for (const term of req.params.query?.split(/\s+/).filter(Boolean) ?? []) {
      const [name, value = ''] = term.split(':');
      if (name === 'after') hits = hits.filter((c) => c.updated_at > Number(value));
      else if (name === 'before') hits = hits.filter((c) => c.updated_at < Number(value));
      else if (name === 'inbox') hits = hits.filter((c) => c.inboxes.includes(value));
      else return error(400, 'Bad request', `Unsupported search term ${term}`);
    }
    return list(req, hits.map(conversationJson), opts.page ?? 100, { _total: hits.length });
  });
  fake.route('GET', '/conversations/:id/messages', (req) => {
    const c = conversationOf(req);
    if (!('messages' in c)) return c;
    const asc = req.query.get('sort_order') === 'asc';
    const sorted = [...c.messages].sort((a, b) => (asc ? a.created_at - b.created_at : b.created_at - a.created_at));
    return list(
      req,
      sorted.map((m) => {
        const fromTeammate = m.from.startsWith('tea_');
        return {
          _links: { self: `${COMPANY_API}/messages/${m.id}` },
          id: m.id,
          type: 'email',
          is_inbound: !fromTeammate,
          draft_mode: m.draft ? 'shared' : null,
          created_at: m.created_at,
          subject: c.subject,
          blurb: m.text.slice(0, 40),
          author: fromTeammate ? teammate(m.from) : null,
          recipients: fromTeammate ? [] : [{ _links: { related: { contact: null } }, name: m.from_name ?? null, handle: m.from, role: 'from' }],
          body: `<div><p>${m.text}</p></div>`,
          text: m.text,
          attachments: (m.attachments ?? []).map((filename) => ({ filename, url: `${COMPANY_API}/download/fil_1`, content_type: 'application/pdf', size: 10 })),
          metadata: {},
        };
      }),
      opts.messagePage ?? 100,
    );
  });
  fake.route('GET', '/conversations/:id/comments', (req) => {
    const c = conversationOf(req);
    if (!('comments' in c)) return c;
    // Newest first, as Front lists them.
    const results = [...c.comments]
      .sort((a, b) => b.posted_at - a.posted_at)
      .map((k) => ({ _links: { self: `${COMPANY_API}/comments/${k.id}` }, id: k.id, author: teammate(k.author), body: k.body, posted_at: k.posted_at, attachments: [], is_pinned: false }));
    return { json: { _links: { self: `${COMPANY_API}${req.path}` }, _results: results } };
  });
  fake.route('GET', '/conversations/:id/inboxes', (req) => {
    const c = conversationOf(req);
    if (!('inboxes' in c)) return c;
    return { json: { _links: { self: `${COMPANY_API}${req.path}` }, _results: data.inboxes.filter((i) => c.inboxes.includes(i.id)).map(inboxJson) } };
  });
  fake.route(
    'POST',
    '/oauth/token',
    oauthTokenEndpoint(fake, {
      code: 'front-code',
      issue: () => ({ access_token: `front-oauth-${++issued}`, refresh_token: `front-refresh-${issued}`, expires_in: 3600 }),
    }),
  );

  await fake.start();
  return {
    url: fake.url,
    token,
    data,
    fake,
    tick: () => {
      clock += 60.5;
      return clock;
    },
    close: () => fake.close(),
  };
}
