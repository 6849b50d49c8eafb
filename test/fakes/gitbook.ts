import { type FakeReply, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local GitBook API fake (base path `/v1`), speaking the wire format of api.gitbook.com/openapi.json (the spec the
 * `@gitbook/api` package ships): `GET /user`; `GET /orgs` and `GET /orgs/{organizationId}/spaces` (lists: `items`,
 * `next: {page}`, `count`; `page` and `limit` query); `GET /spaces/{spaceId}/content` (the current Revision: `id`, the
 * `pages` tree of `document` / `group` / `link` pages with `path`, `slug`, `urls.app`, `createdAt`, `updatedAt`);
 * `GET /spaces/{spaceId}/content/page/{pageId}` (`format=markdown` → `markdown`, else a JSON `document`); the OAuth token
 * endpoint at `/oauth/token`. Bearer tokens; `{error: {code, message}}` error bodies; a 429 carries `X-RateLimit-Limit`,
 * `X-RateLimit-Remaining: 0` and `X-RateLimit-Reset` (epoch seconds) and no Retry-After, as GitBook documents.
 */
export interface GPage {
  id: string;
  title: string;
  type: 'document' | 'group' | 'link';
  slug: string;
  description?: string;
  hidden?: boolean;
  createdAt: string;
  updatedAt: string;
  markdown?: string;
  pages?: GPage[];
}
export interface GSpace {
  id: string;
  title: string;
  visibility: 'public' | 'unlisted' | 'share-link' | 'visitor-auth' | 'in-collection' | 'private';
  revision: string;
  createdAt: string;
  updatedAt: string;
  deletedAt?: string;
  pages: GPage[];
}
export interface GOrg {
  id: string;
  title: string;
  spaces: GSpace[];
}
export interface GitBookData {
  user: { id: string; displayName: string; email: string };
  orgs: GOrg[];
}

export interface FakeGitBook {
  /** The API base (`…/v1`), what ATRIUM_CONNECTOR_API_URLS.gitbook is set to. */
  readonly url: string;
  /** The fake's origin, where `/oauth/token` answers. */
  readonly origin: string;
  readonly token: string;
  readonly data: GitBookData;
  readonly fake: VendorFake;
  space(id: string): GSpace;
  page(spaceId: string, pageId: string): GPage;
  /** An edit: applies `change`, then gives the space a new revision (GitBook does for every merged change). */
  edit(spaceId: string, change: (s: GSpace) => void): string;
  tick(): string;
  close(): Promise<void>;
}

const at = (minutes: number) => new Date(Date.UTC(2025, 4, 6, 8, 0, 0) + minutes * 60_000).toISOString();

export function seedGitBook(): GitBookData {
  const doc = (id: string, title: string, markdown: string, minutes: number, extra: Partial<GPage> = {}): GPage => ({
    id,
    title,
    type: 'document',
    slug: title.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
    createdAt: at(minutes),
    updatedAt: at(minutes),
    markdown,
    ...extra,
  });
  return {
    user: { id: 'u-ada', displayName: 'Ada Lovelace', email: 'ada@acme.test' },
    orgs: [
      {
        id: 'org-acme',
        title: 'Acme',
        spaces: [
          {
            id: 'sp-handbook',
            title: 'Engineering Handbook',
            visibility: 'private',
            revision: 'rev-h1',
            createdAt: at(0),
            updatedAt: at(30),
            pages: [
              doc('pg-intro', 'Introduction', '# Introduction\n\nWelcome to the **Acme** handbook.   \n\n\n\nStart with the on-call guide.\n', 1, { description: 'Start here' }),
              {
                id: 'grp-ops',
                title: 'Operations',
                type: 'group',
                slug: 'operations',
                createdAt: at(2),
                updatedAt: at(2),
                pages: [
                  doc('pg-oncall', 'On-call', '## Paging\n\n- Acknowledge within 5 minutes\n', 3, {
                    pages: [doc('pg-escalation', 'Escalation', 'Escalate to the duty manager after 30 minutes.\n', 4)],
                  }),
                  doc('pg-secret', 'Hidden notes', 'Draft notes, not in the table of contents.\n', 5, { hidden: true }),
                ],
              },
              { id: 'lnk-status', title: 'Status page', type: 'link', slug: 'status', createdAt: at(6), updatedAt: at(6) },
            ],
          },
          {
            id: 'sp-api',
            title: 'Public API docs',
            visibility: 'public',
            revision: 'rev-a1',
            createdAt: at(10),
            updatedAt: at(40),
            pages: [doc('pg-auth', 'Authentication', 'Send your key as a bearer token.\n', 11)],
          },
        ],
      },
      {
        id: 'org-side',
        title: 'Side project',
        spaces: [{ id: 'sp-notes', title: 'Notes', visibility: 'unlisted', revision: 'rev-n1', createdAt: at(20), updatedAt: at(20), pages: [doc('pg-ideas', 'Ideas', 'A lighthouse offsite.\n', 21)] }],
      },
    ],
  };
}

const APP = 'https://app.gitbook.com';

function flat(pages: readonly GPage[]): GPage[] {
  return pages.flatMap((p) => [p, ...flat(p.pages ?? [])]);
}

export async function startFakeGitBook(data: GitBookData = seedGitBook(), opts: { pageSize?: number } = {}): Promise<FakeGitBook> {
  const token = 'gb_api_6b0c2f7e1d4a4e8f9a3b5c7d9e1f2a3b';
  const error = (code: number, message: string): FakeReply => ({ status: code, json: { error: { code, message } } });
  const fake = new VendorFake({
    name: 'GitBook',
    tokens: [token],
    publicPath: (p) => p === '/oauth/token',
    unauthorized: () => error(401, 'Unauthorized: invalid or expired token'),
    rateLimited: () => ({
      status: 429,
      headers: { 'retry-after': '', 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 1) },
      json: { error: { code: 429, message: 'API rate limit exceeded. Please try again in 60 seconds' } },
    }),
    serverError: (status) => error(status, 'Internal Error'),
  });
  let last = Date.now();
  const tick = () => {
    last = Math.max(Date.now(), last + 1000);
    return new Date(last).toISOString();
  };
  const pageSize = opts.pageSize ?? 100;
  const list = <T>(items: readonly T[], page: string | null, limit: string | null) => {
    const start = page ? Number(Buffer.from(page, 'base64url').toString('utf8')) : 0;
    const n = Math.min(Number(limit ?? 100), pageSize);
    const slice = items.slice(start, start + n);
    const more = start + n < items.length;
    return { items: slice, count: items.length, ...(more ? { next: { page: Buffer.from(String(start + n)).toString('base64url') } } : {}) };
  };
  const findSpace = (id: string | undefined) => data.orgs.flatMap((o) => o.spaces.map((s) => ({ o, s }))).find((x) => x.s.id === id);
  const api = '/v1';
  const paths = new Map<string, string>();
  const treeJson = (space: GSpace, pages: readonly GPage[], base: string): unknown[] =>
    pages.map((p) => {
      const path = base ? `${base}/${p.slug}` : p.slug;
      paths.set(`${space.id}/${p.id}`, path);
      const common = { id: p.id, title: p.title, kind: p.type === 'document' ? 'sheet' : p.type, type: p.type, createdAt: p.createdAt, updatedAt: p.updatedAt, ...(p.hidden ? { hidden: true } : {}) };
      if (p.type === 'link') return { ...common, target: { kind: 'url', url: 'https://status.acme.test' }, href: 'https://status.acme.test' };
      if (p.type === 'group') return { ...common, slug: p.slug, path, pages: treeJson(space, p.pages ?? [], path) };
      return {
        ...common,
        slug: p.slug,
        path,
        ...(p.description ? { description: p.description } : {}),
        urls: { app: `${APP}/s/${space.id}/${path}` },
        layout: { title: true, description: true, tableOfContents: true, outline: true, pagination: true },
        tags: [],
        documentId: `doc-${p.id}`,
        pages: treeJson(space, p.pages ?? [], path),
      };
    });
  fake.route('GET', `${api}/user`, () => ({ json: { object: 'user', id: data.user.id, displayName: data.user.displayName, email: data.user.email, urls: { location: `${fake.url}${api}/user` } } }));
  fake.route('GET', `${api}/orgs`, (req) => ({
    json: list(
      data.orgs.map((o) => ({ object: 'organization', id: o.id, title: o.title, type: 'business', createdAt: at(0), emailDomains: [], inviteLinks: false, urls: { location: `${fake.url}${api}/orgs/${o.id}`, app: `${APP}/o/${o.id}` } })),
      req.query.get('page'),
      req.query.get('limit'),
    ),
  }));
  fake.route('GET', `${api}/orgs/:orgId/spaces`, (req) => {
    const o = data.orgs.find((x) => x.id === req.params.orgId);
    if (!o) return error(404, 'Organization not found');
    const items = o.spaces.map((s) => ({
      object: 'space',
      id: s.id,
      title: s.title,
      emoji: '',
      visibility: s.visibility,
      createdAt: s.createdAt,
      updatedAt: s.updatedAt,
      ...(s.deletedAt ? { deletedAt: s.deletedAt } : {}),
      urls: { location: `${fake.url}${api}/spaces/${s.id}`, app: `${APP}/s/${s.id}/`, ...(s.visibility === 'public' ? { published: `https://docs.acme.test/${s.id}/` } : {}) },
      organization: o.id,
      revision: s.revision,
      comments: 0,
      changeRequests: 0,
      changeRequestsOpen: 0,
      changeRequestsDraft: 0,
    }));
    return { json: list(items, req.query.get('page'), req.query.get('limit')) };
  });
  fake.route('GET', `${api}/spaces/:spaceId/content`, (req) => {
    const x = findSpace(req.params.spaceId);
    if (!x || x.s.deletedAt) return error(404, 'Space not found');
    return {
      json: { object: 'revision', id: x.s.revision, parents: [], pages: treeJson(x.s, x.s.pages, ''), files: [], reusableContents: [], tags: [], createdAt: x.s.updatedAt, type: 'edits', urls: { app: `${APP}/s/${x.s.id}/` } },
    };
  });
  fake.route('GET', `${api}/spaces/:spaceId/content/page/:pageId`, (req) => {
    const x = findSpace(req.params.spaceId);
    const p = x ? flat(x.s.pages).find((q) => q.id === req.params.pageId) : undefined;
    if (!x || !p || p.type !== 'document') return error(404, 'Page not found');
    treeJson(x.s, x.s.pages, '');
    const path = paths.get(`${x.s.id}/${p.id}`) ?? p.slug;
    const base = { id: p.id, title: p.title, kind: 'sheet', type: 'document', slug: p.slug, path, createdAt: p.createdAt, updatedAt: p.updatedAt, urls: { app: `${APP}/s/${x.s.id}/${path}` }, ...(p.description ? { description: p.description } : {}), pages: [], tags: [] };
    const format = req.query.get('format');
    if (format && format !== 'markdown' && format !== 'document') return error(400, 'Invalid format');
    if (format === 'markdown') return { json: { ...base, markdown: p.markdown ?? '' } };
    const nodes = (p.markdown ?? '').split('\n').filter(Boolean).map((line) => ({ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: line, marks: [] }] }] }));
    return { json: { ...base, document: { object: 'document', data: {}, nodes } } };
  });
  let issued = 0;
  fake.route('POST', '/oauth/token', oauthTokenEndpoint(fake, { code: 'gitbook-code', issue: () => ({ access_token: `gb_oauth_${++issued}`, refresh_token: `gb_refresh_${issued}`, expires_in: 3600 }) }));
  await fake.start();
  let revs = 1;
  const space = (id: string) => {
    const x = findSpace(id);
    if (!x) throw new Error(`no space ${id}`);
    return x.s;
  };
  return {
    get url() {
      return `${fake.url}${api}`;
    },
    get origin() {
      return fake.url;
    },
    token,
    data,
    fake,
    space,
    page(spaceId, pageId) {
      const p = flat(space(spaceId).pages).find((q) => q.id === pageId);
      if (!p) throw new Error(`no page ${pageId}`);
      return p;
    },
    edit(spaceId, change) {
      const s = space(spaceId);
      change(s);
      s.revision = `rev-x${++revs}`;
      s.updatedAt = tick();
      return s.revision;
    },
    tick,
    close: () => fake.close(),
  };
}
