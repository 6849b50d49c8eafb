import { type FakeReply, type FakeRequest, oauthTokenEndpoint, VendorFake, cursorPage } from './kit/index.ts';

/**
 * A local Intercom REST API (2.x) fake, speaking the wire format of developers.intercom.com/docs/references/rest-api:
 * `GET /me` (admin with its `app`), `GET /articles` (`page`/`per_page`, most recently updated first, `pages`
 * {page, per_page, total_pages}), `POST /conversations/search` (`query` {field, operator, value} or nested AND/OR,
 * `pagination` {per_page, starting_after} → `pages.next.starting_after`; results without parts),
 * `GET /conversations/{id}` (with `conversation_parts`), `GET /contacts/{id}`, `POST /auth/eagle/token`. Unix-second
 * timestamps, `{type: "error.list", errors: [{code, message}]}` error bodies, `X-RateLimit-*` headers on 429.
 */
export interface ICAuthor {
  type: 'admin' | 'user' | 'lead' | 'bot' | 'team';
  id: string;
  /** Intercom leaves the name out of some author objects (contacts without one set at the time). */
  name?: string;
  email?: string;
}
export interface ICPart {
  id: string;
  part_type: string;
  body: string | null;
  created_at: number;
  author: ICAuthor;
}
export interface ICConversation {
  id: string;
  title: string | null;
  created_at: number;
  updated_at: number;
  state: 'open' | 'closed' | 'snoozed';
  source: { type: string; delivered_as: string; subject: string; body: string; author: ICAuthor };
  contactIds: string[];
  parts: ICPart[];
  tags: string[];
}
export interface ICArticle {
  id: string;
  title: string;
  description: string;
  body: string;
  author_id: number;
  state: 'published' | 'draft';
  created_at: number;
  updated_at: number;
}
export interface ICContact {
  id: string;
  role: 'user' | 'lead';
  name: string | null;
  email: string | null;
}
export interface IntercomData {
  me: { id: string; name: string; email: string; app: { id_code: string; name: string; region: string } };
  admins: ICAuthor[];
  contacts: ICContact[];
  conversations: ICConversation[];
  articles: ICArticle[];
}

export interface FakeIntercom {
  readonly url: string;
  readonly token: string;
  readonly data: IntercomData;
  readonly fake: VendorFake;
  /** The `Intercom-Version` header of every routed request (undefined when missing). */
  readonly versions: (string | undefined)[];
  /** Every conversation search: its query and pagination. */
  readonly searches: { query: unknown; per_page: number; starting_after: string | null }[];
  /** A Unix time later than every earlier one (for edits after a sync). */
  tick(): number;
  close(): Promise<void>;
}

export const BASE = Math.floor(Date.UTC(2026, 0, 5, 9, 0, 0) / 1000);

/** A deterministic workspace: admins, contacts (one without a name in author objects), conversations with parts, articles. */
export function seedIntercom(opts: { conversations?: number } = {}): IntercomData {
  const n = opts.conversations ?? 6;
  const admins: ICAuthor[] = [
    { type: 'admin', id: '991267401', name: 'Ada Support', email: 'Ada@Acme.test' },
    { type: 'admin', id: '991267402', name: 'Grace Ops', email: 'grace@acme.test' },
  ];
  const contacts: ICContact[] = [
    { id: '6762f0a81bb69f9f2193bb01', role: 'user', name: 'Alan Customer', email: 'alan@customer.test' },
    { id: '6762f0a81bb69f9f2193bb02', role: 'lead', name: 'Linus Lead', email: null },
    { id: '6762f0a81bb69f9f2193bb03', role: 'user', name: 'Mary Hidden', email: 'mary@customer.test' },
  ];
  const topics = ['password reset email never arrives', 'invoice shows the wrong VAT', 'SSO login loops back', 'export to CSV is empty', 'mobile app crashes on start', 'webhook retries flood us'];
  let clock = 0;
  const at = () => BASE + clock++ * 60;
  const conversations: ConversationSeed[] = [];
  for (let i = 0; i < n; i++) {
    const k = contacts[i % contacts.length] as ICContact;
    const admin = admins[i % admins.length] as ICAuthor;
    const created = at();
    // The third contact's author objects carry no name: the connector looks it up with GET /contacts/{id}.
    const who: ICAuthor = { type: k.role, id: k.id, ...(i % 3 === 2 ? {} : { name: k.name ?? undefined }), ...(k.email ? { email: k.email } : {}) };
    const topic = topics[i % topics.length] ?? 'misc';
    const c: ConversationSeed = {
      id: String(1000 + i),
      title: i % 2 === 0 ? null : `Ticket: ${topic}`,
      created_at: created,
      updated_at: created,
      state: i % 3 === 0 ? 'closed' : 'open',
      source: { type: 'conversation', delivered_as: 'customer_initiated', subject: '', body: `<p>Hi, my <b>${topic}</b>.</p><p>Can you help?</p>`, author: who },
      contactIds: [k.id],
      parts: [],
      tags: i % 2 === 0 ? ['billing'] : [],
    };
    let partId = 50000 + i * 10;
    const part = (part_type: string, body: string | null, author: ICAuthor) => {
      const t = at();
      c.parts.push({ id: String(partId++), part_type, body, created_at: t, author });
      c.updated_at = t;
    };
    part('assignment', null, admin);
    part('comment', `<p>Thanks for reaching out about the ${topic}. Could you send a screenshot?</p>`, admin);
    part('comment', '<p>Sure, attached.</p>', who);
    if (i === 0) part('note', '<p>Internal: customer is on the <i>Enterprise</i> plan.</p>', admins[1] as ICAuthor);
    part('close', i % 3 === 0 ? '<p>Fixed in release 4.2, closing.</p>' : null, admin);
    conversations.push(c);
  }
  const articles: ICArticle[] = [
    { id: '7001', title: 'Resetting your password', description: 'How to get a new password', body: '<h2>Steps</h2><ol><li>Open <a href="https://acme.test/reset">the reset page</a></li><li>Enter your email</li></ol>', author_id: 991267401, state: 'published', created_at: at(), updated_at: 0 },
    { id: '7002', title: 'Understanding VAT on invoices', description: 'VAT rules by country', body: '<p>We charge VAT according to your billing country.</p>', author_id: 991267402, state: 'published', created_at: at(), updated_at: 0 },
    { id: '7003', title: 'Setting up SAML SSO', description: '', body: '<p>Use the metadata URL from <code>Settings → Security</code>.</p>', author_id: 991267401, state: 'published', created_at: at(), updated_at: 0 },
    { id: '7004', title: 'Unreleased: new billing portal', description: 'Draft', body: '<p>Coming soon.</p>', author_id: 991267402, state: 'draft', created_at: at(), updated_at: 0 },
  ];
  for (const a of articles) a.updated_at = a.created_at;
  return {
    me: { id: '991267401', name: 'Ada Support', email: 'ada@acme.test', app: { id_code: 'abc12def', name: 'Acme Support', region: 'US' } },
    admins,
    contacts,
    conversations,
    articles,
  };
}
type ConversationSeed = ICConversation;

class QueryError extends Error {}

type Query = { field?: string; operator: string; value: unknown };

function evaluate(q: Query, c: ICConversation): boolean {
  if (q.operator === 'AND' || q.operator === 'OR') {
    if (!Array.isArray(q.value)) throw new QueryError('AND/OR takes an array of queries');
    const parts = (q.value as Query[]).map((v) => evaluate(v, c));
    return q.operator === 'AND' ? parts.every(Boolean) : parts.some(Boolean);
  }
  const value = q.field === 'updated_at' ? c.updated_at : q.field === 'created_at' ? c.created_at : q.field === 'id' ? c.id : q.field === 'state' ? c.state : undefined;
  if (value === undefined) throw new QueryError(`the fake cannot search the field ${String(q.field)}`);
  if ((q.field === 'updated_at' || q.field === 'created_at') && typeof q.value !== 'number') throw new QueryError(`${q.field} takes a Unix timestamp`);
  switch (q.operator) {
    case '>':
      return (value as number) > (q.value as number);
    case '<':
      return (value as number) < (q.value as number);
    case '=':
      return value === q.value;
    case '!=':
      return value !== q.value;
    default:
      throw new QueryError(`operator ${q.operator} is not supported`);
  }
}

const errorList = (status: number, code: string, message: string): FakeReply => ({ status, json: { type: 'error.list', request_id: '000on04ad8tpt9tq6rfg', errors: [{ code, message }] } });

export async function startFakeIntercom(data: IntercomData = seedIntercom(), opts: { searchPage?: number } = {}): Promise<FakeIntercom> {
  const token = 'dG9rOjE2NzgxYjQ5X2ZmNjFfNGQ4ZF9hOTQ0XzlkNDVlY2YxZjE5YjoxOjA=';
  const searches: FakeIntercom['searches'] = [];
  const versions: FakeIntercom['versions'] = [];
  let clock = BASE + 100_000;
  const fake = new VendorFake({
    name: 'Intercom',
    // A second workspace's token keeps the token check on after the first is revoked.
    tokens: [token, 'dG9rOm90aGVyLXdvcmtzcGFjZQ=='],
    publicPath: (path) => path === '/auth/eagle/token',
    unauthorized: () => errorList(401, 'unauthorized', 'Access Token Invalid'),
    rateLimited: () => ({
      status: 429,
      headers: { 'x-ratelimit-limit': '167', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 1) },
      json: { type: 'error.list', request_id: '000on04ad8tpt9tq6rfh', errors: [{ code: 'rate_limit_exceeded', message: 'Exceeded rate limit of 167 in 10_seconds' }] },
    }),
    serverError: (status) => ({ json: { type: 'error.list', request_id: '000on04ad8tpt9tq6rfi', errors: [{ code: 'server_error', message: `Server Error (${status})` }] } }),
  });

  const authorJson = (a: ICAuthor) => ({ type: a.type, id: a.id, ...(a.name !== undefined ? { name: a.name } : {}), email: a.email ?? '' });
  const conversationJson = (c: ICConversation, withParts: boolean) => ({
    type: 'conversation',
    id: c.id,
    title: c.title,
    created_at: c.created_at,
    updated_at: c.updated_at,
    waiting_since: null,
    snoozed_until: null,
    open: c.state !== 'closed',
    state: c.state,
    read: true,
    priority: 'not_priority',
    admin_assignee_id: Number(data.admins[0]?.id),
    team_assignee_id: null,
    tags: { type: 'tag.list', tags: c.tags.map((name, i) => ({ type: 'tag', id: String(i + 1), name })) },
    source: { type: c.source.type, id: `src-${c.id}`, delivered_as: c.source.delivered_as, subject: c.source.subject, body: c.source.body, author: authorJson(c.source.author), attachments: [], url: null, redacted: false },
    contacts: { type: 'contact.list', contacts: c.contactIds.map((id) => ({ type: 'contact', id, external_id: null })) },
    teammates: { type: 'admin.list', admins: [] },
    ...(withParts
      ? {
          conversation_parts: {
            type: 'conversation_part.list',
            conversation_parts: c.parts.map((p) => ({ type: 'conversation_part', id: p.id, part_type: p.part_type, body: p.body, created_at: p.created_at, updated_at: p.created_at, notified_at: p.created_at, assigned_to: null, author: authorJson(p.author), attachments: [], external_id: null, redacted: false })),
            total_count: c.parts.length,
          },
        }
      : {}),
  });
  const articleJson = (a: ICArticle) => ({
    type: 'article',
    id: a.id,
    workspace_id: data.me.app.id_code,
    title: a.title,
    description: a.description,
    body: a.body,
    author_id: a.author_id,
    state: a.state,
    created_at: a.created_at,
    updated_at: a.updated_at,
    url: a.state === 'published' ? `https://help.acme.test/en/articles/${a.id}-${a.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}` : null,
    parent_id: 145,
    parent_type: 'collection',
    default_locale: 'en',
  });

  const route = (method: string, path: string, handler: (req: FakeRequest) => FakeReply) =>
    fake.route(method, path, (req) => {
      const v = req.headers['intercom-version'];
      versions.push(Array.isArray(v) ? v[0] : v);
      return handler(req);
    });
  route('GET', '/me', () => ({ json: { type: 'admin', id: data.me.id, email: data.me.email, name: data.me.name, email_verified: true, app: { type: 'app', id_code: data.me.app.id_code, name: data.me.app.name, region: data.me.app.region, timezone: 'Europe/Dublin', created_at: BASE - 86_400 * 365, identity_verification: false }, avatar: { type: 'avatar', image_url: null }, has_inbox_seat: true } }));
  route('GET', '/articles', (req) => {
    const page = Math.max(1, Number(req.query.get('page') ?? 1));
    const perPage = Math.min(250, Math.max(1, Number(req.query.get('per_page') ?? 25)));
    const sorted = [...data.articles].sort((a, b) => b.updated_at - a.updated_at || Number(b.id) - Number(a.id));
    const items = sorted.slice((page - 1) * perPage, page * perPage);
    const totalPages = Math.max(1, Math.ceil(sorted.length / perPage));
    return { json: { type: 'list', pages: { type: 'pages', page, per_page: perPage, total_pages: totalPages, ...(page < totalPages ? { next: `https://api.intercom.io/articles?page=${page + 1}&per_page=${perPage}` } : {}) }, total_count: sorted.length, data: items.map(articleJson) } };
  });
  route('POST', '/conversations/search', (req: FakeRequest) => {
    const body = (req.body ?? {}) as { query?: Query; pagination?: { per_page?: number; starting_after?: string | null } };
    if (!body.query) return errorList(400, 'parameter_not_found', 'query parameter is required');
    const perPage = Math.min(opts.searchPage ?? 150, Math.max(1, body.pagination?.per_page ?? 20));
    searches.push({ query: body.query, per_page: perPage, starting_after: body.pagination?.starting_after ?? null });
    try {
      const hits = data.conversations.filter((c) => evaluate(body.query as Query, c)).sort((a, b) => Number(a.id) - Number(b.id));
      const page = cursorPage(hits, body.pagination?.starting_after ?? null, perPage);
      const totalPages = Math.max(1, Math.ceil(hits.length / perPage));
      return {
        json: {
          type: 'conversation.list',
          pages: { type: 'pages', page: 1, per_page: perPage, total_pages: totalPages, ...(page.next ? { next: { page: 2, starting_after: page.next } } : {}) },
          total_count: hits.length,
          conversations: page.items.map((c) => conversationJson(c, false)),
        },
      };
    } catch (err) {
      if (err instanceof QueryError) return errorList(400, 'invalid_field', err.message);
      throw err;
    }
  });
  route('GET', '/conversations/:id', (req) => {
    const c = data.conversations.find((x) => x.id === req.params.id);
    return c ? { json: conversationJson(c, true) } : errorList(404, 'not_found', 'Resource Not Found');
  });
  route('GET', '/contacts/:id', (req) => {
    const k = data.contacts.find((x) => x.id === req.params.id);
    if (!k) return errorList(404, 'not_found', 'User Not Found');
    return { json: { type: 'contact', id: k.id, workspace_id: data.me.app.id_code, external_id: null, role: k.role, email: k.email, name: k.name, created_at: BASE - 86_400, updated_at: BASE } };
  });
  let issued = 0;
  fake.route('POST', '/auth/eagle/token', oauthTokenEndpoint(fake, { code: 'intercom-code', issue: () => ({ access_token: `ic-oauth-${++issued}`, token: `ic-oauth-${issued}` }) }));

  await fake.start();
  return {
    get url() {
      return fake.url;
    },
    token,
    data,
    fake,
    versions,
    searches,
    tick: () => {
      clock += 60;
      return clock;
    },
    close: () => fake.close(),
  };
}
