import { type FakeReply, type FakeRequest, VendorFake } from './kit/index.ts';

/**
 * A local Anthropic Admin API fake speaking the wire format of platform.claude.com/docs/en/api/admin: the key in
 * `x-api-key` with a required `anthropic-version` header; `GET /v1/organizations/{users,workspaces,api_keys,invites}`
 * (`limit` 1–1000, default 20, cursor paging by `after_id` → `{data, has_more, first_id, last_id}`; workspaces list
 * archived ones only with `include_archived=true`); `GET /v1/organizations/usage_report/messages` and
 * `GET /v1/organizations/cost_report` (`starting_at` required, `ending_at` exclusive, `bucket_width=1d`, `limit` day
 * buckets, default 7, max 31, `group_by[]` — dimensions not grouped by come back null —, `page` = the previous
 * `next_page` → `{data: [{starting_at, ending_at, results}], has_more, next_page}`); cost `amount` in cents as a
 * decimal string. Errors are `{type: "error", error: {type, message}}` (authentication_error 401, permission_error 403,
 * invalid_request_error 400, not_found_error 404, rate_limit_error 429 with `retry-after`, api_error 500,
 * overloaded_error 529).
 */
export interface AnUser {
  id: string;
  email: string;
  name: string;
  role: string;
  added_at: string;
}
export interface AnWorkspace {
  id: string;
  name: string;
  created_at: string;
  archived_at: string | null;
}
export interface AnKey {
  id: string;
  name: string;
  workspace_id: string | null;
  created_at: string;
  created_by: { id: string; type: string };
  partial_key_hint: string;
  status: string;
}
export interface AnInvite {
  id: string;
  email: string;
  role: string;
  invited_at: string;
  expires_at: string;
  status: string;
}
/** One day's usage of one (workspace, key, model, service tier) cell: the finest grain the fake aggregates from. */
export interface AnUsage {
  day: string;
  workspace_id: string | null;
  api_key_id: string | null;
  model: string;
  service_tier: string;
  uncached_input_tokens: number;
  cache_read_input_tokens: number;
  cache_5m: number;
  cache_1h: number;
  output_tokens: number;
  web_search_requests: number;
}
export interface AnCost {
  day: string;
  workspace_id: string | null;
  description: string;
  cost_type: string;
  model: string | null;
  token_type: string | null;
  service_tier: string | null;
  /** Cents, as a decimal string. */
  amount: string;
}
export interface AnthropicData {
  users: AnUser[];
  workspaces: AnWorkspace[];
  keys: AnKey[];
  invites: AnInvite[];
  usage: AnUsage[];
  cost: AnCost[];
}

export interface FakeAnthropic {
  readonly url: string;
  readonly adminKey: string;
  /** A normal (non-admin) API key: the Admin API refuses it. */
  readonly apiKey: string;
  readonly data: AnthropicData;
  readonly fake: VendorFake;
  close(): Promise<void>;
}

export const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/**
 * An organization with two workspaces (one archived), three members, three keys and one pending invite, and usage for
 * the `days` complete days before `today` (two groups a day, a third model on the last day) with matching cost lines.
 */
export function seedAnthropic(today: string, days = 5): AnthropicData {
  const users: AnUser[] = [
    { id: 'user_01Ada', email: 'Ada@Example.com', name: 'Ada Lovelace', role: 'admin', added_at: '2026-01-05T09:00:00Z' },
    { id: 'user_01Grace', email: 'grace@example.com', name: 'Grace Hopper', role: 'developer', added_at: '2026-02-01T09:00:00Z' },
    { id: 'user_01Linus', email: 'linus@example.com', name: 'Linus T', role: 'user', added_at: '2026-03-01T09:00:00Z' },
  ];
  const workspaces: AnWorkspace[] = [
    { id: 'wrkspc_01Growth', name: 'Growth', created_at: '2026-01-06T09:00:00Z', archived_at: null },
    { id: 'wrkspc_01Old', name: 'Old experiments', created_at: '2026-01-07T09:00:00Z', archived_at: '2026-04-01T09:00:00Z' },
  ];
  const keys: AnKey[] = [
    { id: 'apikey_01Prod', name: 'Growth prod', workspace_id: 'wrkspc_01Growth', created_at: '2026-01-10T09:00:00Z', created_by: { id: 'user_01Grace', type: 'user' }, partial_key_hint: 'sk-ant-api03-R2D...abcd', status: 'active' },
    { id: 'apikey_01Laptop', name: 'laptop test', workspace_id: null, created_at: '2026-02-10T09:00:00Z', created_by: { id: 'user_01Linus', type: 'user' }, partial_key_hint: 'sk-ant-api03-x9Q...wxyz', status: 'active' },
    { id: 'apikey_01Old', name: 'old key', workspace_id: 'wrkspc_01Old', created_at: '2026-01-11T09:00:00Z', created_by: { id: 'user_01Ada', type: 'user' }, partial_key_hint: 'sk-ant-api03-OLD...0000', status: 'archived' },
  ];
  const invites: AnInvite[] = [{ id: 'invite_01Mary', email: 'mary@example.com', role: 'developer', invited_at: '2026-05-01T09:00:00Z', expires_at: '2026-05-22T09:00:00Z', status: 'pending' }];
  const usage: AnUsage[] = [];
  const cost: AnCost[] = [];
  for (let i = days; i >= 1; i--) {
    const day = addDays(today, -i);
    usage.push(usageCell(day, 'wrkspc_01Growth', 'apikey_01Prod', 'claude-sonnet-4-20250514', 1_000_000 + i * 1000, 300_000));
    usage.push(usageCell(day, null, 'apikey_01Laptop', 'claude-3-5-haiku-20241022', 20_000, 5_000));
    cost.push(costLine(day, 'wrkspc_01Growth', 'Claude Sonnet 4 Usage - Input Tokens', 'claude-sonnet-4-20250514', 'uncached_input_tokens', String(300 + i)));
    cost.push(costLine(day, 'wrkspc_01Growth', 'Claude Sonnet 4 Usage - Output Tokens', 'claude-sonnet-4-20250514', 'output_tokens', '450'));
    cost.push(costLine(day, null, 'Claude Haiku 3.5 Usage - Input Tokens', 'claude-3-5-haiku-20241022', 'uncached_input_tokens', '1.6'));
  }
  return { users, workspaces, keys, invites, usage, cost };
}

export function usageCell(day: string, workspace_id: string | null, api_key_id: string | null, model: string, input: number, output: number): AnUsage {
  return {
    day,
    workspace_id,
    api_key_id,
    model,
    service_tier: 'standard',
    uncached_input_tokens: Math.round(input * 0.8),
    cache_read_input_tokens: Math.round(input * 0.15),
    cache_5m: input - Math.round(input * 0.8) - Math.round(input * 0.15),
    cache_1h: 0,
    output_tokens: output,
    web_search_requests: 0,
  };
}

export function costLine(day: string, workspace_id: string | null, description: string, model: string | null, token_type: string | null, amount: string): AnCost {
  return { day, workspace_id, description, cost_type: 'tokens', model, token_type, service_tier: 'standard', amount };
}

const anthropicError = (status: number, type: string, message: string): FakeReply => ({ status, json: { type: 'error', error: { type, message } } });

export async function startFakeAnthropic(data: AnthropicData, opts: { listCap?: number } = {}): Promise<FakeAnthropic> {
  const adminKey = 'sk-ant-admin01-fakeAdminKey0123456789abcdef';
  const apiKey = 'sk-ant-api03-fakeNormalKey0123456789abcdef';
  const fake = new VendorFake({
    name: 'Anthropic',
    tokens: [adminKey],
    tokenOf: ({ headers }) => (typeof headers['x-api-key'] === 'string' ? headers['x-api-key'] : null),
    unauthorized: (req) =>
      req.token === apiKey
        ? anthropicError(403, 'permission_error', 'This endpoint requires an Admin API key.')
        : anthropicError(401, 'authentication_error', 'invalid x-api-key'),
    rateLimited: () => ({
      ...anthropicError(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit. Please try again later.'),
      headers: { 'anthropic-ratelimit-requests-limit': '60', 'anthropic-ratelimit-requests-remaining': '0', 'anthropic-ratelimit-requests-reset': new Date(Date.now() + 1000).toISOString() },
    }),
    serverError: (status) => (status === 529 ? anthropicError(529, 'overloaded_error', 'Overloaded') : anthropicError(status, 'api_error', 'Internal server error')),
  });

  // `Connection: close` on every answer: the engine's first document upsert can block the event loop past the server's
  // 5 s keep-alive, and a request on the socket the server just closed fails with ECONNRESET (a test artefact).
  const route = (method: string, path: string, handler: (req: FakeRequest) => FakeReply) =>
    fake.route(method, path, (req) => {
      const reply = handler(req);
      return { ...reply, headers: { ...reply.headers, connection: 'close' } };
    });

  const versioned = (handler: (req: FakeRequest) => FakeReply) => (req: FakeRequest) =>
    req.headers['anthropic-version'] ? handler(req) : anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required');

  const list = <T extends { id: string }>(items: () => readonly T[], type: string) =>
    versioned((req) => {
      const limit = Number(req.query.get('limit') ?? 20);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return anthropicError(400, 'invalid_request_error', 'limit: Input should be less than or equal to 1000');
      const all = items();
      const after = req.query.get('after_id');
      const start = after ? all.findIndex((x) => x.id === after) + 1 : 0;
      if (after && start === 0) return anthropicError(400, 'invalid_request_error', `after_id: ${after} not found`);
      const page = all.slice(start, start + Math.min(limit, opts.listCap ?? limit));
      return {
        json: {
          data: page.map((x) => ({ type, ...x })),
          has_more: start + page.length < all.length,
          first_id: page[0]?.id ?? null,
          last_id: page.at(-1)?.id ?? null,
        },
      };
    });

  route('GET', '/v1/organizations/users', list(() => data.users, 'user'));
  route('GET', '/v1/organizations/users/:id', versioned((req) => {
    const u = data.users.find((x) => x.id === req.params.id);
    return u ? { json: { type: 'user', ...u } } : anthropicError(404, 'not_found_error', 'User not found');
  }));
  route('GET', '/v1/organizations/workspaces', (req) => list(() => data.workspaces.filter((w) => req.query.get('include_archived') === 'true' || !w.archived_at), 'workspace')(req));
  route('GET', '/v1/organizations/api_keys', (req) => {
    const status = req.query.get('status');
    const ws = req.query.get('workspace_id');
    return list(() => data.keys.filter((k) => (!status || k.status === status) && (!ws || k.workspace_id === ws)), 'api_key')(req);
  });
  route('GET', '/v1/organizations/invites', list(() => data.invites, 'invite'));

  /** The day buckets a report request asks for, or an error reply. */
  const buckets = (req: FakeRequest): { days: string[]; more: string | null } | FakeReply => {
    const start = req.query.get('starting_at');
    if (!start || Number.isNaN(Date.parse(start))) return anthropicError(400, 'invalid_request_error', 'starting_at: Field required');
    if ((req.query.get('bucket_width') ?? '1d') !== '1d') return anthropicError(400, 'invalid_request_error', 'bucket_width: only 1d is supported by this fake');
    const limit = Number(req.query.get('limit') ?? 7);
    if (!Number.isInteger(limit) || limit < 1 || limit > 31) return anthropicError(400, 'invalid_request_error', 'limit: for bucket_width 1d, limit must be between 1 and 31');
    const page = req.query.get('page');
    let first = start.slice(0, 10);
    if (page) {
      const decoded = Buffer.from(page.replace(/^page_/, ''), 'base64').toString('utf8');
      if (Number.isNaN(Date.parse(decoded))) return anthropicError(400, 'invalid_request_error', 'page: invalid page token');
      first = decoded.slice(0, 10);
    }
    const endAt = req.query.get('ending_at');
    const end = endAt ? endAt.slice(0, 10) : addDays(new Date().toISOString().slice(0, 10), 1);
    const days: string[] = [];
    let d = first;
    while (d < end && days.length < limit) {
      days.push(d);
      d = addDays(d, 1);
    }
    return { days, more: d < end ? `page_${Buffer.from(`${d}T00:00:00Z`).toString('base64')}` : null };
  };
  const groupBy = (req: FakeRequest) => new Set(req.query.getAll('group_by[]'));
  const report = (days: string[], more: string | null, results: (day: string) => unknown[]): FakeReply => ({
    json: { data: days.map((day) => ({ starting_at: `${day}T00:00:00Z`, ending_at: `${addDays(day, 1)}T00:00:00Z`, results: results(day) })), has_more: more !== null, next_page: more },
  });

  route('GET', '/v1/organizations/usage_report/messages', versioned((req) => {
    const b = buckets(req);
    if (!('days' in b)) return b;
    const g = groupBy(req);
    for (const x of g) if (!['workspace_id', 'api_key_id', 'model', 'service_tier', 'context_window'].includes(x)) return anthropicError(400, 'invalid_request_error', `group_by: unknown value ${x}`);
    return report(b.days, b.more, (day) => {
      const cells = new Map<string, Record<string, unknown>>();
      for (const u of data.usage.filter((x) => x.day === day)) {
        const dims = {
          workspace_id: g.has('workspace_id') ? u.workspace_id : null,
          api_key_id: g.has('api_key_id') ? u.api_key_id : null,
          model: g.has('model') ? u.model : null,
          service_tier: g.has('service_tier') ? u.service_tier : null,
          context_window: g.has('context_window') ? '0-200k' : null,
        };
        const k = JSON.stringify(dims);
        const c = (cells.get(k) ?? { ...dims, uncached_input_tokens: 0, cache_read_input_tokens: 0, cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 }, output_tokens: 0, server_tool_use: { web_search_requests: 0 } }) as {
          uncached_input_tokens: number;
          cache_read_input_tokens: number;
          cache_creation: { ephemeral_1h_input_tokens: number; ephemeral_5m_input_tokens: number };
          output_tokens: number;
          server_tool_use: { web_search_requests: number };
        };
        c.uncached_input_tokens += u.uncached_input_tokens;
        c.cache_read_input_tokens += u.cache_read_input_tokens;
        c.cache_creation.ephemeral_1h_input_tokens += u.cache_1h;
        c.cache_creation.ephemeral_5m_input_tokens += u.cache_5m;
        c.output_tokens += u.output_tokens;
        c.server_tool_use.web_search_requests += u.web_search_requests;
        cells.set(k, c as unknown as Record<string, unknown>);
      }
      return [...cells.values()];
    });
  }));

  route('GET', '/v1/organizations/cost_report', versioned((req) => {
    const b = buckets(req);
    if (!('days' in b)) return b;
    const g = groupBy(req);
    for (const x of g) if (!['workspace_id', 'description'].includes(x)) return anthropicError(400, 'invalid_request_error', `group_by: unknown value ${x}`);
    return report(b.days, b.more, (day) => {
      const cells = new Map<string, Record<string, unknown> & { cents: number }>();
      for (const c of data.cost.filter((x) => x.day === day)) {
        const byDesc = g.has('description');
        const dims = {
          workspace_id: g.has('workspace_id') ? c.workspace_id : null,
          description: byDesc ? c.description : null,
          cost_type: byDesc ? c.cost_type : null,
          model: byDesc ? c.model : null,
          token_type: byDesc ? c.token_type : null,
          service_tier: byDesc ? c.service_tier : null,
          context_window: byDesc ? '0-200k' : null,
        };
        const k = JSON.stringify(dims);
        const cell = cells.get(k) ?? { ...dims, cents: 0 };
        cell.cents += Number(c.amount);
        cells.set(k, cell);
      }
      return [...cells.values()].map(({ cents, ...rest }) => ({ ...rest, currency: 'USD', amount: String(Math.round(cents * 1e6) / 1e6) }));
    });
  }));

  await fake.start();
  return { url: fake.url, adminKey, apiKey, data, fake, close: () => fake.close() };
}
