import { buildSchema, graphql } from 'graphql';
import { oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local monday.com GraphQL API fake (POST /v2), executed by graphql-js against the subset of monday's schema the
 * connector uses (developer.monday.com/api-reference): `me { account }`, `boards(ids, limit, page, state, order_by,
 * workspace_ids)` with `board_kind`, `type`, `owners`, `subscribers`, `items_page(limit, cursor, query_params)` and root
 * `next_items_page(cursor, limit)` (opaque cursors, null after the last page), items' `column_values { text column {
 * title } }` and `updates(limit) { replies }`, and `query_params.rules` on `__last_updated__` (`["EXACT",
 * "YYYY-MM-DD"]`, `greater_than` / `lower_than`, `compare_attribute: "UPDATED_AT"`, day precision). The token comes in
 * `Authorization` (bare or Bearer); the `API-Version` header is required. Errors: 401 `UNAUTHENTICATED`, limits as
 * HTTP 429 with `COMPLEXITY_BUDGET_EXHAUSTED` and `retry_in_seconds` (or, `style: 'graphql'`, HTTP 200 with the error).
 */
const SDL = `
scalar Date
scalar JSON
scalar CompareValue
enum State { active all archived deleted }
enum BoardKind { public private share }
enum BoardObjectType { board sub_items_board document custom_object }
enum BoardsOrderBy { created_at used_at }
enum ItemsQueryRuleOperator { any_of not_any_of is_empty is_not_empty greater_than greater_than_or_equals lower_than lower_than_or_equal between }
enum ItemsQueryOperator { and or }
input ItemsQueryRule { column_id: ID! compare_value: CompareValue! operator: ItemsQueryRuleOperator compare_attribute: String }
input ItemsQuery { rules: [ItemsQueryRule!] operator: ItemsQueryOperator ids: [ID!] }
type Account { id: ID! name: String! slug: String! }
type User { id: ID! name: String! email: String! account: Account! }
type Workspace { id: ID name: String! }
type Column { id: ID! title: String! type: String! }
type ColumnValue { id: ID! text: String type: String! value: JSON column: Column! }
type Group { id: ID! title: String! }
type Reply { id: ID! text_body: String body: String! created_at: Date creator: User }
type Update { id: ID! text_body: String body: String! created_at: Date updated_at: Date creator: User replies: [Reply!] }
type Item { id: ID! name: String! created_at: Date updated_at: Date state: State url: String! creator: User group: Group column_values(ids: [String!]): [ColumnValue!]! updates(limit: Int, page: Int): [Update!] }
type ItemsResponse { cursor: String items: [Item!]! }
type Board { id: ID! name: String! description: String board_kind: BoardKind! type: BoardObjectType state: State! updated_at: Date url: String!
  workspace: Workspace owners: [User]! subscribers: [User]! items_page(limit: Int! = 25, cursor: String, query_params: ItemsQuery): ItemsResponse! }
type Query {
  me: User
  boards(ids: [ID!], limit: Int = 25, page: Int = 1, state: State = active, order_by: BoardsOrderBy, workspace_ids: [ID]): [Board]
  next_items_page(limit: Int! = 25, cursor: String!): ItemsResponse!
}
`;

export interface MUser {
  id: string;
  name: string;
  email: string;
}
export interface MUpdate {
  id: string;
  text: string;
  creator: MUser;
  created_at: string;
  replies: { id: string; text: string; creator: MUser; created_at: string }[];
}
export interface MItem {
  id: string;
  boardId: string;
  name: string;
  group: string;
  columns: Record<string, string>;
  creator: MUser;
  created_at: string;
  updated_at: string;
  updates: MUpdate[];
}
export interface MBoard {
  id: string;
  name: string;
  description: string;
  kind: 'public' | 'private' | 'share';
  type?: 'board' | 'sub_items_board';
  workspace: { id: string; name: string };
  owners: MUser[];
  subscribers: MUser[];
  columns: { id: string; title: string; type: string }[];
  updated_at: string;
}
export interface MondayData {
  me: MUser;
  account: { id: string; name: string; slug: string };
  boards: MBoard[];
  items: MItem[];
}

export interface FakeMonday {
  readonly url: string;
  readonly token: string;
  readonly data: MondayData;
  readonly fake: VendorFake;
  /** Every GraphQL call: its query text and variables. */
  readonly calls: { query: string; variables: Record<string, unknown>; apiVersion: string | undefined }[];
  /** A time later than every earlier one (ISO), for edits after a sync. */
  tick(): string;
  /** The next `count` calls answer the complexity budget error (`http`: HTTP 429, `graphql`: HTTP 200 with the error). */
  rateLimitNext(count: number, seconds?: number, style?: 'http' | 'graphql'): void;
  close(): Promise<void>;
}

const BASE = Date.UTC(2026, 0, 5, 9, 0, 0);
const at = (min: number) => new Date(BASE + min * 60_000).toISOString();

export function seedMonday(): MondayData {
  const ada: MUser = { id: '501', name: 'Ada Lovelace', email: 'Ada@acme.test' };
  const grace: MUser = { id: '502', name: 'Grace Hopper', email: 'grace@acme.test' };
  const cols = [
    { id: 'name', title: 'Name', type: 'name' },
    { id: 'status', title: 'Status', type: 'status' },
    { id: 'person', title: 'Owner', type: 'people' },
    { id: 'date4', title: 'Due date', type: 'date' },
    { id: 'text', title: 'Notes', type: 'text' },
  ];
  return {
    me: ada,
    account: { id: '77', name: 'Acme', slug: 'acme' },
    boards: [
      { id: '1001', name: 'Roadmap', description: 'Product roadmap for 2026.', kind: 'public', workspace: { id: '11', name: 'Product' }, owners: [ada], subscribers: [ada, grace], columns: cols, updated_at: at(1) },
      { id: '1002', name: 'Hiring', description: 'Open positions.', kind: 'private', workspace: { id: '12', name: 'People' }, owners: [grace], subscribers: [grace], columns: cols, updated_at: at(2) },
      { id: '1003', name: 'Subitems of Roadmap', description: '', kind: 'public', type: 'sub_items_board', workspace: { id: '11', name: 'Product' }, owners: [ada], subscribers: [ada], columns: cols, updated_at: at(3) },
    ],
    items: [
      {
        id: '2001',
        boardId: '1001',
        name: 'SSO for enterprise plans',
        group: 'Q1',
        columns: { status: 'Working on it', person: 'Grace Hopper', date4: '2026-03-31', text: 'SAML first, then OIDC.' },
        creator: ada,
        created_at: at(10),
        updated_at: at(11),
        updates: [
          { id: '3001', text: 'Security review booked for February.', creator: grace, created_at: at(12), replies: [{ id: '3101', text: 'Thanks, I will prepare the threat model.', creator: ada, created_at: at(13) }] },
          { id: '3002', text: 'Customer Globex asked for SCIM too.', creator: ada, created_at: at(14), replies: [] },
        ],
      },
      { id: '2002', boardId: '1001', name: 'Usage-based billing', group: 'Q2', columns: { status: 'Stuck', person: '', date4: '', text: '' }, creator: grace, created_at: at(15), updated_at: at(15), updates: [] },
      { id: '2003', boardId: '1001', name: 'Mobile offline mode', group: 'Q2', columns: { status: 'Done', person: 'Ada Lovelace', date4: '', text: 'Shipped in 5.0.' }, creator: ada, created_at: at(16), updated_at: at(16), updates: [] },
      { id: '2004', boardId: '1002', name: 'Staff engineer, platform', group: 'Open', columns: { status: 'Interviewing', person: 'Grace Hopper', date4: '', text: 'Two finalists.' }, creator: grace, created_at: at(17), updated_at: at(17), updates: [{ id: '3003', text: 'Offer approved by the board.', creator: grace, created_at: at(18), replies: [] }] },
    ],
  };
}

interface RuleArg {
  column_id: string;
  compare_value: unknown;
  operator?: string;
  compare_attribute?: string;
}

/** monday's last-updated filter: dates compared by day (UTC here), `EXACT` followed by `YYYY-MM-DD`. */
function matchesRules(i: MItem, rules: RuleArg[] | undefined): boolean {
  for (const r of rules ?? []) {
    if (r.column_id !== '__last_updated__') throw new Error(`fake supports only __last_updated__ rules, got ${r.column_id}`);
    const v = Array.isArray(r.compare_value) ? r.compare_value : [];
    if (v[0] !== 'EXACT' || typeof v[1] !== 'string' || !/^\d{4}-\d\d-\d\d$/.test(v[1])) throw new Error('compare_value must be ["EXACT", "YYYY-MM-DD"]');
    if (r.compare_attribute !== 'UPDATED_AT') throw new Error('compare_attribute must be UPDATED_AT for the last updated column');
    const day = i.updated_at.slice(0, 10);
    if (r.operator === 'greater_than' && !(day > v[1])) return false;
    if (r.operator === 'lower_than' && !(day < v[1])) return false;
  }
  return true;
}

export async function startFakeMonday(data: MondayData = seedMonday(), opts: { itemsPerPage?: number } = {}): Promise<FakeMonday> {
  const token = 'eyJhbGciOiJIUzI1NiJ9.eyJ0aWQiOjUwMSwiYWFpIjoxMSwidWlkIjo1MDF9.fake-monday-token';
  const schema = buildSchema(SDL);
  const calls: FakeMonday['calls'] = [];
  let clock = BASE + 1000 * 60_000;
  let limitStyle: 'http' | 'graphql' = 'http';
  const cursors = new Map<string, { boardId: string; ids: string[]; start: number }>();
  let cursorSeq = 0;
  const user = (u: MUser) => ({ ...u, account: data.account });
  const itemJson = (i: MItem) => {
    const b = data.boards.find((x) => x.id === i.boardId);
    return {
      id: i.id,
      name: i.name,
      created_at: i.created_at,
      updated_at: i.updated_at,
      state: 'active',
      url: `https://${data.account.slug}.monday.com/boards/${i.boardId}/pulses/${i.id}`,
      creator: user(i.creator),
      group: { id: i.group.toLowerCase(), title: i.group },
      column_values: (b?.columns ?? []).map((c) => ({ id: c.id, type: c.type, text: c.id === 'name' ? i.name : (i.columns[c.id] ?? ''), value: null, column: c })),
      updates: ({ limit }: { limit?: number }) =>
        i.updates.slice(0, limit ?? 25).map((u) => ({
          id: u.id,
          text_body: u.text,
          body: `<p>${u.text}</p>`,
          created_at: u.created_at,
          updated_at: u.created_at,
          creator: user(u.creator),
          replies: u.replies.map((r) => ({ id: r.id, text_body: r.text, body: `<p>${r.text}</p>`, created_at: r.created_at, creator: user(r.creator) })),
        })),
    };
  };
  const pageOf = (state: { boardId: string; ids: string[]; start: number }, limit: number) => {
    const size = Math.min(limit, opts.itemsPerPage ?? 500);
    const ids = state.ids.slice(state.start, state.start + size);
    let cursor: string | null = null;
    if (state.start + size < state.ids.length) {
      cursor = `MSw${++cursorSeq}fakecursor`;
      cursors.set(cursor, { ...state, start: state.start + size });
    }
    return { cursor, items: ids.map((id) => data.items.find((x) => x.id === id)).filter((x): x is MItem => Boolean(x)).map(itemJson) };
  };
  const boardJson = (b: MBoard) => ({
    id: b.id,
    name: b.name,
    description: b.description,
    board_kind: b.kind,
    type: b.type ?? 'board',
    state: 'active',
    updated_at: b.updated_at,
    url: `https://${data.account.slug}.monday.com/boards/${b.id}`,
    workspace: b.workspace,
    owners: b.owners.map(user),
    subscribers: b.subscribers.map(user),
    items_page: ({ limit, query_params }: { limit: number; query_params?: { rules?: RuleArg[] } }) => {
      if (limit > 500) throw new Error('limit must be at most 500');
      const ids = data.items.filter((i) => i.boardId === b.id && matchesRules(i, query_params?.rules)).map((i) => i.id);
      return pageOf({ boardId: b.id, ids, start: 0 }, limit);
    },
  });
  const root = {
    me: () => user(data.me),
    boards: ({ ids, limit, page, workspace_ids }: { ids?: string[] | null; limit: number; page: number; workspace_ids?: string[] | null }) => {
      const list = data.boards.filter((b) => (!ids || ids.includes(b.id)) && (!workspace_ids || workspace_ids.includes(b.workspace.id)));
      return list.slice((page - 1) * limit, page * limit).map(boardJson);
    },
    next_items_page: ({ cursor, limit }: { cursor: string; limit: number }) => {
      const state = cursors.get(cursor);
      if (!state) throw new Error('CursorException: cursor has expired or is invalid');
      return pageOf(state, limit);
    },
  };
  const limitBody = (seconds: number) => ({ errors: [{ message: 'Complexity budget exhausted', extensions: { code: 'COMPLEXITY_BUDGET_EXHAUSTED', retry_in_seconds: seconds } }], account_id: Number(data.account.id) });
  const fake = new VendorFake({
    name: 'monday.com',
    // A second user's token keeps the token check on after the first is revoked.
    tokens: [token, 'grace-monday-token-000000000000000000000'],
    tokenOf: ({ headers }) => {
      const h = headers.authorization;
      return h ? h.replace(/^Bearer /, '') : null;
    },
    publicPath: (path) => path === '/oauth2/token',
    unauthorized: () => ({ status: 401, json: { errors: [{ message: 'Not Authenticated', extensions: { code: 'UNAUTHENTICATED', status_code: 401 } }] } }),
    rateLimited: (seconds) => (limitStyle === 'http' ? { status: 429, headers: { 'retry-after': '' }, json: limitBody(seconds) } : { status: 200, headers: { 'retry-after': '' }, json: limitBody(seconds) }),
    serverError: (status) => ({ json: { errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR', status_code: status } }] } }),
  });
  fake.route('POST', '/v2', async (req) => {
    const apiVersion = typeof req.headers['api-version'] === 'string' ? req.headers['api-version'] : undefined;
    const body = (req.body ?? {}) as { query?: string; variables?: Record<string, unknown> };
    calls.push({ query: body.query ?? '', variables: body.variables ?? {}, apiVersion });
    if (!apiVersion || !/^\d{4}-\d\d$/.test(apiVersion)) return { status: 400, json: { errors: [{ message: 'Missing or invalid API-Version header', extensions: { code: 'INVALID_VERSION' } }] } };
    const result = await graphql({ schema, source: body.query ?? '', rootValue: root, variableValues: body.variables });
    if (result.errors && result.errors.length > 0) {
      // Application-level errors are HTTP 200 with an errors array (and partial data).
      return { json: { data: result.data ?? null, errors: result.errors.map((e) => ({ message: e.message, path: e.path, extensions: { code: 'GRAPHQL_ERROR' } })), account_id: Number(data.account.id) } };
    }
    return { json: { data: result.data, account_id: Number(data.account.id) } };
  });
  let issued = 0;
  fake.route('POST', '/oauth2/token', oauthTokenEndpoint(fake, { code: 'monday-code', issue: () => ({ access_token: `monday-oauth-${++issued}-0000000000000000` }) }));
  await fake.start();
  return {
    get url() {
      return fake.url;
    },
    token,
    data,
    fake,
    calls,
    tick() {
      clock += 60_000;
      return new Date(clock).toISOString();
    },
    rateLimitNext(count, seconds = 1, style = 'http') {
      limitStyle = style;
      fake.rateLimitNext(count, seconds);
    },
    close: () => fake.close(),
  };
}
