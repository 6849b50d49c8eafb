import type { FakeReply, FakeRequest } from './kit/index.ts';
import { VendorFake } from './kit/index.ts';

/**
 * A local OpenAI organization Admin API fake, speaking the wire format of the OpenAPI description
 * (github.com/openai/openai-openapi) and platform.openai.com/docs/api-reference/administration:
 * `GET /organization/users`, `/organization/projects?include_archived=`, `/organization/projects/{id}/api_keys`,
 * `/organization/projects/{id}/service_accounts` (lists `{object: "list", data, first_id, last_id, has_more}`,
 * `limit` ≤ 100, paged by `after=<last id>`); `GET /organization/audit_logs` (newest first, `effective_at[gte|gt|lte|lt]`,
 * `after`); `GET /organization/usage/{completions|embeddings|images|audio_speeches|audio_transcriptions|moderations|vector_stores}`
 * and `GET /organization/costs` (`start_time` required, `end_time` exclusive, `bucket_width=1d`, `group_by` repeated or
 * comma-separated — dimensions not grouped come back null and their results summed —, `limit` buckets ≤ 31 (costs
 * ≤ 180), `{object: "page", data: [{object: "bucket", start_time, end_time, results}], has_more, next_page}` paged by
 * `page=<next_page>`). Auth: `Authorization: Bearer <admin key>`; an unknown key answers 401 `invalid_api_key`, a
 * project key (known, not admin) 403 with OpenAI's insufficient-permissions message (the exact status OpenAI uses for
 * a project key on admin endpoints is not documented). Errors `{error: {message, type, param, code}}`; 429
 * `rate_limit_exceeded` with `Retry-After` and `x-ratelimit-*-requests`; every answer carries `openai-organization`.
 */

export type FakeUsageType = 'completions' | 'embeddings' | 'images' | 'audio_speeches' | 'audio_transcriptions' | 'moderations' | 'vector_stores';

export interface OUser {
  id: string;
  name: string;
  email: string;
  role: 'owner' | 'reader';
  added_at: number;
}
export interface OProject {
  id: string;
  name: string;
  created_at: number;
  archived_at: number | null;
  status: 'active' | 'archived';
}
export interface OKey {
  id: string;
  name: string;
  redacted_value: string;
  created_at: number;
  last_used_at: number | null;
  owner: { type: 'user'; user: { id: string; name: string; email: string; role: string; created_at: number } } | { type: 'service_account'; service_account: { id: string; name: string; role: string; created_at: number } };
}
export interface OServiceAccount {
  id: string;
  name: string;
  role: 'owner' | 'member';
  created_at: number;
}
/** One ungrouped usage result: every dimension set; the fake groups and sums per request. */
export interface OUsage {
  day: string;
  project_id: string | null;
  user_id: string | null;
  api_key_id: string | null;
  model: string | null;
  counters: Record<string, number>;
}
export interface OCost {
  day: string;
  project_id: string | null;
  api_key_id: string | null;
  line_item: string;
  value: number;
  quantity?: number;
  quantity_unit?: string;
}
export interface OAudit {
  id: string;
  type: string;
  effective_at: number;
  actor: Record<string, unknown>;
  project?: { id: string; name: string };
  [detail: string]: unknown;
}

export interface OpenAIData {
  org: string;
  users: OUser[];
  projects: OProject[];
  keys: Record<string, OKey[]>;
  serviceAccounts: Record<string, OServiceAccount[]>;
  usage: Record<FakeUsageType, OUsage[]>;
  costs: OCost[];
  audit: OAudit[];
}

export interface FakeOpenAI {
  readonly url: string;
  readonly adminKey: string;
  /** A project key: a real key, but not an admin key. */
  readonly projectKey: string;
  readonly data: OpenAIData;
  readonly fake: VendorFake;
  /** Query strings of usage and costs requests, in order (what a test asserts the window and grouping with). */
  readonly usageQueries: { path: string; query: URLSearchParams }[];
  /** Page caps (objects per list page, buckets per usage page), changeable between syncs. */
  readonly caps: { listCap?: number; bucketCap?: number };
  /** An audit event now-ish (one second after the latest), returning it. */
  addAudit(type: string, detail: Record<string, unknown>, actorEmail?: string): OAudit;
  close(): Promise<void>;
}

const DAY = 86_400;
export const dayStart = (day: string): number => Date.parse(`${day}T00:00:00Z`) / 1000;
export const addDays = (day: string, n: number): string => new Date((dayStart(day) + n * DAY) * 1000).toISOString().slice(0, 10);
export const today = (): string => new Date().toISOString().slice(0, 10);

/** A small organization with a few days of usage ending `end` (a `YYYY-MM-DD`, default today). */
export function seedOpenAI(end = today()): OpenAIData {
  const t0 = dayStart(addDays(end, -20));
  const ada = { id: 'user-ada', name: 'Ada Lovelace', email: 'Ada@Acme.test', role: 'owner' as const, added_at: t0 };
  const grace = { id: 'user-grace', name: 'Grace Hopper', email: 'grace@acme.test', role: 'reader' as const, added_at: t0 + 60 };
  const linus = { id: 'user-linus', name: 'Linus T', email: 'linus@acme.test', role: 'reader' as const, added_at: t0 + 120 };
  const owner = (u: OUser) => ({ type: 'user' as const, user: { id: u.id, name: u.name, email: u.email, role: 'owner', created_at: u.added_at } });
  const d = (n: number) => addDays(end, n);
  const completion = (day: string, project: string, user: string | null, key: string, model: string, input: number, output: number, requests: number, cached = 0): OUsage => ({
    day,
    project_id: project,
    user_id: user,
    api_key_id: key,
    model,
    counters: { input_tokens: input, output_tokens: output, input_cached_tokens: cached, input_audio_tokens: 0, output_audio_tokens: 0, num_model_requests: requests },
  });
  return {
    org: 'org-acme123',
    users: [ada, grace, linus],
    projects: [
      { id: 'proj_growth', name: 'Growth', created_at: t0, archived_at: null, status: 'active' },
      { id: 'proj_research', name: 'Research', created_at: t0 + 10, archived_at: null, status: 'active' },
      { id: 'proj_old', name: 'Old pilot', created_at: t0 + 20, archived_at: t0 + 3 * DAY, status: 'archived' },
    ],
    keys: {
      proj_growth: [
        { id: 'key_growth1', name: 'Growth backend', redacted_value: 'sk-proj-...abcd', created_at: t0 + 100, last_used_at: dayStart(end) + 60, owner: owner(ada) },
        {
          id: 'key_growth2',
          name: 'Batch jobs',
          redacted_value: 'sk-svcacct-...wxyz',
          created_at: t0 + 200,
          last_used_at: null,
          owner: { type: 'service_account', service_account: { id: 'svc_growth_bot', name: 'growth-bot', role: 'member', created_at: t0 + 150 } },
        },
      ],
      proj_research: [{ id: 'key_research1', name: 'Notebook', redacted_value: 'sk-proj-...r3s4', created_at: t0 + 300, last_used_at: null, owner: owner(grace) }],
      proj_old: [{ id: 'key_old', name: 'Pilot', redacted_value: 'sk-proj-...0ld0', created_at: t0 + 30, last_used_at: null, owner: owner(ada) }],
    },
    serviceAccounts: {
      proj_growth: [{ id: 'svc_growth_bot', name: 'growth-bot', role: 'member', created_at: t0 + 150 }],
      proj_research: [{ id: 'svc_research_ci', name: 'research-ci', role: 'member', created_at: t0 + 400 }],
    },
    usage: {
      completions: [
        completion(d(-2), 'proj_growth', 'user-ada', 'key_growth1', 'gpt-4.1', 900_000, 200_000, 600, 100_000),
        completion(d(-1), 'proj_growth', 'user-ada', 'key_growth1', 'gpt-4.1', 1_000_000, 250_000, 700, 150_000),
        completion(d(-1), 'proj_growth', 'user-linus', 'key_growth1', 'gpt-4.1', 200_000, 50_000, 112),
        completion(d(-1), 'proj_growth', null, 'key_growth2', 'gpt-4.1-mini', 50_000, 5_000, 40),
        completion(d(-1), 'proj_research', 'user-grace', 'key_research1', 'o3', 30_000, 12_000, 9),
        completion(d(0), 'proj_growth', 'user-ada', 'key_growth1', 'gpt-4.1', 100_000, 20_000, 50),
      ],
      embeddings: [{ day: d(-1), project_id: 'proj_research', user_id: 'user-grace', api_key_id: 'key_research1', model: 'text-embedding-3-small', counters: { input_tokens: 80_000, num_model_requests: 20 } }],
      images: [{ day: d(-2), project_id: 'proj_research', user_id: 'user-grace', api_key_id: 'key_research1', model: 'gpt-image-1', counters: { images: 4, num_model_requests: 4 } }],
      audio_speeches: [],
      audio_transcriptions: [],
      moderations: [],
      vector_stores: [{ day: d(-1), project_id: 'proj_research', user_id: null, api_key_id: null, model: null, counters: { usage_bytes: 1_048_576 } }],
    },
    costs: [
      { day: d(-2), project_id: 'proj_growth', api_key_id: 'key_growth1', line_item: 'gpt-4.1, input', value: 1.8, quantity: 900_000, quantity_unit: 'tokens' },
      { day: d(-1), project_id: 'proj_growth', api_key_id: 'key_growth1', line_item: 'gpt-4.1, input', value: 2.4, quantity: 1_200_000, quantity_unit: 'tokens' },
      { day: d(-1), project_id: 'proj_growth', api_key_id: 'key_growth1', line_item: 'gpt-4.1, output', value: 0.7, quantity: 300_000, quantity_unit: 'tokens' },
      { day: d(-1), project_id: 'proj_research', api_key_id: null, line_item: 'vector store storage', value: 0.1 },
    ],
    audit: [
      {
        id: 'audit_log-001',
        type: 'project.created',
        effective_at: dayStart(d(-3)) + 3600,
        actor: { type: 'session', session: { user: { id: 'user-ada', email: 'ada@acme.test' }, ip_address: '203.0.113.7' } },
        'project.created': { id: 'proj_research', data: { name: 'Research', title: 'Research' } },
      },
      {
        id: 'audit_log-002',
        type: 'api_key.created',
        effective_at: dayStart(d(-2)) + 7200,
        actor: { type: 'session', session: { user: { id: 'user-grace', email: 'grace@acme.test' }, ip_address: '198.51.100.4' } },
        project: { id: 'proj_research', name: 'Research' },
        'api_key.created': { id: 'key_research1', data: { scopes: ['api.model.request'] } },
      },
      {
        id: 'audit_log-003',
        type: 'login.succeeded',
        effective_at: dayStart(d(-1)) + 600,
        actor: { type: 'session', session: { user: { id: 'user-linus', email: 'linus@acme.test' }, ip_address: '192.0.2.1' } },
      },
    ],
  };
}

const err = (status: number, message: string, type: string, code: string | null, param: string | null = null): FakeReply => ({ status, json: { error: { message, type, param, code } } });

const SUMMED: Record<FakeUsageType, string> = {
  completions: 'organization.usage.completions.result',
  embeddings: 'organization.usage.embeddings.result',
  images: 'organization.usage.images.result',
  audio_speeches: 'organization.usage.audio_speeches.result',
  audio_transcriptions: 'organization.usage.audio_transcriptions.result',
  moderations: 'organization.usage.moderations.result',
  vector_stores: 'organization.usage.vector_stores.result',
};
const GROUPABLE: Record<FakeUsageType | 'costs', string[]> = {
  completions: ['project_id', 'user_id', 'api_key_id', 'model', 'batch', 'service_tier'],
  embeddings: ['project_id', 'user_id', 'api_key_id', 'model'],
  images: ['project_id', 'user_id', 'api_key_id', 'model', 'size', 'source'],
  audio_speeches: ['project_id', 'user_id', 'api_key_id', 'model'],
  audio_transcriptions: ['project_id', 'user_id', 'api_key_id', 'model'],
  moderations: ['project_id', 'user_id', 'api_key_id', 'model'],
  vector_stores: ['project_id'],
  costs: ['project_id', 'line_item', 'api_key_id'],
};

export async function startFakeOpenAI(data: OpenAIData = seedOpenAI(), opts: { listCap?: number; bucketCap?: number } = {}): Promise<FakeOpenAI> {
  const adminKey = 'sk-admin-Fake0123456789abcdefABCDEF';
  const projectKey = 'sk-proj-Fake0123456789abcdefABCDEF';
  const usageQueries: { path: string; query: URLSearchParams }[] = [];
  const redact = (k: string | null) => (k ? `${k.slice(0, 3)}...${k.slice(-4)}` : '');
  const fake = new VendorFake({
    name: 'OpenAI',
    tokens: [adminKey],
    unauthorized: (req) =>
      req.token === projectKey
        ? err(
            403,
            "You have insufficient permissions for this operation. Missing scopes: api.management.read. Check that you have the correct role in your organization (Owner), and if you're using a restricted API key, that it has the necessary scopes.",
            'invalid_request_error',
            null,
          )
        : err(401, `Incorrect API key provided: ${redact(req.token)}. You can find your API key at https://platform.openai.com/account/api-keys.`, 'invalid_request_error', 'invalid_api_key'),
    rateLimited: () => ({
      ...err(429, 'Rate limit reached for requests on the organization. Please try again in 1s.', 'requests', 'rate_limit_exceeded'),
      headers: { 'x-ratelimit-limit-requests': '60', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1s' },
    }),
    serverError: (status) => err(status, 'The server had an error while processing your request. Sorry about that!', 'server_error', null),
  });
  let requestNo = 0;
  const ok = (json: unknown): FakeReply => ({
    json,
    headers: {
      'openai-organization': data.org,
      'openai-version': '2020-10-01',
      'x-request-id': `req_${++requestNo}`,
      'x-ratelimit-limit-requests': '60',
      'x-ratelimit-remaining-requests': '59',
      'x-ratelimit-reset-requests': '1s',
    },
  });
  const limitOf = (req: FakeRequest, dflt: number, max: number): number | FakeReply => {
    const raw = req.query.get('limit');
    const n = raw === null ? dflt : Number(raw);
    if (!Number.isInteger(n) || n < 1 || n > max) return err(400, `Invalid 'limit': must be between 1 and ${max}.`, 'invalid_request_error', 'invalid_value', 'limit');
    return n;
  };
  /** `after`-paged list of objects with ids. */
  const list = <T extends { id: string }>(req: FakeRequest, items: readonly T[], object: string): FakeReply => {
    const limit = limitOf(req, 20, 100);
    if (typeof limit !== 'number') return limit;
    const cap = Math.min(limit, opts.listCap ?? limit);
    const after = req.query.get('after');
    let start = 0;
    if (after) {
      const i = items.findIndex((x) => x.id === after);
      if (i < 0) return err(400, `Invalid 'after': no object with id '${after}'.`, 'invalid_request_error', 'invalid_value', 'after');
      start = i + 1;
    }
    const page = items.slice(start, start + cap).map((x) => ({ object, ...x }));
    return ok({ object: 'list', data: page, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: start + cap < items.length });
  };

  fake.route('GET', '/organization/users', (req) => list(req, data.users, 'organization.user'));
  fake.route('GET', '/organization/projects', (req) =>
    list(
      req,
      data.projects.filter((p) => req.query.get('include_archived') === 'true' || p.status !== 'archived'),
      'organization.project',
    ),
  );
  const project = (id: string) => data.projects.find((p) => p.id === id);
  const notFound = (id: string) => err(404, `No such project: ${id}`, 'invalid_request_error', null);
  fake.route('GET', '/organization/projects/:id/api_keys', (req) => {
    if (!project(req.params.id ?? '')) return notFound(req.params.id ?? '');
    return list(req, data.keys[req.params.id ?? ''] ?? [], 'organization.project.api_key');
  });
  fake.route('GET', '/organization/projects/:id/service_accounts', (req) => {
    if (!project(req.params.id ?? '')) return notFound(req.params.id ?? '');
    return list(req, data.serviceAccounts[req.params.id ?? ''] ?? [], 'organization.project.service_account');
  });

  fake.route('GET', '/organization/audit_logs', (req) => {
    const q = req.query;
    const bound = (name: string) => (q.get(`effective_at[${name}]`) === null ? null : Number(q.get(`effective_at[${name}]`)));
    const [gte, gt, lte, lt] = [bound('gte'), bound('gt'), bound('lte'), bound('lt')];
    const types = q.getAll('event_types[]');
    const events = [...data.audit]
      .filter((e) => (gte === null || e.effective_at >= gte) && (gt === null || e.effective_at > gt) && (lte === null || e.effective_at <= lte) && (lt === null || e.effective_at < lt))
      .filter((e) => !types.length || types.includes(e.type))
      .sort((a, b) => b.effective_at - a.effective_at || b.id.localeCompare(a.id));
    return list(req, events, 'organization.audit_log');
  });

  /** Daily buckets over [start_time, end_time), results grouped by `group_by` (others null) and summed. */
  const buckets = (req: FakeRequest, report: FakeUsageType | 'costs'): FakeReply => {
    usageQueries.push({ path: req.path, query: new URLSearchParams(req.query) });
    const q = req.query;
    if (q.get('start_time') === null) return err(400, "Missing required parameter: 'start_time'.", 'invalid_request_error', 'missing_required_parameter', 'start_time');
    const startTime = Number(q.get('start_time'));
    const endTime = q.get('end_time') === null ? Math.ceil(Date.now() / 1000) : Number(q.get('end_time'));
    if ((q.get('bucket_width') ?? '1d') !== '1d') return err(400, 'The fake serves bucket_width=1d only.', 'invalid_request_error', 'invalid_value', 'bucket_width');
    const limit = limitOf(req, 7, report === 'costs' ? 180 : 31);
    if (typeof limit !== 'number') return limit;
    const groupBy = q.getAll('group_by').flatMap((g) => g.split(',')).filter(Boolean);
    const bad = groupBy.find((g) => !GROUPABLE[report].includes(g));
    if (bad) return err(400, `Invalid value for 'group_by': '${bad}'.`, 'invalid_request_error', 'invalid_value', 'group_by');
    // Buckets snap to the UTC day of start_time; the page token is the next bucket's start.
    const first = Math.floor(startTime / DAY) * DAY;
    const pageFrom = q.get('page') ? Number(Buffer.from(q.get('page') ?? '', 'base64url').toString('utf8')) : first;
    const cap = Math.min(limit, opts.bucketCap ?? limit);
    const out: unknown[] = [];
    let t = pageFrom;
    for (; t < endTime && out.length < cap; t += DAY) {
      const day = new Date(t * 1000).toISOString().slice(0, 10);
      const grouped = new Map<string, Record<string, unknown>>();
      if (report === 'costs') {
        for (const c of data.costs.filter((x) => x.day === day)) {
          const dims: Record<string, unknown> = { project_id: null, line_item: null, api_key_id: null };
          for (const g of groupBy) dims[g] = (c as unknown as Record<string, unknown>)[g] ?? null;
          const key = JSON.stringify(dims);
          const cur = grouped.get(key) ?? { object: 'organization.costs.result', amount: { value: 0, currency: 'usd' }, ...dims, quantity: null, quantity_unit: null };
          (cur.amount as { value: number }).value = Math.round(((cur.amount as { value: number }).value + c.value) * 1e6) / 1e6;
          if (groupBy.includes('line_item') && c.quantity !== undefined) Object.assign(cur, { quantity: c.quantity, quantity_unit: c.quantity_unit ?? null });
          grouped.set(key, cur);
        }
      } else {
        for (const u of data.usage[report].filter((x) => x.day === day)) {
          const dims: Record<string, unknown> =
            report === 'vector_stores' ? { project_id: null } : { project_id: null, user_id: null, api_key_id: null, model: null, ...(report === 'completions' ? { batch: null } : {}) };
          for (const g of groupBy) if (g in dims) dims[g] = (u as unknown as Record<string, unknown>)[g] ?? null;
          const key = JSON.stringify(dims);
          const cur = grouped.get(key) ?? { object: SUMMED[report], ...Object.fromEntries(Object.keys(u.counters).map((k) => [k, 0])), ...dims };
          for (const [k, v] of Object.entries(u.counters)) cur[k] = Number(cur[k] ?? 0) + v;
          grouped.set(key, cur);
        }
      }
      out.push({ object: 'bucket', start_time: t, end_time: t + DAY, results: [...grouped.values()] });
    }
    const more = t < endTime;
    return ok({ object: 'page', data: out, has_more: more, next_page: more ? Buffer.from(String(t)).toString('base64url') : null });
  };
  for (const report of Object.keys(SUMMED) as FakeUsageType[]) fake.route('GET', `/organization/usage/${report}`, (req) => buckets(req, report));
  fake.route('GET', '/organization/costs', (req) => buckets(req, 'costs'));

  await fake.start();
  let n = 0;
  return {
    url: fake.url,
    adminKey,
    projectKey,
    data,
    fake,
    usageQueries,
    caps: opts,
    addAudit(type, detail, actorEmail = 'ada@acme.test') {
      const latest = Math.max(...data.audit.map((e) => e.effective_at));
      const user = data.users.find((u) => u.email.toLowerCase() === actorEmail.toLowerCase());
      const e: OAudit = { id: `audit_log-new${++n}`, type, effective_at: latest + 1, actor: { type: 'session', session: { user: { id: user?.id ?? 'user-unknown', email: actorEmail }, ip_address: '203.0.113.9' } }, [type]: detail };
      data.audit.push(e);
      return e;
    },
    close: () => fake.close(),
  };
}
