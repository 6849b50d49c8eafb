import { cursorPage, type FakeReply, type FakeRequest, VendorFake } from './kit/index.ts';

/**
 * A local Confluence Cloud fake speaking the documented wire formats: REST v2 lists (`results` + `_links.next` with a
 * `cursor`, mirrored in the `Link` header; `limit` capped at 250; `body-format=storage`), v2 single objects (404 answers
 * `{ errors: [{ status, code, title }] }`), v1 CQL search (`_links.next` relative to /wiki), v1 read restrictions and
 * user bulk lookup, and api.atlassian.com's `/oauth/token/accessible-resources`. Every route is also served under the
 * OAuth gateway prefix `/ex/confluence/{cloudId}`. Credentials: HTTP Basic (`email:api_token`) or a bearer token.
 * CQL understood: `type in (…)`, `lastmodified >= now("-Nm")`, `space in ("KEY",…)`; trashed content is not found.
 */
export interface FUser {
  accountId: string;
  displayName: string;
  email: string;
}
export interface FSpace {
  id: string;
  key: string;
  name: string;
  type: 'global' | 'personal';
  permissions: { principal?: { type: 'user' | 'group' | 'role'; id: string }; operation: { key: string; targetType: string }; anonymousAccess?: boolean }[];
}
export interface FContent {
  id: string;
  kind: 'page' | 'blogpost';
  status: 'current' | 'trashed';
  title: string;
  spaceId: string;
  parentId: string | null;
  authorId: string;
  createdAt: string;
  version: { number: number; createdAt: string; authorId: string };
  body: string;
  restrictions?: { users: { accountId: string; email: string }[]; groups: { id: string; name: string }[] };
}
export interface FComment {
  id: string;
  type: 'footer' | 'inline';
  containerKind: 'page' | 'blogpost';
  containerId: string;
  parentCommentId: string | null;
  status: 'current' | 'trashed';
  body: string;
  version: { number: number; createdAt: string; authorId: string };
  selection?: string;
}
export interface FAttachment {
  id: string;
  containerKind: 'page' | 'blogpost';
  containerId: string;
  title: string;
  mediaType: string;
  fileSize: number;
}
export interface ConfluenceData {
  users: FUser[];
  spaces: FSpace[];
  contents: FContent[];
  comments: FComment[];
  attachments: FAttachment[];
}

export const SITE = 'https://acme.atlassian.net';
export const CLOUD_ID = '1324a887-45db-1bf4-1e99-ef0ff456d421';
export const EMAIL = 'ada@acme.test';
export const API_TOKEN = 'ATATT3xFfGF0-api-token-1';
export const OAUTH_TOKEN = 'eyJoauth-access-token-1';

const BASE = Date.UTC(2026, 0, 5, 9, 0, 0);
const iso = (minutes: number) => new Date(BASE + minutes * 60_000).toISOString();

/** Two spaces (ENG: 1 + `notes` (29) pages, a blog post, comments with a reply, an inline comment, attachments, a restricted page, a trashed page; DOCS: public). */
export function seedConfluence(opts: { notes?: number } = {}): ConfluenceData {
  let n = 0;
  const at = () => iso(n++);
  const users: FUser[] = [
    { accountId: '5b10ac8d82e05b22cc7d4ef5', displayName: 'Ada Lovelace', email: 'ada@acme.test' },
    { accountId: '5b10a2844c20165700ede21g', displayName: 'Grace Hopper', email: '' },
  ];
  const [ada, grace] = users as [FUser, FUser];
  const spaces: FSpace[] = [
    {
      id: '65537',
      key: 'ENG',
      name: 'Engineering',
      type: 'global',
      permissions: [
        { principal: { type: 'group', id: 'g-eng-1' }, operation: { key: 'read', targetType: 'space' } },
        { principal: { type: 'user', id: grace.accountId }, operation: { key: 'read', targetType: 'space' } },
        { principal: { type: 'group', id: 'g-eng-1' }, operation: { key: 'create', targetType: 'page' } },
      ],
    },
    {
      id: '98305',
      key: 'DOCS',
      name: 'Public docs',
      type: 'global',
      permissions: [
        { principal: { type: 'group', id: 'g-all-2' }, operation: { key: 'read', targetType: 'space' } },
        { operation: { key: 'read', targetType: 'space' }, anonymousAccess: true },
      ],
    },
  ];
  const contents: FContent[] = [];
  const page = (kind: FContent['kind'], spaceId: string, title: string, body: string, author = ada): FContent => {
    const c = at();
    const x: FContent = { id: String(1_000_000 + contents.length), kind, status: 'current', title, spaceId, parentId: null, authorId: author.accountId, createdAt: c, version: { number: 1, createdAt: c, authorId: author.accountId }, body };
    contents.push(x);
    return x;
  };
  const runbook = page(
    'page',
    '65537',
    'Deploy runbook',
    `<h1>Deploy</h1><p>Ask <ac:link><ri:user ri:account-id="${grace.accountId}"/></ac:link> before a release.</p><ac:structured-macro ac:name="code"><ac:parameter ac:name="language">bash</ac:parameter><ac:plain-text-body><![CDATA[npm run deploy --canary]]></ac:plain-text-body></ac:structured-macro><ac:image><ri:attachment ri:filename="topology.png"/></ac:image>`,
  );
  for (let i = 1; i <= (opts.notes ?? 29); i++) page('page', '65537', `ENG note ${i}`, `<p>Engineering note number ${i} about <strong>latency budgets</strong>.</p>`, i % 2 ? ada : grace);
  const secret = contents.find((c) => c.title === 'ENG note 7');
  if (secret) secret.restrictions = { users: [{ accountId: ada.accountId, email: 'Ada@Acme.test' }], groups: [{ id: 'g-sec-3', name: 'security' }] };
  const trashed = page('page', '65537', 'Old draft', '<p>obsolete</p>');
  trashed.status = 'trashed';
  const blog = page('blogpost', '65537', 'Q1 retro', '<p>We shipped the <em>search</em> rewrite.</p>', grace);
  page('page', '98305', 'Getting started', '<p>Install the CLI and run <code>atrium init</code>.</p>');
  const comments: FComment[] = [];
  const comment = (type: FComment['type'], container: FContent, body: string, author: FUser, parent: string | null = null, selection?: string) => {
    const c = at();
    const x: FComment = { id: String(2_000_000 + comments.length), type, containerKind: container.kind, containerId: container.id, parentCommentId: parent, status: 'current', body, version: { number: 1, createdAt: c, authorId: author.accountId }, ...(selection ? { selection } : {}) };
    comments.push(x);
    return x;
  };
  const top = comment('footer', runbook, '<p>Does the canary need a feature flag?</p>', grace);
  comment('footer', runbook, '<p>Yes, <strong>deploy.canary</strong>.</p>', ada, top.id);
  comment('inline', runbook, '<p>Link the dashboard here.</p>', grace, null, 'before a release');
  comment('footer', blog, '<p>Great quarter!</p>', ada);
  const attachments: FAttachment[] = [
    { id: 'att3000001', containerKind: 'page', containerId: runbook.id, title: 'topology.png', mediaType: 'image/png', fileSize: 48213 },
    { id: 'att3000002', containerKind: 'page', containerId: runbook.id, title: 'rollback-checklist.pdf', mediaType: 'application/pdf', fileSize: 120033 },
  ];
  return { users, spaces, contents, comments, attachments };
}

export interface FakeConfluence {
  readonly url: string;
  readonly data: ConfluenceData;
  readonly fake: VendorFake;
  /** A page or blog post created now (its version time is the present, so CQL finds it). */
  addContent(kind: FContent['kind'], spaceKey: string, title: string, body: string): FContent;
  /** An edit now: new title/body, the version bumped. */
  edit(c: FContent | FComment, patch: { title?: string; body?: string }): void;
  addComment(type: FComment['type'], container: FContent, body: string): FComment;
  close(): Promise<void>;
}

const wire = (c: FContent, withBody: boolean) => ({
  id: c.id,
  status: c.status,
  title: c.title,
  spaceId: c.spaceId,
  ...(c.kind === 'page' ? { parentId: c.parentId, parentType: c.parentId ? 'page' : null, position: 0, ownerId: c.authorId, lastOwnerId: null } : {}),
  authorId: c.authorId,
  createdAt: c.createdAt,
  version: { createdAt: c.version.createdAt, message: '', number: c.version.number, minorEdit: false, authorId: c.version.authorId },
  body: withBody ? { storage: { representation: 'storage', value: c.body } } : {},
  _links: { webui: `/spaces/${c.spaceId}/${c.kind === 'page' ? 'pages' : 'blog'}/${c.id}`, editui: `/pages/resumedraft.action?draftId=${c.id}`, tinyui: `/x/${c.id}` },
});

const commentWire = (c: FComment, withBody: boolean) => ({
  id: c.id,
  status: c.status,
  title: `Re: comment ${c.id}`,
  ...(c.containerKind === 'page' ? { pageId: c.containerId } : { blogPostId: c.containerId }),
  ...(c.parentCommentId ? { parentCommentId: c.parentCommentId } : {}),
  version: { createdAt: c.version.createdAt, message: '', number: c.version.number, minorEdit: false, authorId: c.version.authorId },
  body: withBody ? { storage: { representation: 'storage', value: c.body } } : {},
  ...(c.type === 'inline' ? { resolutionStatus: 'open', properties: { 'inline-marker-ref': `marker-${c.id}`, 'inline-original-selection': c.selection ?? '' } } : {}),
  _links: { webui: `/spaces/x/pages/${c.containerId}?focusedCommentId=${c.id}` },
});

const notFound: FakeReply = { status: 404, json: { errors: [{ status: 404, code: 'NOT_FOUND', title: 'Not Found', detail: null }] } };

/** A v2 list answer: `limit` (≤ 250), the opaque cursor, `_links.next` keeping the request's other parameters, and the Link header. */
function v2List<T>(req: FakeRequest, prefix: string, items: readonly T[], map: (x: T) => unknown, defaultLimit = 25): FakeReply {
  const limit = Math.min(Number(req.query.get('limit') ?? defaultLimit) || defaultLimit, 250);
  const page = cursorPage(items, req.query.get('cursor'), limit);
  let next: string | undefined;
  if (page.next) {
    const q = new URLSearchParams(req.query);
    q.set('cursor', page.next);
    next = `${req.path.slice(prefix.length)}?${q.toString()}`;
  }
  return {
    headers: next ? { link: `<${next}>; rel="next"` } : {},
    json: { results: page.items.map(map), _links: { ...(next ? { next } : {}), base: `${SITE}/wiki` } },
  };
}

function parseCql(cql: string): { types: string[]; minutes: number | null; spaces: string[] | null } {
  const types = /type in \(([^)]*)\)/.exec(cql)?.[1]?.split(',').map((s) => s.trim()) ?? ['page', 'blogpost', 'comment'];
  const m = /lastmodified >= now\("-(\d+)m"\)/.exec(cql);
  const sp = /space in \(([^)]*)\)/.exec(cql)?.[1];
  return { types, minutes: m ? Number(m[1]) : null, spaces: sp ? sp.split(',').map((s) => s.trim().replace(/^"|"$/g, '')) : null };
}

export async function startFakeConfluence(data: ConfluenceData = seedConfluence()): Promise<FakeConfluence> {
  const fake = new VendorFake({
    name: 'Confluence',
    tokens: [`${EMAIL}:${API_TOKEN}`, OAUTH_TOKEN],
    tokenOf: ({ headers }) => {
      const h = headers.authorization ?? '';
      if (h.startsWith('Bearer ')) return h.slice(7);
      if (h.startsWith('Basic ')) return Buffer.from(h.slice(6), 'base64').toString('utf8');
      return null;
    },
    unauthorized: () => ({ status: 401, json: { code: 401, message: 'Unauthorized; scope does not match' } }),
    rateLimited: () => ({ status: 429, json: { message: 'Too many requests' } }),
    serverError: (status) => ({ json: { errors: [{ status, code: 'INTERNAL_SERVER_ERROR', title: 'Internal Server Error', detail: null }] } }),
  });
  const byId = (id: string) => data.contents.find((c) => c.id === id);
  const spaceOf = (c: FContent) => data.spaces.find((s) => s.id === c.spaceId);

  for (const prefix of ['', `/ex/confluence/${CLOUD_ID}`]) {
    const p = (path: string) => `${prefix}${path}`;
    fake.route('GET', p('/wiki/rest/api/user/current'), (req) => {
      const u = req.token === OAUTH_TOKEN ? data.users[0] : data.users.find((x) => req.token?.startsWith(`${x.email}:`));
      return { json: { type: 'known', accountId: u?.accountId, accountType: 'atlassian', email: u?.email ?? '', publicName: u?.displayName, displayName: u?.displayName } };
    });
    fake.route('GET', p('/wiki/api/v2/spaces'), (req) => {
      const keys = req.query.get('keys')?.split(',');
      const spaces = data.spaces.filter((s) => !keys || keys.includes(s.key));
      return v2List(req, prefix, spaces, (s) => ({ id: s.id, key: s.key, name: s.name, type: s.type, status: 'current', authorId: data.users[0]?.accountId, createdAt: iso(0), homepageId: null, _links: { webui: `/spaces/${s.key}` } }));
    });
    fake.route('GET', p('/wiki/api/v2/spaces/:id/permissions'), (req) => {
      const s = data.spaces.find((x) => x.id === req.params.id);
      if (!s) return notFound;
      return v2List(req, prefix, s.permissions, (x) => ({ id: `perm-${s.id}-${x.principal?.id ?? 'anon'}-${x.operation.key}`, ...x }));
    });
    for (const kind of ['page', 'blogpost'] as const) {
      const plural = kind === 'page' ? 'pages' : 'blogposts';
      fake.route('GET', p(`/wiki/api/v2/spaces/:id/${plural}`), (req) => {
        const statuses = (req.query.get('status') ?? 'current').split(',');
        const items = data.contents.filter((c) => c.kind === kind && c.spaceId === req.params.id && statuses.includes(c.status));
        return v2List(req, prefix, items, (c) => wire(c, req.query.get('body-format') === 'storage'));
      });
      fake.route('GET', p(`/wiki/api/v2/${plural}/:id`), (req) => {
        const c = byId(req.params.id ?? '');
        return c && c.kind === kind ? { json: wire(c, req.query.get('body-format') === 'storage') } : notFound;
      });
      fake.route('GET', p(`/wiki/api/v2/${plural}/:id/attachments`), (req) => {
        const items = data.attachments.filter((a) => a.containerKind === kind && a.containerId === req.params.id);
        return v2List(
          req,
          prefix,
          items,
          (a) => ({ id: a.id, status: 'current', title: a.title, mediaType: a.mediaType, fileSize: a.fileSize, [kind === 'page' ? 'pageId' : 'blogPostId']: a.containerId, version: { number: 1 }, _links: {} }),
          50,
        );
      });
      for (const type of ['footer', 'inline'] as const) {
        fake.route('GET', p(`/wiki/api/v2/${plural}/:id/${type}-comments`), (req) => {
          const items = data.comments.filter((c) => c.type === type && c.containerKind === kind && c.containerId === req.params.id && !c.parentCommentId && c.status === 'current');
          return v2List(req, prefix, items, (c) => commentWire(c, req.query.get('body-format') === 'storage'));
        });
      }
    }
    for (const type of ['footer', 'inline'] as const) {
      fake.route('GET', p(`/wiki/api/v2/${type}-comments/:id`), (req) => {
        const c = data.comments.find((x) => x.id === req.params.id && x.type === type);
        return c ? { json: commentWire(c, req.query.get('body-format') === 'storage') } : notFound;
      });
      fake.route('GET', p(`/wiki/api/v2/${type}-comments/:id/children`), (req) => {
        const items = data.comments.filter((x) => x.parentCommentId === req.params.id && x.type === type && x.status === 'current');
        return v2List(req, prefix, items, (c) => commentWire(c, req.query.get('body-format') === 'storage'));
      });
    }
    fake.route('GET', p('/wiki/rest/api/content/:id/restriction/byOperation/read'), (req) => {
      const c = byId(req.params.id ?? '');
      if (!c) return { status: 404, json: { statusCode: 404, message: 'No content found with id', data: { authorized: false, valid: true } } };
      const r = c.restrictions ?? { users: [], groups: [] };
      return {
        json: {
          operation: 'read',
          restrictions: {
            user: { results: r.users.map((u) => ({ type: 'known', accountId: u.accountId, email: u.email })), start: 0, limit: 100, size: r.users.length },
            group: { results: r.groups.map((g) => ({ type: 'group', id: g.id, name: g.name })), start: 0, limit: 100, size: r.groups.length },
          },
          _expandable: {},
          _links: {},
        },
      };
    });
    fake.route('GET', p('/wiki/rest/api/user/bulk'), (req) => {
      const ids = req.query.getAll('accountId');
      const results = data.users.filter((u) => ids.includes(u.accountId)).map((u) => ({ type: 'known', accountId: u.accountId, accountType: 'atlassian', email: u.email, publicName: u.displayName, displayName: u.displayName }));
      return { json: { results, start: 0, limit: 100, size: results.length, _links: {} } };
    });
    fake.route('GET', p('/wiki/rest/api/search'), (req) => {
      const cql = req.query.get('cql') ?? '';
      const q = parseCql(cql);
      const after = q.minutes === null ? 0 : Date.now() - q.minutes * 60_000;
      const inScope = (c: FContent) => c.status === 'current' && (!q.spaces || q.spaces.includes(spaceOf(c)?.key ?? ''));
      const hits = [
        ...data.contents.filter((c) => q.types.includes(c.kind) && inScope(c) && Date.parse(c.version.createdAt) >= after).map((c) => ({ c, at: c.version.createdAt })),
        ...data.comments
          .filter((x) => q.types.includes('comment') && x.status === 'current' && Date.parse(x.version.createdAt) >= after)
          .filter((x) => {
            const container = byId(x.containerId);
            return container ? inScope(container) : false;
          })
          .map((x) => ({ c: x, at: x.version.createdAt })),
      ].sort((a, b) => a.at.localeCompare(b.at));
      const limit = Math.min(Number(req.query.get('limit') ?? 25) || 25, 250);
      const page = cursorPage(hits, req.query.get('cursor'), limit);
      const next = page.next ? `/rest/api/search?${new URLSearchParams({ cql, limit: String(limit), cursor: page.next }).toString()}` : undefined;
      const results = page.items.map(({ c, at }) => {
        const isComment = 'type' in c;
        const content = isComment
          ? { id: c.id, type: 'comment', status: c.status, title: `Re: comment`, extensions: { location: c.type } }
          : { id: c.id, type: c.kind, status: c.status, title: c.title };
        return { content, title: content.title, excerpt: '', url: `/spaces/x/pages/${c.id}`, entityType: 'content', iconCssClass: '', lastModified: at, friendlyLastModified: 'just now', breadcrumbs: [] };
      });
      return { json: { results, start: 0, limit, size: results.length, totalSize: hits.length, cqlQuery: cql, searchDuration: 3, _links: { base: `${SITE}/wiki`, context: '/wiki', ...(next ? { next } : {}) } } };
    });
  }
  fake.route('GET', '/oauth/token/accessible-resources', () => ({
    json: [{ id: CLOUD_ID, url: SITE, name: 'acme', scopes: ['read:page:confluence', 'read:space:confluence', 'read:comment:confluence'], avatarUrl: 'https://site-admin-avatar-cdn.prod.public.atl-paas.net/avatars/240/rocket.png' }],
  }));
  await fake.start();

  let ids = 5_000_000;
  const now = () => new Date().toISOString();
  return {
    get url() {
      return fake.url;
    },
    data,
    fake,
    addContent(kind, spaceKey, title, body) {
      const space = data.spaces.find((s) => s.key === spaceKey);
      if (!space) throw new Error(`no space ${spaceKey}`);
      const at = now();
      const author = data.users[0]?.accountId ?? '';
      const c: FContent = { id: String(ids++), kind, status: 'current', title, spaceId: space.id, parentId: null, authorId: author, createdAt: at, version: { number: 1, createdAt: at, authorId: author }, body };
      data.contents.push(c);
      return c;
    },
    edit(c, patch) {
      if ('title' in c && patch.title) c.title = patch.title;
      if (patch.body) c.body = patch.body;
      c.version = { ...c.version, number: c.version.number + 1, createdAt: now() };
    },
    addComment(type, container, body) {
      const at = now();
      const c: FComment = { id: String(ids++), type, containerKind: container.kind, containerId: container.id, parentCommentId: null, status: 'current', body, version: { number: 1, createdAt: at, authorId: data.users[1]?.accountId ?? '' } };
      data.comments.push(c);
      return c;
    },
    close: () => fake.close(),
  };
}
