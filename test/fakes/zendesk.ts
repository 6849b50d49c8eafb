import { type FakeReply, type FakeRequest, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local Zendesk fake speaking the wire format of developer.zendesk.com/api-reference: `GET /api/v2/users/me.json`
 * (`{user}`), the cursor-based incremental ticket export `GET /api/v2/incremental/tickets/cursor.json` (`start_time` or
 * `cursor`, `per_page`, `include=users`; `{tickets, users, after_cursor, after_url, before_cursor, before_url,
 * end_of_stream}`; deleted tickets kept with `status: "deleted"`; admins only), ticket comments
 * `GET /api/v2/tickets/{id}/comments.json` (cursor pagination `page[size]`/`page[after]`, `{comments, users, meta:
 * {has_more, after_cursor}, links: {next}}`), the Help Center incremental article export
 * `GET /api/v2/help_center/incremental/articles.json` (`start_time`; `{articles, users, next_page, end_time, count}`) and
 * `POST /oauth/tokens`. API tokens arrive as HTTP Basic `{email}/token:{api_token}`, OAuth tokens as Bearer; errors
 * are Zendesk's `{error, description}` bodies.
 */
export interface ZUser {
  id: number;
  name: string;
  email: string;
  role: 'admin' | 'agent' | 'end-user';
}
export interface ZComment {
  id: number;
  author_id: number;
  body: string;
  public: boolean;
  created_at: string;
  attachments?: { file_name: string }[];
}
export interface ZTicket {
  id: number;
  subject: string;
  status: 'new' | 'open' | 'pending' | 'hold' | 'solved' | 'closed' | 'deleted';
  priority: string | null;
  type: string | null;
  requester_id: number;
  submitter_id: number;
  assignee_id: number | null;
  group_id: number | null;
  organization_id: number | null;
  tags: string[];
  created_at: string;
  updated_at: string;
  comments: ZComment[];
}
export interface ZArticle {
  id: number;
  title: string;
  body: string;
  author_id: number;
  section_id: number;
  locale: string;
  draft: boolean;
  user_segment_id: number | null;
  label_names: string[];
  created_at: string;
  updated_at: string;
}
export interface ZendeskData {
  users: ZUser[];
  tickets: ZTicket[];
  articles: ZArticle[];
}

export interface FakeZendesk {
  readonly url: string;
  readonly subdomain: string;
  readonly email: string;
  readonly apiToken: string;
  /** The fake's token for the API token (what `revoke` takes). */
  readonly basicToken: string;
  readonly data: ZendeskData;
  readonly fake: VendorFake;
  /** A timestamp later than every earlier one (for edits after a sync). */
  tick(): string;
  close(): Promise<void>;
}

const BASE = Date.UTC(2026, 0, 5, 9, 0, 0);
const SUBDOMAIN = 'acme';
const HOST = `https://${SUBDOMAIN}.zendesk.com`;
/** Zendesk's timestamps: seconds precision, `Z`. */
const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

export function seedZendesk(opts: { extraTickets?: number } = {}): ZendeskData {
  let at = BASE;
  const next = () => {
    at += 60_000;
    return stamp(at);
  };
  const users: ZUser[] = [
    { id: 9001, name: 'Ada Admin', email: 'Ada@Acme.TEST', role: 'admin' },
    { id: 9002, name: 'Grace Agent', email: 'grace@acme.test', role: 'agent' },
    { id: 9101, name: 'Carl Customer', email: 'carl@customer.test', role: 'end-user' },
    { id: 9102, name: 'Dana Doe', email: 'dana@customer.test', role: 'end-user' },
  ];
  const ticket = (id: number, subject: string, requester: number, comments: [number, string, boolean][], extra: Partial<ZTicket> = {}): ZTicket => {
    const created = next();
    const cs = comments.map(([author_id, body, pub], i) => ({ id: id * 100 + i, author_id, body, public: pub, created_at: next() }));
    return {
      id,
      subject,
      status: 'open',
      priority: 'normal',
      type: 'question',
      requester_id: requester,
      submitter_id: requester,
      assignee_id: 9002,
      group_id: 360001,
      organization_id: null,
      tags: [],
      created_at: created,
      updated_at: cs.at(-1)?.created_at ?? created,
      comments: cs,
      ...extra,
    };
  };
  const tickets: ZTicket[] = [
    ticket(
      101,
      'Cannot log in after password reset',
      9101,
      [
        [9101, 'After resetting my password the login page keeps spinning.', true],
        [9002, 'Thanks Carl, could you clear the browser cookies and try again?', true],
        [9002, 'Customer is on the legacy SSO tenant, escalate to identity team.', false],
        [9101, 'Clearing cookies fixed it, thank you!', true],
      ],
      { priority: 'high', type: 'incident', tags: ['login', 'sso'], status: 'solved' },
    ),
    ticket(102, 'Invoice shows the wrong VAT rate', 9102, [[9102, 'My January invoice charges 21% VAT instead of 19%.', true]], { assignee_id: null, organization_id: 77 }),
    ticket(103, 'Spam ticket', 9102, [[9102, 'buy now', true]], { status: 'deleted' }),
    ticket(104, 'Export to CSV times out', 9101, [[9101, 'Exporting 50k rows to CSV times out after 30 seconds.', true], [9001, 'Known issue, fixed in the next release.', true]], { priority: 'low' }),
  ];
  for (let i = 0; i < (opts.extraTickets ?? 0); i++) tickets.push(ticket(200 + i, `Routine question ${i}`, 9102, [[9102, `Routine question number ${i} about billing cycles.`, true]]));
  const article = (id: number, title: string, body: string, extra: Partial<ZArticle> = {}): ZArticle => {
    const created = next();
    return { id, title, body, author_id: 9001, section_id: 5001, locale: 'en-us', draft: false, user_segment_id: null, label_names: [], created_at: created, updated_at: created, ...extra };
  };
  const articles: ZArticle[] = [
    article(3001, 'How to reset your password', '<h1>Reset your password</h1><p>Open <strong>Settings</strong> and choose <em>Reset password</em>.</p><ul><li>Check your inbox</li><li>Follow the link</li></ul>', { label_names: ['account'] }),
    article(3002, 'Internal escalation matrix', '<p>Page the identity team for legacy SSO tenants.</p>', { user_segment_id: 4401 }),
    article(3003, 'Upcoming pricing (draft)', '<p>Not public yet.</p>', { draft: true }),
  ];
  return { users, tickets, articles };
}

/** Zendesk's export cursors are opaque base64 of `<timestamp>.0||<id>|`. */
const encodeCursor = (ts: number, id: number) => Buffer.from(`${ts}.0||${id}|`).toString('base64');
function decodeCursor(c: string): { ts: number; id: number } | null {
  const m = /^(\d+)\.0\|\|(\d+)\|$/.exec(Buffer.from(c, 'base64').toString('utf8'));
  return m ? { ts: Number(m[1]), id: Number(m[2]) } : null;
}

const notFound: FakeReply = { status: 404, json: { error: 'RecordNotFound', description: 'Not found' } };

export async function startFakeZendesk(data: ZendeskData = seedZendesk(), opts: { ticketPage?: number; commentPage?: number; articlePage?: number } = {}): Promise<FakeZendesk> {
  const email = 'ada@acme.test';
  const apiToken = 'zd-api-token-0123456789abcdef';
  const basicToken = `${email}/token:${apiToken}`;
  const oauthTokens = new Map<string, number>();
  let clock = BASE + 86_400_000;
  let issued = 0;
  const fake = new VendorFake({
    name: 'Zendesk',
    tokens: [basicToken],
    tokenOf: ({ headers }) => {
      const h = headers.authorization ?? '';
      if (h.startsWith('Bearer ')) return h.slice(7);
      if (h.startsWith('Basic ')) return Buffer.from(h.slice(6), 'base64').toString('utf8');
      return null;
    },
    publicPath: (p) => p === '/oauth/tokens',
    unauthorized: () => ({ status: 401, json: { error: "Couldn't authenticate you" } }),
    rateLimited: () => ({ status: 429, json: { error: 'APIRateLimitExceeded', description: 'Number of allowed API requests per minute exceeded' } }),
    serverError: () => ({ json: { error: 'InternalServerError', description: 'Something went wrong' } }),
  });
  const userOf = (req: FakeRequest): ZUser | undefined => {
    if (!req.token) return undefined;
    const id = oauthTokens.get(req.token);
    const mail = id === undefined ? req.token.split('/token:')[0]?.toLowerCase() : undefined;
    return data.users.find((u) => (id !== undefined ? u.id === id : u.email.toLowerCase() === mail));
  };
  const sideload = (req: FakeRequest, ids: (number | null | undefined)[]) =>
    req.query.get('include')?.split(',').includes('users')
      ? { users: data.users.filter((u) => ids.includes(u.id)).map((u) => ({ id: u.id, name: u.name, email: u.email, role: u.role })) }
      : {};
  const ticketJson = (t: ZTicket) => {
    const { comments, ...rest } = t;
    return {
      ...rest,
      url: `${HOST}/api/v2/tickets/${t.id}.json`,
      raw_subject: t.subject,
      description: comments[0]?.body ?? '',
      is_public: comments.some((c) => c.public),
      via: { channel: 'email' },
      brand_id: 1,
      generated_timestamp: seconds(t.updated_at),
    };
  };

  fake.route('GET', '/api/v2/users/me.json', (req) => {
    const u = userOf(req);
    return { json: { user: u ? { id: u.id, name: u.name, email: u.email, role: u.role } : { id: null, name: 'Anonymous user', email: 'invalid@example.com', role: 'end-user' } } };
  });

  fake.route('GET', '/api/v2/incremental/tickets/cursor.json', (req) => {
    if (userOf(req)?.role !== 'admin') return { status: 403, json: { error: 'Forbidden', description: 'You do not have access to this page. Please contact the account owner of this help desk for further help.' } };
    const perPage = Math.min(Number(req.query.get('per_page') ?? 1000), 1000, opts.ticketPage ?? 1000);
    const sorted = [...data.tickets].sort((a, b) => seconds(a.updated_at) - seconds(b.updated_at) || a.id - b.id);
    const cursor = req.query.get('cursor');
    let rest: ZTicket[];
    if (cursor) {
      const at = decodeCursor(cursor);
      if (!at) return { status: 422, json: { error: 'InvalidPaginationParameter', description: 'cursor is invalid' } };
      rest = sorted.filter((t) => seconds(t.updated_at) > at.ts || (seconds(t.updated_at) === at.ts && t.id > at.id));
    } else {
      const start = Number(req.query.get('start_time'));
      if (!Number.isInteger(start) || start < 0) return { status: 400, json: { error: 'InvalidValue', description: 'start_time is required' } };
      rest = sorted.filter((t) => seconds(t.updated_at) >= start);
    }
    const page = rest.slice(0, perPage);
    const last = page.at(-1);
    const after = last ? encodeCursor(seconds(last.updated_at), last.id) : cursor;
    const first = page[0];
    const before = first ? encodeCursor(seconds(first.updated_at), first.id) : null;
    const link = (c: string | null) => (c ? `${HOST}/api/v2/incremental/tickets/cursor.json?cursor=${encodeURIComponent(c)}` : null);
    return {
      json: {
        tickets: page.map(ticketJson),
        ...sideload(req, page.flatMap((t) => [t.requester_id, t.submitter_id, t.assignee_id])),
        after_url: link(after),
        after_cursor: after,
        before_url: link(before),
        before_cursor: before,
        end_of_stream: rest.length <= perPage,
      },
    };
  });

  fake.route('GET', '/api/v2/tickets/:id/comments.json', (req) => {
    const t = data.tickets.find((x) => String(x.id) === req.params.id);
    if (!t || t.status === 'deleted') return notFound;
    const size = Math.min(Number(req.query.get('page[size]') ?? 100), 100, opts.commentPage ?? 100);
    const afterId = Number(req.query.get('page[after]') ?? 0);
    const rest = t.comments.filter((c) => c.id > afterId);
    const page = rest.slice(0, size);
    const hasMore = rest.length > size;
    const afterCursor = page.at(-1) ? String(page.at(-1)?.id) : null;
    return {
      json: {
        comments: page.map((c) => ({
          ...c,
          type: 'Comment',
          plain_body: c.body,
          html_body: `<div class="zd-comment"><p>${c.body}</p></div>`,
          audit_id: c.id + 50_000,
          via: { channel: 'web' },
          attachments: c.attachments ?? [],
        })),
        ...sideload(req, page.map((c) => c.author_id)),
        meta: { has_more: hasMore, after_cursor: afterCursor, before_cursor: page[0] ? String(page[0].id) : null },
        links: { next: hasMore ? `${HOST}/api/v2/tickets/${t.id}/comments.json?page%5Bafter%5D=${afterCursor}&page%5Bsize%5D=${size}` : null, prev: null },
      },
    };
  });

  fake.route('GET', '/api/v2/help_center/incremental/articles.json', (req) => {
    const start = Number(req.query.get('start_time'));
    if (!Number.isInteger(start) || start < 0) return { status: 400, json: { error: 'InvalidValue', description: 'start_time is required' } };
    const limit = opts.articlePage ?? 1000;
    const rest = [...data.articles].sort((a, b) => seconds(a.updated_at) - seconds(b.updated_at) || a.id - b.id).filter((a) => seconds(a.updated_at) >= start);
    const page = rest.slice(0, limit);
    const end = page.at(-1) ? seconds(page.at(-1)?.updated_at ?? '') : start;
    return {
      json: {
        articles: page.map((a) => ({
          ...a,
          url: `${HOST}/api/v2/help_center/en-us/articles/${a.id}.json`,
          html_url: `${HOST}/hc/en-us/articles/${a.id}`,
          edited_at: a.updated_at,
          promoted: false,
          outdated: false,
          permission_group_id: 1,
          position: 0,
          vote_sum: 0,
        })),
        ...sideload(req, page.map((a) => a.author_id)),
        count: page.length,
        end_time: end,
        next_page: rest.length > limit ? `${HOST}/api/v2/help_center/incremental/articles.json?start_time=${end}` : null,
      },
    };
  });

  fake.route(
    'POST',
    '/oauth/tokens',
    oauthTokenEndpoint(fake, {
      code: 'zendesk-code',
      issue: () => {
        const access_token = `zd-oauth-${++issued}`;
        oauthTokens.set(access_token, 9001);
        return { access_token, scope: 'read' };
      },
    }),
  );

  await fake.start();
  return {
    url: fake.url,
    subdomain: SUBDOMAIN,
    email,
    apiToken,
    basicToken,
    data,
    fake,
    tick: () => {
      clock += 60_000;
      return stamp(clock);
    },
    close: () => fake.close(),
  };
}
