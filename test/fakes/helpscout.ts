import { type FakeReply, type FakeRequest, VendorFake } from './kit/index.ts';

/**
 * A local Help Scout fake for both APIs it documents at developer.helpscout.com. Mailbox API 2.0 (HAL+JSON):
 * `POST /v2/oauth2/token` (client_credentials and authorization_code grants), `GET /v2/users/me`, `GET /v2/mailboxes`,
 * `GET /v2/users?mailbox=`, `GET /v2/conversations` (`status` — default active only, `all` for every status —,
 * `mailbox`, `modifiedSince`, `sortField`/`sortOrder`, `embed=threads`, `page`; 25 a page; `{_embedded: {conversations},
 * page: {size, totalElements, totalPages, number}, _links: {next}}`), Bearer tokens, vnd.error bodies, and a 429 that
 * names its wait in `X-RateLimit-Retry-After`. Docs API v1 (plain JSON, HTTP Basic `key:X`): `GET /v1/collections`,
 * `GET /v1/collections/{id}/articles` (`status`, `sort`, `order`, `pageSize`, `page`; ArticleRef objects) and
 * `GET /v1/articles/{id}` (`{article}` with its HTML `text`); lists as `{<name>: {page, pages, count, items}}`.
 */
export interface HUser {
  id: number;
  firstName: string;
  lastName: string;
  email: string;
}
export interface HThread {
  id: number;
  type: 'customer' | 'reply' | 'note' | 'lineitem' | 'chat';
  body: string;
  /** A user id, or a customer email for customer threads. */
  by: number | string;
  createdAt: string;
  state?: 'published' | 'draft';
}
export interface HConversation {
  id: number;
  number: number;
  subject: string;
  mailboxId: number;
  status: 'active' | 'pending' | 'closed' | 'spam';
  state: 'published' | 'draft' | 'deleted';
  assignee: number | null;
  customer: { id: number; first: string; last: string; email: string };
  tags: string[];
  createdAt: string;
  userUpdatedAt: string;
  threads: HThread[];
}
export interface HCollection {
  id: string;
  name: string;
  visibility: 'public' | 'private';
}
export interface HArticle {
  id: string;
  number: number;
  collectionId: string;
  status: 'published' | 'notpublished';
  name: string;
  text: string;
  createdBy: number;
  createdAt: string;
  updatedAt: string;
}
export interface HelpscoutData {
  users: HUser[];
  mailboxes: { id: number; name: string; users: number[] }[];
  conversations: HConversation[];
  collections: HCollection[];
  articles: HArticle[];
}

export interface FakeHelpscout {
  readonly url: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly docsKey: string;
  readonly data: HelpscoutData;
  readonly fake: VendorFake;
  /** Access tokens the fake issued (client credentials and OAuth), in order. */
  readonly issued: string[];
  /** A timestamp later than every earlier one. */
  tick(): string;
  close(): Promise<void>;
}

const BASE = Date.UTC(2026, 0, 5, 9, 0, 0);
const API = 'https://api.helpscout.net';
const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function seedHelpscout(opts: { extraConversations?: number } = {}): HelpscoutData {
  let at = BASE;
  const next = () => {
    at += 60_000;
    return stamp(at);
  };
  const users: HUser[] = [
    { id: 11, firstName: 'Ada', lastName: 'Admin', email: 'Ada@Acme.TEST' },
    { id: 12, firstName: 'Grace', lastName: 'Agent', email: 'grace@acme.test' },
  ];
  const mailboxes = [
    { id: 501, name: 'Support', users: [11, 12] },
    { id: 502, name: 'Billing', users: [11] },
  ];
  const carl = { id: 901, first: 'Carl', last: 'Customer', email: 'Carl@Customer.TEST' };
  const dana = { id: 902, first: 'Dana', last: 'Doe', email: 'dana@customer.test' };
  const conversation = (id: number, subject: string, mailboxId: number, customer: HConversation['customer'], threads: [HThread['type'], number | string, string][], extra: Partial<HConversation> = {}): HConversation => {
    const createdAt = next();
    const ts = threads.map(([type, by, body], i) => ({ id: id * 10 + i, type, by, body, createdAt: next() }));
    return { id, number: id - 1000, subject, mailboxId, status: 'active', state: 'published', assignee: 12, customer, tags: [], createdAt, userUpdatedAt: ts.at(-1)?.createdAt ?? createdAt, threads: ts, ...extra };
  };
  const conversations: HConversation[] = [
    conversation(
      1101,
      'Cannot log in after password reset',
      501,
      carl,
      [
        ['customer', carl.email, '<p>After resetting my password the login page keeps spinning.</p>'],
        ['reply', 12, '<p>Could you clear the browser cookies and try again?</p>'],
        ['note', 12, '<p>Customer is on the legacy SSO tenant, escalate to identity team.</p>'],
        ['lineitem', 12, ''],
        ['customer', carl.email, '<p>Clearing cookies fixed it, thank you!</p>'],
      ],
      { tags: ['login', 'sso'], status: 'closed' },
    ),
    conversation(1102, 'Invoice shows the wrong VAT rate', 502, dana, [['customer', dana.email, '<p>My January invoice charges 21% VAT instead of 19%.</p>']], { assignee: null }),
    conversation(1103, 'Buy now', 501, dana, [['customer', dana.email, '<p>buy now</p>']], { status: 'spam' }),
    conversation(1104, 'Export to CSV times out', 501, carl, [['customer', carl.email, '<p>Exporting 50k rows to CSV times out.</p>'], ['reply', 11, '<p>Known issue, fixed in the next release.</p>']], { status: 'pending' }),
  ];
  for (let i = 0; i < (opts.extraConversations ?? 0); i++) conversations.push(conversation(1200 + i, `Routine question ${i}`, 501, dana, [['customer', dana.email, `<p>Routine question number ${i} about billing cycles.</p>`]]));
  const collections: HCollection[] = [
    { id: 'col_public', name: 'Help', visibility: 'public' },
    { id: 'col_private', name: 'Internal', visibility: 'private' },
  ];
  const article = (id: string, collectionId: string, name: string, text: string, status: HArticle['status'] = 'published'): HArticle => {
    const createdAt = next();
    return { id, number: 100 + Number(id.replace(/\D/g, '')), collectionId, status, name, text, createdBy: 11, createdAt, updatedAt: createdAt };
  };
  const articles: HArticle[] = [
    article('art1', 'col_public', 'How to reset your password', '<h1>Reset your password</h1><p>Open <strong>Settings</strong> and choose <em>Reset password</em>.</p>'),
    article('art2', 'col_private', 'Escalation matrix', '<p>Page the identity team for legacy SSO tenants.</p>'),
    article('art3', 'col_public', 'Upcoming pricing', '<p>Not public yet.</p>', 'notpublished'),
  ];
  return { users, mailboxes, conversations, collections, articles };
}

const vndError = (status: number, message: string): FakeReply => ({ status, json: { logRef: `${status}#${Math.abs(message.length * 7919)}`, message, _links: { about: { href: 'https://developer.helpscout.com/mailbox-api/overview/errors' } } } });

export async function startFakeHelpscout(data: HelpscoutData = seedHelpscout(), opts: { page?: number; articlePage?: number } = {}): Promise<FakeHelpscout> {
  const clientId = 'hs-app-id-0123';
  const clientSecret = 'hs-app-secret-0123456789';
  const docsKey = 'hs-docs-key-0123456789';
  let clock = BASE + 86_400_000;
  const issued: string[] = [];
  const fake = new VendorFake({
    name: 'Help Scout',
    tokens: [docsKey],
    tokenOf: ({ headers }) => {
      const h = headers.authorization ?? '';
      if (h.startsWith('Bearer ')) return h.slice(7);
      if (h.startsWith('Basic ')) return Buffer.from(h.slice(6), 'base64').toString('utf8').split(':')[0] ?? null;
      return null;
    },
    publicPath: (p) => p === '/v2/oauth2/token',
    unauthorized: (req) => (req.path.startsWith('/v1/') ? { status: 401, json: { code: 401, error: 'Unauthorized' } } : { status: 401, json: { error: 'invalid_token', error_description: 'Invalid access token' } }),
    rateLimited: (seconds) => ({
      ...vndError(429, 'Rate limit exceeded'),
      headers: { 'retry-after': '', 'x-ratelimit-limit-minute': '200', 'x-ratelimit-remaining-minute': '0', 'x-ratelimit-retry-after': String(seconds) },
    }),
    serverError: (status) => vndError(status, 'Internal server error'),
  });
  const user = (id: number) => data.users.find((u) => u.id === id);
  const userJson = (u: HUser) => ({ id: u.id, firstName: u.firstName, lastName: u.lastName, email: u.email, role: u.id === 11 ? 'owner' : 'user', timezone: 'UTC', type: 'user', createdAt: stamp(BASE), _links: { self: { href: `${API}/v2/users/${u.id}` } } });
  const personOf = (by: number | string, c: HConversation) =>
    typeof by === 'number'
      ? { id: by, type: 'user', first: user(by)?.firstName, last: user(by)?.lastName, email: user(by)?.email }
      : { id: c.customer.id, type: 'customer', first: c.customer.first, last: c.customer.last, email: c.customer.email };
  const isDocs = (req: FakeRequest) => req.path.startsWith('/v1/');
  const mailboxToken = (req: FakeRequest) => !isDocs(req) && req.token !== docsKey;
  /** A HAL page of `items` under `_embedded[name]`, `size` a page. */
  const hal = (req: FakeRequest, name: string, items: unknown[], size: number): FakeReply => {
    const number = Math.max(1, Number(req.query.get('page') ?? 1));
    const totalPages = Math.max(1, Math.ceil(items.length / size));
    const link = (n: number) => {
      const u = new URL(`${API}${req.path}`);
      for (const [k, v] of req.query) u.searchParams.set(k, v);
      u.searchParams.set('page', String(n));
      return { href: u.toString() };
    };
    return {
      headers: { 'content-type': 'application/hal+json;charset=UTF-8' },
      json: {
        _embedded: { [name]: items.slice((number - 1) * size, number * size) },
        page: { size, totalElements: items.length, totalPages, number },
        _links: { self: link(number), first: link(1), last: link(totalPages), ...(number < totalPages ? { next: link(number + 1) } : {}) },
      },
    };
  };
  const docsPage = (req: FakeRequest, name: string, items: unknown[], defaultSize: number) => {
    const size = Math.min(Number(req.query.get('pageSize') ?? defaultSize), 100, opts.articlePage ?? 100);
    const page = Math.max(1, Number(req.query.get('page') ?? 1));
    return { json: { [name]: { page, pages: Math.max(1, Math.ceil(items.length / size)), count: items.length, items: items.slice((page - 1) * size, page * size) } } };
  };

  fake.route('POST', '/v2/oauth2/token', (req) => {
    const body = (req.body ?? {}) as Record<string, string>;
    const issue = () => {
      const token = `hs-token-${issued.length + 1}`;
      issued.push(token);
      fake.allow(token);
      return token;
    };
    if (body.grant_type === 'client_credentials') {
      if (body.client_id !== clientId || body.client_secret !== clientSecret) return { status: 401, json: { error: 'invalid_client', error_description: 'Bad client credentials' } };
      return { json: { token_type: 'bearer', access_token: issue(), expires_in: 172_800 } };
    }
    if ((body.grant_type === 'authorization_code' && body.code === 'helpscout-code') || (body.grant_type === 'refresh_token' && body.refresh_token)) {
      return { json: { token_type: 'bearer', access_token: issue(), refresh_token: `hs-refresh-${issued.length}`, expires_in: 172_800 } };
    }
    return { status: 400, json: { error: 'invalid_grant', error_description: 'Bad code or refresh token' } };
  });
  fake.route('GET', '/v2/users/me', (req) => (mailboxToken(req) ? { json: userJson(data.users[0] as HUser) } : vndError(401, 'Unauthorized')));
  fake.route('GET', '/v2/mailboxes', (req) => hal(req, 'mailboxes', data.mailboxes.map((m) => ({ id: m.id, name: m.name, slug: m.name.toLowerCase(), email: `${m.name.toLowerCase()}@acme.test` })), 50));
  fake.route('GET', '/v2/users', (req) => {
    const mailbox = data.mailboxes.find((m) => String(m.id) === req.query.get('mailbox'));
    const list = mailbox ? mailbox.users.map(user).filter((u): u is HUser => Boolean(u)) : data.users;
    return hal(req, 'users', list.map(userJson), 50);
  });
  fake.route('GET', '/v2/conversations', (req) => {
    if (!mailboxToken(req)) return vndError(401, 'Unauthorized');
    const status = req.query.get('status') ?? 'active';
    const mailboxes = req.query.get('mailbox')?.split(',').map(Number);
    const since = req.query.get('modifiedSince');
    if (since && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(since)) return { status: 400, json: { logRef: '400#1', message: 'Bad request', _embedded: { errors: [{ path: 'modifiedSince', message: 'Invalid date format', source: 'PARAMETER' }] } } };
    let list = data.conversations.filter((c) => c.state !== 'deleted' || since);
    if (status !== 'all') list = list.filter((c) => c.status === status);
    if (mailboxes) list = list.filter((c) => mailboxes.includes(c.mailboxId));
    if (since) list = list.filter((c) => Date.parse(c.userUpdatedAt) >= Date.parse(since));
    const desc = req.query.get('sortOrder') === 'desc';
    list = [...list].sort((a, b) => (Date.parse(a.userUpdatedAt) - Date.parse(b.userUpdatedAt) || a.id - b.id) * (desc ? -1 : 1));
    const embed = req.query.get('embed') === 'threads';
    const items = list.map((c) => ({
      id: c.id,
      number: c.number,
      threads: c.threads.length,
      type: 'email',
      folderId: 1,
      status: c.status,
      state: c.state,
      subject: c.subject,
      preview: c.threads[0]?.body.replace(/<[^>]+>/g, '').slice(0, 40) ?? '',
      mailboxId: c.mailboxId,
      ...(c.assignee ? { assignee: { ...personOf(c.assignee, c) } } : {}),
      createdBy: { ...c.customer, type: 'customer' },
      createdAt: c.createdAt,
      userUpdatedAt: c.userUpdatedAt,
      source: { type: 'email', via: 'customer' },
      tags: c.tags.map((tag, i) => ({ id: i + 1, color: '#929499', tag })),
      primaryCustomer: { ...c.customer, type: 'customer' },
      customFields: [],
      ...(embed
        ? {
            _embedded: {
              threads: [...c.threads]
                .reverse()
                .map((t) => ({ id: t.id, type: t.type, status: 'active', state: t.state ?? 'published', action: t.type === 'lineitem' ? { type: 'changed-ticket-status', text: 'marked as Closed' } : undefined, body: t.body || undefined, source: { type: 'email', via: typeof t.by === 'number' ? 'user' : 'customer' }, createdBy: personOf(t.by, c), createdAt: t.createdAt, _embedded: { attachments: [] } })),
            },
          }
        : {}),
      _links: { self: { href: `${API}/v2/conversations/${c.id}` }, web: { href: `https://secure.helpscout.net/conversation/${c.id}/${c.number}` } },
    }));
    return hal(req, 'conversations', items, opts.page ?? 25);
  });

  fake.route('GET', '/v1/collections', (req) => docsPage(req, 'collections', data.collections.map((c) => ({ ...c, siteId: 'site1', number: 1, slug: c.name.toLowerCase(), order: 1, publicUrl: `https://acme.helpscoutdocs.com/collection/1-${c.name.toLowerCase()}` })), 50));
  fake.route('GET', '/v1/collections/:id/articles', (req) => {
    const status = req.query.get('status') ?? 'all';
    let list = data.articles.filter((a) => a.collectionId === req.params.id && (status === 'all' || a.status === status));
    if (req.query.get('sort') === 'updatedAt') list = [...list].sort((a, b) => (Date.parse(a.updatedAt) - Date.parse(b.updatedAt)) * (req.query.get('order') === 'desc' ? -1 : 1));
    const refs = list.map(({ text: _t, ...a }) => ({ ...a, slug: a.name.toLowerCase().replace(/\W+/g, '-'), hasDraft: false, publicUrl: `https://acme.helpscoutdocs.com/article/${a.number}`, popularity: 1, viewCount: 3, updatedBy: a.createdBy, lastPublishedAt: a.updatedAt }));
    return docsPage(req, 'articles', refs, 50);
  });
  fake.route('GET', '/v1/articles/:id', (req) => {
    const a = data.articles.find((x) => x.id === req.params.id);
    if (!a) return { status: 404, json: { code: 404, error: 'Not Found' } };
    return { json: { article: { ...a, slug: a.name.toLowerCase().replace(/\W+/g, '-'), publicUrl: `https://acme.helpscoutdocs.com/article/${a.number}`, categories: [], related: [], keywords: [], updatedBy: a.createdBy, lastPublishedAt: a.updatedAt } } };
  });

  await fake.start();
  return {
    url: fake.url,
    clientId,
    clientSecret,
    docsKey,
    data,
    fake,
    issued,
    tick: () => {
      clock += 60_000;
      return stamp(clock);
    },
    close: () => fake.close(),
  };
}
