import { type FakeReply, type FakeRequest, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local Trello REST API fake, speaking the wire format of developer.atlassian.com/cloud/trello/rest:
 * `GET /1/members/me`, `GET /1/members/me/boards?filter=&fields=`, `GET /1/boards/{id}/lists`,
 * `GET /1/boards/{id}/cards?fields=&checklists=all&members=true`, `GET /1/boards/{id}/actions?filter=&limit=&before=`
 * (newest first, `limit` ≤ 1000) and `GET /1/cards/{id}/actions`; bare JSON arrays and objects, `fields` honoured,
 * 24-hex ObjectIds whose first 8 digits are the creation time. Credentials: `Authorization: OAuth
 * oauth_consumer_key="…", oauth_token="…"`, the `key`/`token` query parameters, or a bearer token (OAuth 2.0).
 * Errors: 401 with a plain-text reason ("invalid token"), 429 `{ error: "API_TOKEN_LIMIT_EXCEEDED", message }` without
 * Retry-After.
 */
export interface TMember {
  id: string;
  fullName: string;
  username: string;
}
export interface TBoard {
  id: string;
  name: string;
  desc: string;
  closed: boolean;
  idOrganization: string | null;
  permissionLevel: 'private' | 'org' | 'public';
  dateLastActivity: string;
  members: [string, 'admin' | 'normal'][];
}
export interface TList {
  id: string;
  idBoard: string;
  name: string;
}
export interface TCard {
  id: string;
  idBoard: string;
  idList: string;
  idShort: number;
  name: string;
  desc: string;
  due: string | null;
  dueComplete: boolean;
  dateLastActivity: string;
  labels: { name: string; color: string }[];
  idMembers: string[];
  checklists: { id: string; name: string; pos: number; checkItems: { id: string; name: string; state: 'complete' | 'incomplete'; pos: number }[] }[];
}
export interface TAction {
  id: string;
  idBoard: string;
  idCard: string;
  type: 'commentCard' | 'createCard' | 'updateCard';
  date: string;
  idMemberCreator: string;
  text?: string;
}
export interface TrelloData {
  me: string;
  members: TMember[];
  boards: TBoard[];
  lists: TList[];
  cards: TCard[];
  /** Oldest first (the fake answers newest first, as Trello does). */
  actions: TAction[];
}

export interface FakeTrello {
  readonly url: string;
  readonly apiKey: string;
  readonly token: string;
  readonly data: TrelloData;
  readonly fake: VendorFake;
  /** A new ObjectId at a time later than every earlier one (five minutes a tick), and that time. */
  next(): { id: string; at: string };
  /** A card created now by `by` (a createCard action; card and board active now). */
  addCard(card: Partial<TCard> & { idBoard: string; idList: string; name: string }, by?: string): TCard;
  /** A comment on a card now (a commentCard action; card and board active now). */
  comment(cardId: string, text: string, by?: string): TAction;
  close(): Promise<void>;
}

const BASE = Date.UTC(2026, 0, 5, 9, 0, 0);
const STEP = 5 * 60_000;

export function objectId(ms: number, n: number): string {
  return Math.floor(ms / 1000).toString(16).padStart(8, '0') + n.toString(16).padStart(16, '0');
}

export function seedTrello(): TrelloData {
  let at = BASE;
  let n = 0;
  const id = () => {
    at += STEP;
    return objectId(at, ++n);
  };
  const now = () => new Date(at).toISOString();
  const members: TMember[] = [
    { id: id(), fullName: 'Ada Lovelace', username: 'ada' },
    { id: id(), fullName: 'Grace Hopper', username: 'grace' },
  ];
  const [ada, grace] = members.map((m) => m.id) as [string, string];
  const org = id();
  const roadmap: TBoard = { id: id(), name: 'Product roadmap', desc: 'What ships this quarter.', closed: false, idOrganization: org, permissionLevel: 'org', dateLastActivity: now(), members: [[ada, 'admin'], [grace, 'normal']] };
  const personal: TBoard = { id: id(), name: 'Ada personal', desc: '', closed: false, idOrganization: null, permissionLevel: 'private', dateLastActivity: now(), members: [[ada, 'admin']] };
  const old: TBoard = { id: id(), name: 'Old board', desc: 'Closed long ago.', closed: true, idOrganization: org, permissionLevel: 'org', dateLastActivity: now(), members: [[ada, 'admin']] };
  const lists: TList[] = [
    { id: id(), idBoard: roadmap.id, name: 'Next up' },
    { id: id(), idBoard: roadmap.id, name: 'In progress' },
    { id: id(), idBoard: personal.id, name: 'Reading' },
  ];
  const [next, doing, reading] = lists.map((l) => l.id) as [string, string, string];
  const cards: TCard[] = [];
  const actions: TAction[] = [];
  let short = 0;
  const card = (idBoard: string, idList: string, name: string, desc: string, by: string, extra: Partial<TCard> = {}) => {
    const c: TCard = { id: id(), idBoard, idList, idShort: ++short, name, desc, due: null, dueComplete: false, dateLastActivity: now(), labels: [], idMembers: [], checklists: [], ...extra };
    cards.push(c);
    actions.push({ id: objectId(at, ++n), idBoard, idCard: c.id, type: 'createCard', date: now(), idMemberCreator: by });
    return c;
  };
  const comment = (c: TCard, text: string, by: string) => {
    const a: TAction = { id: id(), idBoard: c.idBoard, idCard: c.id, type: 'commentCard', date: now(), idMemberCreator: by, text };
    actions.push(a);
    c.dateLastActivity = a.date;
  };
  const sso = card(roadmap.id, doing, 'SAML single sign-on', 'Support Okta and Entra ID as identity providers.', grace, {
    labels: [{ name: 'Security', color: 'red' }],
    idMembers: [ada, grace],
    due: '2026-03-01T17:00:00.000Z',
    checklists: [
      {
        id: id(),
        name: 'Rollout',
        pos: 16384,
        checkItems: [
          { id: id(), name: 'Metadata upload', state: 'complete', pos: 1 },
          { id: id(), name: 'Just-in-time provisioning', state: 'incomplete', pos: 2 },
        ],
      },
    ],
  });
  comment(sso, 'Entra ID needs the group claim configured first.', ada);
  card(roadmap.id, next, 'Usage-based billing', 'Meter API calls per workspace.', ada);
  card(roadmap.id, next, 'Dark mode', '', grace, { labels: [{ name: '', color: 'purple' }] });
  card(personal.id, reading, 'Read "Designing Data-Intensive Applications"', 'Chapters 5 to 9 on replication and consistency.', ada);
  personal.dateLastActivity = now();
  at += STEP;
  roadmap.dateLastActivity = now();
  return { me: ada, members, boards: [roadmap, personal, old], lists, cards, actions };
}

const pick = (obj: Record<string, unknown>, fields: string | null, always: string[] = ['id']): Record<string, unknown> => {
  if (!fields || fields === 'all') return obj;
  const keep = new Set([...always, ...fields.split(',')]);
  return Object.fromEntries(Object.entries(obj).filter(([k]) => keep.has(k)));
};

/** `maxActions`: the most actions one page holds, below the `limit` asked (to make the connector page with `before`). */
export async function startFakeTrello(data: TrelloData = seedTrello(), opts: { maxActions?: number } = {}): Promise<FakeTrello> {
  const apiKey = '0123456789abcdef0123456789abcdef';
  const token = 'ATTA0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0';
  let clock = BASE + 1000 * STEP;
  let counter = 1_000_000;
  const fake = new VendorFake({
    name: 'Trello',
    // A second member's token keeps the token check on after the first is revoked.
    tokens: [token, 'ATTAgrace'],
    tokenOf: ({ headers, query }) => {
      const h = headers.authorization;
      if (h?.startsWith('Bearer ')) return h.slice(7);
      const m = h ? /^OAuth oauth_consumer_key="([^"]*)", ?oauth_token="([^"]*)"$/.exec(h) : null;
      if (m) return m[1] === apiKey ? (m[2] ?? null) : null;
      return query.get('key') === apiKey ? query.get('token') : null;
    },
    publicPath: (path) => path === '/oauth/token',
    unauthorized: () => ({ status: 401, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'invalid token' }),
    // Trello documents no Retry-After (nor rate-limit headers) on its 429: the connector falls back to the kit's backoff.
    rateLimited: () => ({ status: 429, headers: { 'retry-after': '' }, json: { error: 'API_TOKEN_LIMIT_EXCEEDED', message: 'Rate limit exceeded' } }),
    serverError: (status) => ({ status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Internal Server Error' }),
  });
  const member = (id: string) => {
    const m = data.members.find((x) => x.id === id);
    return m ? { id: m.id, fullName: m.fullName, username: m.username } : { id, fullName: null, username: null };
  };
  const boardJson = (b: TBoard) => ({
    id: b.id,
    name: b.name,
    desc: b.desc,
    closed: b.closed,
    idOrganization: b.idOrganization,
    idEnterprise: null,
    url: `https://trello.com/b/${b.id.slice(-8)}/${b.name.toLowerCase().replace(/\W+/g, '-')}`,
    shortUrl: `https://trello.com/b/${b.id.slice(-8)}`,
    prefs: { permissionLevel: b.permissionLevel, background: 'blue', comments: 'members' },
    dateLastActivity: b.dateLastActivity,
    memberships: b.members.map(([idMember, memberType], i) => ({ id: `${b.id.slice(0, 16)}${String(i).padStart(8, '0')}`, idMember, memberType, unconfirmed: false, deactivated: false })),
  });
  const actionJson = (a: TAction) => {
    const c = data.cards.find((x) => x.id === a.idCard);
    const b = data.boards.find((x) => x.id === a.idBoard);
    return {
      id: a.id,
      idMemberCreator: a.idMemberCreator,
      type: a.type,
      date: a.date,
      data: { ...(a.text !== undefined ? { text: a.text } : {}), card: { id: a.idCard, name: c?.name, idShort: c?.idShort, shortLink: a.idCard.slice(-8) }, board: { id: a.idBoard, name: b?.name, shortLink: a.idBoard.slice(-8) } },
      memberCreator: member(a.idMemberCreator),
    };
  };
  const actionList = (req: FakeRequest, rows: TAction[]): FakeReply => {
    const limit = Number(req.query.get('limit') ?? 50);
    if (!Number.isInteger(limit) || limit < 0 || limit > 1000) return { status: 400, headers: { 'content-type': 'text/plain' }, body: 'invalid value for limit' };
    const types = (req.query.get('filter') ?? 'all').split(',');
    const before = req.query.get('before');
    const since = req.query.get('since');
    let hits = rows.filter((a) => types.includes('all') || types.includes(a.type)).reverse();
    if (before) {
      const i = hits.findIndex((a) => a.id === before);
      hits = i >= 0 ? hits.slice(i + 1) : hits.filter((a) => Date.parse(a.date) < Date.parse(before));
    }
    if (since) hits = hits.filter((a) => (/^[0-9a-f]{24}$/.test(since) ? a.id > since : Date.parse(a.date) > Date.parse(since)));
    return { json: hits.slice(0, Math.min(limit, opts.maxActions ?? 1000)).map(actionJson) };
  };
  const notFound = (what: string): FakeReply => ({ status: 404, headers: { 'content-type': 'text/plain' }, body: `The requested resource was not found. (${what})` });

  fake.route('GET', '/1/members/me', (req) => ({ json: pick({ ...member(data.me), email: null, url: `https://trello.com/u/${member(data.me).username}`, idBoards: data.boards.map((b) => b.id) }, req.query.get('fields')) }));
  fake.route('GET', '/1/members/me/boards', (req) => {
    const filter = req.query.get('filter') ?? 'all';
    const rows = data.boards.filter((b) => b.members.some(([m]) => m === data.me) && (filter === 'all' || (filter === 'open' ? !b.closed : filter === 'closed' ? b.closed : true)));
    return { json: rows.map((b) => pick(boardJson(b), req.query.get('fields'))) };
  });
  fake.route('GET', '/1/boards/:id/lists', (req) => {
    if (!data.boards.some((b) => b.id === req.params.id)) return notFound('board');
    return { json: data.lists.filter((l) => l.idBoard === req.params.id).map((l, i) => pick({ id: l.id, name: l.name, closed: false, idBoard: l.idBoard, pos: 16384 * (i + 1) }, req.query.get('fields'))) };
  });
  fake.route('GET', '/1/boards/:id/cards', (req) => {
    if (!data.boards.some((b) => b.id === req.params.id)) return notFound('board');
    const q = req.query;
    const rows = data.cards.filter((c) => c.idBoard === req.params.id);
    return {
      json: rows.map((c) => ({
        ...pick(
          {
            id: c.id,
            idBoard: c.idBoard,
            idList: c.idList,
            idShort: c.idShort,
            name: c.name,
            desc: c.desc,
            closed: false,
            due: c.due,
            dueComplete: c.dueComplete,
            dateLastActivity: c.dateLastActivity,
            url: `https://trello.com/c/${c.id.slice(-8)}/${c.idShort}-${c.name.toLowerCase().replace(/\W+/g, '-')}`,
            shortUrl: `https://trello.com/c/${c.id.slice(-8)}`,
            labels: c.labels.map((l, i) => ({ id: `${c.id.slice(0, 20)}${String(i).padStart(4, '0')}`, idBoard: c.idBoard, ...l })),
            idMembers: c.idMembers,
            pos: 1,
          },
          q.get('fields'),
        ),
        ...(q.get('checklists') === 'all' ? { checklists: c.checklists.map((cl) => ({ ...pick({ id: cl.id, name: cl.name, pos: cl.pos, idCard: c.id, idBoard: c.idBoard }, q.get('checklist_fields')), checkItems: cl.checkItems.map((i) => ({ ...i, idChecklist: cl.id })) })) } : {}),
        ...(q.get('members') === 'true' ? { members: c.idMembers.map((m) => pick(member(m), q.get('member_fields'))) } : {}),
      })),
    };
  });
  fake.route('GET', '/1/boards/:id/actions', (req) => actionList(req, data.actions.filter((a) => a.idBoard === req.params.id)));
  fake.route('GET', '/1/cards/:id/actions', (req) => {
    if (!data.cards.some((c) => c.id === req.params.id)) return notFound('card');
    return actionList(req, data.actions.filter((a) => a.idCard === req.params.id));
  });
  let issued = 0;
  fake.route('POST', '/oauth/token', oauthTokenEndpoint(fake, { code: 'trello-code', issue: () => ({ access_token: `trello-oauth-${++issued}`, refresh_token: `trello-rt-${issued}`, expires_in: 3600, scope: 'read' }) }));

  const next = () => {
    clock += STEP;
    return { id: objectId(clock, ++counter), at: new Date(clock).toISOString() };
  };
  const touch = (c: TCard, at: string) => {
    c.dateLastActivity = at;
    const b = data.boards.find((x) => x.id === c.idBoard);
    if (b) b.dateLastActivity = at;
  };
  await fake.start();
  return {
    get url() {
      return fake.url;
    },
    apiKey,
    token,
    data,
    fake,
    next,
    addCard(card, by = data.me) {
      const { id, at } = next();
      const c: TCard = { id, idShort: data.cards.length + 100, desc: '', due: null, dueComplete: false, dateLastActivity: at, labels: [], idMembers: [], checklists: [], ...card };
      data.cards.push(c);
      data.actions.push({ id: next().id, idBoard: c.idBoard, idCard: c.id, type: 'createCard', date: at, idMemberCreator: by });
      touch(c, at);
      return c;
    },
    comment(cardId, text, by = data.me) {
      const c = data.cards.find((x) => x.id === cardId);
      if (!c) throw new Error(`no card ${cardId}`);
      const { id, at } = next();
      const a: TAction = { id, idBoard: c.idBoard, idCard: c.id, type: 'commentCard', date: at, idMemberCreator: by, text };
      data.actions.push(a);
      touch(c, at);
      return a;
    },
    close: () => fake.close(),
  };
}
