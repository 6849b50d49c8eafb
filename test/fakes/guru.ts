import { type FakeReply, type FakeRequest, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local Guru API fake (base path `/api/v1`), speaking the wire format of developer.getguru.com: HTTP Basic with a
 * user email + user token or a collection id + collection token (read-only, that collection only), or an OAuth bearer
 * token from `/oauth/token`; `GET /teams` (the credentials check Guru's docs give); `GET /collections` (`id`, `name`,
 * `slug`, `collectionType` INTERNAL/EXTERNAL, `publicCardsEnabled`); `GET /search/query` (an array of cards:
 * `preferredPhrase`, HTML `content`, `lastModified`, `dateCreated`, `owner`, `collection`, `boards`, `tags`,
 * `verificationState`, `shareStatus`; `q` in Guru's query language — this fake understands `lastModified >= <ISO-8601>`;
 * archived cards only with `showArchived=true`). Lists are paged with a `Link: < …?token=… >; rel="next-page"` header,
 * spaces inside the brackets as in Guru's paging guide. Guru documents no error body or rate-limit headers: errors
 * here are `{status, description}` and a 429 carries Retry-After.
 */
export interface GCard {
  id: string;
  slug: string;
  preferredPhrase: string;
  content: string;
  collectionId: string;
  dateCreated: string;
  lastModified: string;
  owner: { email: string; firstName: string; lastName: string };
  boards: string[];
  tags: string[];
  verificationState: 'TRUSTED' | 'NEEDS_VERIFICATION';
  shareStatus: 'TEAM' | 'PUBLIC';
  archived?: boolean;
}
export interface GCollection {
  id: string;
  name: string;
  slug: string;
  description: string;
  collectionType: 'INTERNAL' | 'EXTERNAL';
  publicCardsEnabled: boolean;
  token?: string;
}
export interface GuruData {
  team: { id: string; name: string };
  collections: GCollection[];
  cards: GCard[];
}

export interface FakeGuru {
  /** The API base (`…/api/v1`), what ATRIUM_CONNECTOR_API_URLS.guru is set to. */
  readonly url: string;
  readonly origin: string;
  readonly email: string;
  readonly token: string;
  readonly data: GuruData;
  readonly fake: VendorFake;
  card(id: string): GCard;
  addCard(collectionId: string, title: string, html: string): GCard;
  tick(): string;
  close(): Promise<void>;
}

const at = (minutes: number) => new Date(Date.UTC(2025, 6, 1, 9, 0, 0) + minutes * 60_000).toISOString().replace('Z', '+0000');

export function seedGuru(): GuruData {
  const ada = { email: 'Ada@Acme.test', firstName: 'Ada', lastName: 'Lovelace' };
  const card = (id: string, title: string, content: string, collectionId: string, minutes: number, extra: Partial<GCard> = {}): GCard => ({
    id,
    slug: `${id.slice(0, 8)}/${title.replace(/[^A-Za-z0-9]+/g, '-')}`,
    preferredPhrase: title,
    content,
    collectionId,
    dateCreated: at(minutes),
    lastModified: at(minutes + 5),
    owner: ada,
    boards: [],
    tags: [],
    verificationState: 'TRUSTED',
    shareStatus: 'TEAM',
    ...extra,
  });
  return {
    team: { id: 'team-acme', name: 'Acme' },
    collections: [
      { id: 'col-eng', name: 'Engineering', slug: 'engineering', description: 'How we build things.', collectionType: 'INTERNAL', publicCardsEnabled: false, token: 'col-eng-token-1234' },
      { id: 'col-help', name: 'Help Center', slug: 'help-center', description: 'Answers for customers.', collectionType: 'EXTERNAL', publicCardsEnabled: true },
      { id: 'col-sales', name: 'Sales', slug: 'sales', description: '', collectionType: 'INTERNAL', publicCardsEnabled: true },
    ],
    cards: [
      card('c1a2b3c4-0001', 'Deploying to production', '<h2>Steps</h2><ol><li>Merge to <code>main</code></li><li>Run <strong>deploy</strong></li></ol><p>Rollbacks: see the runbook.</p>', 'col-eng', 0, {
        boards: ['Runbooks'],
        tags: ['deploy', 'ops'],
      }),
      card('c1a2b3c4-0002', 'On-call rotation', '<p>Weekly, handover on Mondays.</p>', 'col-eng', 10, { verificationState: 'NEEDS_VERIFICATION', owner: { email: 'grace@acme.test', firstName: 'Grace', lastName: 'Hopper' } }),
      card('c1a2b3c4-0003', 'Resetting your password', '<p>Use the <a href="https://acme.test/reset">reset page</a>.</p>', 'col-help', 20),
      card('c1a2b3c4-0004', 'Pricing one-pager', '<p>Public list prices for 2025.</p>', 'col-sales', 30, { shareStatus: 'PUBLIC' }),
      card('c1a2b3c4-0005', 'Discount approvals', '<p>Over 20% needs the VP.</p>', 'col-sales', 40),
      card('c1a2b3c4-0006', 'Old VPN guide', '<p>Retired.</p>', 'col-eng', 50, { archived: true }),
    ],
  };
}

export async function startFakeGuru(data: GuruData = seedGuru(), opts: { pageSize?: number } = {}): Promise<FakeGuru> {
  const email = 'ada@acme.test';
  const token = '3f9c2a7b-5d1e-4c8a-9b6f-0e2d4a6c8e1f';
  const error = (status: number, description: string): FakeReply => ({ status, json: { status, description } });
  const fake = new VendorFake({
    name: 'Guru',
    tokens: [`${email}:${token}`, ...data.collections.filter((c) => c.token).map((c) => `${c.id}:${c.token}`)],
    publicPath: (p) => p === '/oauth/token',
    tokenOf: ({ headers }) => {
      const h = headers.authorization ?? '';
      if (h.startsWith('Basic ')) return Buffer.from(h.slice(6), 'base64').toString('utf8');
      if (h.startsWith('Bearer ')) return h.slice(7);
      return null;
    },
    unauthorized: () => error(401, 'Unauthorized'),
    rateLimited: () => error(429, 'Too Many Requests'),
    serverError: (status) => error(status, 'Internal Server Error'),
  });
  const pageSize = opts.pageSize ?? 50;
  let last = Date.now();
  const tick = () => {
    last = Math.max(Date.now(), last + 1000);
    return new Date(last).toISOString().replace('Z', '+0000');
  };
  const api = '/api/v1';
  /** A collection token sees its collection only. */
  const scope = (req: FakeRequest) => {
    const user = req.token?.split(':')[0];
    return data.collections.find((c) => c.id === user && c.token)?.id ?? null;
  };
  const visible = (req: FakeRequest) => {
    const only = scope(req);
    return data.collections.filter((c) => !only || c.id === only);
  };
  const pages = new Map<string, { items: unknown[]; start: number }>();
  let tokens = 0;
  const paged = (req: FakeRequest, items: unknown[]): FakeReply => {
    const t = req.query.get('token');
    const state = t ? pages.get(t) : { items, start: 0 };
    if (!state) return error(400, 'Invalid paging token');
    const slice = state.items.slice(state.start, state.start + pageSize);
    const headers: Record<string, string> = {};
    if (state.start + pageSize < state.items.length) {
      const next = `p${++tokens}x${Math.random().toString(36).slice(2, 10)}`;
      pages.set(next, { items: state.items, start: state.start + pageSize });
      headers.link = `< ${fake.url}${req.path}?token=${next} >; rel="next-page"`;
    }
    return { headers, json: slice };
  };
  const collectionJson = (c: GCollection) => ({
    id: c.id,
    name: c.name,
    slug: c.slug,
    description: c.description,
    color: '#009688',
    collectionType: c.collectionType,
    publicCardsEnabled: c.publicCardsEnabled,
    dateCreated: at(-100),
    cards: data.cards.filter((x) => x.collectionId === c.id && !x.archived).length,
  });
  fake.route('GET', `${api}/teams`, () => ({ json: [{ status: 'ACTIVE', id: data.team.id, dateCreated: at(-1000), name: data.team.name }] }));
  fake.route('GET', `${api}/collections`, (req) => paged(req, visible(req).map(collectionJson)));
  fake.route('GET', `${api}/search/query`, (req) => {
    if (req.query.get('token')) return paged(req, []);
    const q = req.query.get('q');
    let since = Number.NEGATIVE_INFINITY;
    if (q) {
      const m = /^lastModified\s*>=\s*(\S+)$/.exec(q.trim());
      if (!m?.[1] || Number.isNaN(Date.parse(m[1]))) return error(400, `Unsupported query: ${q}`);
      since = Date.parse(m[1]);
    }
    const archived = req.query.get('showArchived') === 'true';
    const cols = new Map(visible(req).map((c) => [c.id, c]));
    const cards = data.cards
      .filter((x) => cols.has(x.collectionId) && (archived || !x.archived) && Date.parse(x.lastModified) >= since)
      .map((x) => {
        const c = cols.get(x.collectionId);
        return {
          id: x.id,
          slug: x.slug,
          preferredPhrase: x.preferredPhrase,
          content: x.content,
          htmlContent: true,
          dateCreated: x.dateCreated,
          lastModified: x.lastModified,
          owner: { status: 'ACTIVE', ...x.owner },
          lastModifiedBy: { status: 'ACTIVE', ...x.owner },
          collection: c ? { id: c.id, name: c.name, color: '#009688', collectionType: c.collectionType, publicCardsEnabled: c.publicCardsEnabled } : null,
          boards: x.boards.map((title, i) => ({ id: `board-${i}`, title, slug: title.toLowerCase() })),
          tags: x.tags.map((value, i) => ({ id: `tag-${i}`, value })),
          verificationState: x.verificationState,
          shareStatus: x.shareStatus,
          ...(x.archived ? { archived: true } : {}),
        };
      });
    return paged(req, cards);
  });
  let issued = 0;
  fake.route('POST', '/oauth/token', oauthTokenEndpoint(fake, { code: 'guru-code', issue: () => ({ access_token: `guru_oauth_${++issued}`, refresh_token: `guru_refresh_${issued}`, expires_in: 3600 }) }));
  await fake.start();
  let n = 0;
  const card = (id: string) => {
    const c = data.cards.find((x) => x.id === id);
    if (!c) throw new Error(`no card ${id}`);
    return c;
  };
  return {
    get url() {
      return `${fake.url}${api}`;
    },
    get origin() {
      return fake.url;
    },
    email,
    token,
    data,
    fake,
    card,
    addCard(collectionId, title, html) {
      const now = tick();
      const c: GCard = {
        id: `c9f8e7d6-new${++n}`,
        slug: `new${n}/${title.replace(/[^A-Za-z0-9]+/g, '-')}`,
        preferredPhrase: title,
        content: html,
        collectionId,
        dateCreated: now,
        lastModified: now,
        owner: { email: 'grace@acme.test', firstName: 'Grace', lastName: 'Hopper' },
        boards: [],
        tags: [],
        verificationState: 'TRUSTED',
        shareStatus: 'TEAM',
      };
      data.cards.push(c);
      return c;
    },
    tick,
    close: () => fake.close(),
  };
}
