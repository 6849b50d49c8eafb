import { type FakeReply, type FakeRequest, VendorFake } from './kit/index.ts';

/**
 * A local Zulip fake speaking the REST API wire format of zulip.com/api: `GET /api/v1/users/me`, `GET /api/v1/users`
 * (`members`), `GET /api/v1/streams` (`streams` with `invite_only`, `is_archived`), `GET /api/v1/streams/{id}/members`
 * (`subscribers`), `GET /api/v1/users/me/{stream_id}/topics` (`topics` with `name`, `max_id`, newest first) and
 * `GET /api/v1/messages` (`anchor` = id | `oldest` | `newest`, `include_anchor`, `num_before`, `num_after` ≤ 5000,
 * JSON `narrow` with `stream`/`channel` and `topic` operators, `apply_markdown`; `{messages, found_anchor,
 * found_oldest, found_newest, anchor}`). Every answer has `result` and `msg`; errors carry `code`; auth is HTTP Basic
 * `email:api_key`; a 429 is `RATE_LIMIT_HIT` with `retry-after` in the body, `Retry-After` and `X-RateLimit-*` headers.
 */
export interface ZUser {
  user_id: number;
  email: string;
  full_name: string;
}
export interface ZStream {
  stream_id: number;
  name: string;
  description: string;
  invite_only: boolean;
  is_archived?: boolean;
  subscribers: number[];
}
export interface ZMessage {
  id: number;
  stream_id: number;
  subject: string;
  sender_id: number;
  content: string;
  timestamp: number;
  last_edit_timestamp?: number;
}
export interface ZulipData {
  users: ZUser[];
  streams: ZStream[];
  messages: ZMessage[];
}

export interface FakeZulip {
  readonly url: string;
  readonly email: string;
  readonly apiKey: string;
  /** What the fake logs as the token (`email:api_key`), for `revoke`. */
  readonly basic: string;
  readonly data: ZulipData;
  readonly fake: VendorFake;
  post(streamId: number, topic: string, senderId: number, content: string): ZMessage;
  close(): Promise<void>;
}

const BASE_S = Date.UTC(2026, 3, 6, 8, 0, 0) / 1000;

export function seedZulip(): ZulipData {
  const users: ZUser[] = [
    { user_id: 8, email: 'reader-bot@acme.zulipchat.com', full_name: 'Reader Bot' },
    { user_id: 11, email: 'Iago@Acme.TEST', full_name: 'Iago' },
    { user_id: 12, email: 'hamlet@acme.test', full_name: 'King Hamlet' },
    { user_id: 13, email: 'othello@acme.test', full_name: 'Othello' },
  ];
  const streams: ZStream[] = [
    { stream_id: 1, name: 'engineering', description: 'Engineering', invite_only: false, subscribers: [8, 11, 12, 13] },
    { stream_id: 2, name: 'design team', description: 'Design', invite_only: false, subscribers: [8, 12] },
    { stream_id: 3, name: 'leadership', description: 'Private', invite_only: true, subscribers: [8, 11] },
    { stream_id: 4, name: 'old-project', description: 'Archived', invite_only: false, is_archived: true, subscribers: [8] },
  ];
  let id = 100;
  const m = (stream_id: number, subject: string, sender_id: number, content: string): ZMessage => ({ id: ++id, stream_id, subject, sender_id, content, timestamp: BASE_S + id * 60 });
  const messages: ZMessage[] = [
    m(1, 'deploy pipeline', 11, 'The deploy pipeline fails on the migration step since Friday.'),
    m(2, 'logo (v2)', 12, 'New logo drafts are in the shared folder.'),
    m(1, 'deploy pipeline', 12, '@**Iago|11** it is the lock timeout, see #**engineering>database**.'),
    m(1, 'database', 13, 'Raised lock_timeout to 30s on staging.'),
    m(3, 'budget', 11, 'Q3 budget is approved.'),
    m(4, 'retro', 12, 'Old project retro notes.'),
    m(1, 'deploy pipeline', 11, 'Fixed, thanks @_**King Hamlet**!'),
  ];
  return { users, streams, messages };
}

export async function startFakeZulip(data = seedZulip()): Promise<FakeZulip> {
  const email = 'reader-bot@acme.zulipchat.com';
  const apiKey = 'gjA04ZYcqXKalvYMA8OeXSfzUOLrtbZv';
  const basic = `${email}:${apiKey}`;
  const error = (status: number, code: string, msg: string): FakeReply => ({ status, json: { result: 'error', msg, code } });
  const fake = new VendorFake({
    name: 'Zulip',
    tokens: [basic],
    tokenOf: ({ headers }) => (headers.authorization?.startsWith('Basic ') ? Buffer.from(headers.authorization.slice(6), 'base64').toString('utf8') : null),
    unauthorized: (req) => (req.token ? error(401, 'INVALID_API_KEY', 'Invalid API key') : error(401, 'UNAUTHORIZED', 'Not logged in: API authentication or user session required')),
    rateLimited: (s) => ({
      status: 429,
      headers: { 'x-ratelimit-limit': '200', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000 + s)) },
      json: { result: 'error', msg: 'API usage exceeded rate limit', 'retry-after': s, code: 'RATE_LIMIT_HIT' },
    }),
    serverError: () => ({ json: { result: 'error', msg: 'Internal server error', code: 'BAD_REQUEST' } }),
  });
  let remaining = 200;
  const ok = (json: Record<string, unknown>): FakeReply => ({
    json: { result: 'success', msg: '', ...json },
    headers: { 'x-ratelimit-limit': '200', 'x-ratelimit-remaining': String(Math.max(0, --remaining)), 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 60) },
  });
  const me = () => data.users.find((u) => u.email === email);
  const canRead = (s: ZStream) => !s.invite_only || s.subscribers.includes(me()?.user_id ?? -1);
  const userOf = (id: number) => data.users.find((u) => u.user_id === id);
  const messageJson = (m: ZMessage) => {
    const s = data.streams.find((x) => x.stream_id === m.stream_id);
    const u = userOf(m.sender_id);
    return {
      id: m.id,
      type: 'stream',
      stream_id: m.stream_id,
      display_recipient: s?.name,
      subject: m.subject,
      sender_id: m.sender_id,
      sender_full_name: u?.full_name ?? 'Unknown',
      sender_email: u?.email ?? 'unknown@acme.test',
      sender_realm_str: 'acme',
      content: m.content,
      content_type: 'text/x-markdown',
      timestamp: m.timestamp,
      ...(m.last_edit_timestamp ? { last_edit_timestamp: m.last_edit_timestamp } : {}),
      client: 'website',
      is_me_message: false,
      reactions: [],
      flags: ['read'],
      recipient_id: 1000 + m.stream_id,
      avatar_url: null,
    };
  };

  fake.route('GET', '/api/v1/users/me', () => {
    const u = me();
    return ok({ user_id: u?.user_id, email: u?.email, full_name: u?.full_name, is_bot: true, is_admin: false, role: 400 });
  });
  fake.route('GET', '/api/v1/users', () => ok({ members: data.users.map((u) => ({ ...u, delivery_email: null, is_active: true, is_bot: u.user_id === 8, role: 400, timezone: '' })) }));
  fake.route('GET', '/api/v1/streams', () =>
    ok({
      streams: data.streams
        .filter(canRead)
        .map(({ subscribers: _s, ...s }) => ({ ...s, is_archived: s.is_archived ?? false, is_web_public: false, date_created: BASE_S, history_public_to_subscribers: true, rendered_description: `<p>${s.description}</p>` })),
    }),
  );
  fake.route('GET', '/api/v1/streams/:id/members', (req) => {
    const s = data.streams.find((x) => String(x.stream_id) === req.params.id);
    if (!s || !canRead(s)) return error(400, 'BAD_REQUEST', 'Invalid channel ID');
    return ok({ subscribers: s.subscribers });
  });
  fake.route('GET', '/api/v1/users/me/:id/topics', (req) => {
    const s = data.streams.find((x) => String(x.stream_id) === req.params.id);
    if (!s || !canRead(s)) return error(400, 'BAD_REQUEST', 'Invalid channel ID');
    const max = new Map<string, number>();
    for (const m of data.messages.filter((x) => x.stream_id === s.stream_id)) max.set(m.subject, Math.max(max.get(m.subject) ?? 0, m.id));
    return ok({ topics: [...max].map(([name, max_id]) => ({ name, max_id })).sort((a, b) => b.max_id - a.max_id) });
  });
  fake.route('GET', '/api/v1/messages', (req: FakeRequest) => {
    const q = req.query;
    const numBefore = Number(q.get('num_before') ?? 0);
    const numAfter = Number(q.get('num_after') ?? 0);
    if (numBefore + numAfter > 5000) return error(400, 'BAD_REQUEST', 'Too many messages requested (maximum 5000).');
    let filters: { operator: string; operand: string | number; negated?: boolean }[] = [];
    try {
      filters = JSON.parse(q.get('narrow') ?? '[]');
    } catch {
      return error(400, 'BAD_REQUEST', 'Invalid narrow');
    }
    let list = data.messages.filter((m) => {
      const s = data.streams.find((x) => x.stream_id === m.stream_id);
      return s !== undefined && canRead(s);
    });
    for (const f of filters) {
      if (f.operator === 'stream' || f.operator === 'channel') {
        const s = data.streams.find((x) => x.stream_id === Number(f.operand) || x.name === f.operand);
        if (!s || !canRead(s)) return error(400, 'BAD_REQUEST', `Invalid narrow operator: unknown channel`);
        list = list.filter((m) => m.stream_id === s.stream_id);
      } else if (f.operator === 'topic' || f.operator === 'subject') {
        list = list.filter((m) => m.subject.toLowerCase() === String(f.operand).toLowerCase());
      } else return error(400, 'BAD_REQUEST', `Invalid narrow operator: ${f.operator}`);
    }
    list.sort((a, b) => a.id - b.id);
    const raw = q.get('anchor') ?? 'newest';
    const anchor = raw === 'oldest' ? 0 : raw === 'newest' ? Number.MAX_SAFE_INTEGER : Number(raw);
    if (!Number.isFinite(anchor)) return error(400, 'BAD_REQUEST', 'Invalid anchor');
    const includeAnchor = q.get('include_anchor') !== 'false';
    const beforeAll = list.filter((m) => m.id < anchor);
    const before = numBefore > 0 ? beforeAll.slice(-numBefore) : [];
    const at = includeAnchor ? list.filter((m) => m.id === anchor) : [];
    const afterAll = list.filter((m) => m.id > anchor);
    const after = afterAll.slice(0, numAfter);
    const page = [...before, ...at, ...after];
    return ok({
      messages: page.map(messageJson),
      anchor,
      found_anchor: list.some((m) => m.id === anchor),
      found_oldest: beforeAll.length <= numBefore,
      found_newest: afterAll.length <= numAfter,
      history_limited: false,
    });
  });

  await fake.start();
  return {
    url: fake.url,
    email,
    apiKey,
    basic,
    data,
    fake,
    post(streamId, topic, senderId, content) {
      const id = Math.max(0, ...data.messages.map((m) => m.id)) + 1;
      const m: ZMessage = { id, stream_id: streamId, subject: topic, sender_id: senderId, content, timestamp: BASE_S + id * 60 };
      data.messages.push(m);
      return m;
    },
    close: () => fake.close(),
  };
}
