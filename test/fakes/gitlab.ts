import { createHash } from 'node:crypto';
import { type FakeReply, type FakeRequest, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local GitLab REST API v4 fake (`<url>/api/v4/…`) on the kit's VendorFake, speaking GitLab's wire format as its
 * API reference documents it: tokens in `PRIVATE-TOKEN` or `Authorization: Bearer`; errors as `{"message": "404
 * Project Not Found"}`; offset pagination (`page`/`per_page`, `X-Page`, `X-Next-Page` (empty on the last page),
 * `X-Total`, `Link`); keyset pagination of `GET /projects` (`pagination=keyset&order_by=id`, next page only in `Link`
 * with `id_after`); 429 "Retry later" with `Retry-After`; projects addressed by id or URL-encoded path; file paths
 * and wiki slugs URL-encoded in one segment; `updated_after` inclusive; raw files with `X-Gitlab-*` headers.
 */
export interface GUser {
  id: number;
  username: string;
  name: string;
  public_email: string;
}
export interface GFile {
  content: string | Buffer;
  commit: string;
}
export interface GWiki {
  slug: string;
  title: string;
  content: string;
  format: string;
}
export interface GProject {
  id: number;
  path_with_namespace: string;
  name_with_namespace: string;
  description: string;
  visibility: 'public' | 'internal' | 'private';
  archived: boolean;
  topics: string[];
  created_at: string;
  last_activity_at: string;
  default_branch: string;
  namespace: { id: number; full_path: string };
  issues_enabled: boolean;
  merge_requests_enabled: boolean;
  wiki_enabled: boolean;
  /** The token's user is a member (`membership=true`). */
  member: boolean;
  head: string;
  files: Map<string, GFile>;
  wikis: GWiki[];
}
export interface GIssuable {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string | null;
  state: string;
  labels: string[];
  author: GUser;
  assignees: GUser[];
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  confidential?: boolean;
  source_branch?: string;
  target_branch?: string;
  draft?: boolean;
  merged_at?: string | null;
}
export interface GNote {
  id: number;
  body: string;
  author: GUser;
  created_at: string;
  system: boolean;
}
export interface GCommit {
  id: string;
  author_name: string;
  author_email: string;
  committed_date: string;
}
export interface GitLabData {
  user: GUser;
  users: GUser[];
  groups: { id: number; full_path: string }[];
  projects: GProject[];
  issues: GIssuable[];
  mergeRequests: GIssuable[];
  notes: Map<string, GNote[]>;
  commits: Map<string, GCommit>;
}

export const blobId = (content: string | Buffer) => createHash('sha1').update(`blob ${Buffer.byteLength(content)}\0`).update(content).digest('hex');

export interface FakeGitLab {
  readonly url: string;
  readonly api: string;
  readonly token: string;
  readonly data: GitLabData;
  readonly fake: VendorFake;
  /** A strictly increasing timestamp after every earlier one (and after now). */
  tick(): string;
  /** Commits `files` (null = delete) to a project's default branch: a new head, new blob ids. */
  commit(project: GProject, files: Record<string, string | Buffer | null>, author?: string): string;
  addIssue(project: GProject, title: string, extra?: Partial<GIssuable>): GIssuable;
  close(): Promise<void>;
}

const TOKEN = 'glpat-atrium-test-token-0001';

export function seedGitLab(opts: { issuesPerProject?: number } = {}): GitLabData {
  const n = opts.issuesPerProject ?? 3;
  const ada: GUser = { id: 11, username: 'ada', name: 'Ada Lovelace', public_email: 'Ada@Example.com' };
  const bob: GUser = { id: 12, username: 'bob', name: 'Bob Builder', public_email: '' };
  const day = (d: number) => new Date(Date.UTC(2025, 0, 1 + d, 9)).toISOString();
  const project = (id: number, path: string, visibility: GProject['visibility'], extra: Partial<GProject> = {}): GProject => {
    const ns = path.split('/').slice(0, -1).join('/');
    return {
      id,
      path_with_namespace: path,
      name_with_namespace: path.split('/').join(' / '),
      description: `The ${path} project`,
      visibility,
      archived: false,
      topics: ['docs'],
      created_at: day(0),
      last_activity_at: day(5),
      default_branch: 'main',
      namespace: { id: ns === 'acme' ? 100 : 101, full_path: ns },
      issues_enabled: true,
      merge_requests_enabled: true,
      wiki_enabled: true,
      member: true,
      head: '',
      files: new Map(),
      wikis: [],
      ...extra,
    };
  };
  const projects = [
    project(1, 'acme/handbook', 'internal'),
    project(2, 'acme/platform/api', 'private'),
    project(3, 'acme/website', 'public', { wiki_enabled: false }),
    project(4, 'acme/old', 'private', { archived: true }),
    project(5, 'other/elsewhere', 'public', { member: false }),
  ];
  const data: GitLabData = { user: ada, users: [ada, bob], groups: [{ id: 100, full_path: 'acme' }, { id: 101, full_path: 'acme/platform' }], projects, issues: [], mergeRequests: [], notes: new Map(), commits: new Map() };
  let issueId = 1000;
  for (const p of projects) {
    for (let i = 1; i <= n; i++) {
      data.issues.push({
        id: ++issueId,
        iid: i,
        project_id: p.id,
        title: `${p.path_with_namespace.split('/').at(-1)} issue ${i}`,
        description: `Steps to reproduce problem ${i} in ${p.path_with_namespace}.`,
        state: i % 2 ? 'opened' : 'closed',
        labels: ['bug'],
        author: i % 2 ? ada : bob,
        assignees: [bob],
        created_at: day(i),
        updated_at: day(i + 1),
        closed_at: i % 2 ? null : day(i + 1),
      });
    }
    data.mergeRequests.push({
      id: 5000 + p.id,
      iid: 1,
      project_id: p.id,
      title: 'Add onboarding guide',
      description: 'Adds the onboarding guide for new engineers.',
      state: 'merged',
      labels: ['docs'],
      author: bob,
      assignees: [],
      created_at: day(2),
      updated_at: day(3),
      closed_at: null,
      source_branch: 'onboarding',
      target_branch: 'main',
      draft: false,
      merged_at: day(3),
    });
  }
  const handbook = projects[0];
  const api = projects[1];
  if (handbook && api) {
    const seedCommit = (p: GProject, files: Record<string, string>, sha: string, date: string, author: string) => {
      data.commits.set(sha, { id: sha, author_name: author, author_email: `${author.toLowerCase().split(' ')[0]}@example.com`, committed_date: date });
      for (const [path, content] of Object.entries(files)) p.files.set(path, { content, commit: sha });
      p.head = sha;
    };
    seedCommit(handbook, { 'README.md': '# Handbook\n\nHow we work at Acme.', 'docs/vacation-policy.md': '# Vacation policy\n\nEveryone gets 30 days of paid leave.', 'src/app.ts': 'export {};' }, 'c0ffee0000000000000000000000000000000001', day(3), 'Ada Lovelace');
    seedCommit(api, { 'docs/deploy.md': '# Deploy\n\nRun the canary pipeline first.', 'notes.txt': 'Rotate the signing keys every quarter.' }, 'c0ffee0000000000000000000000000000000002', day(4), 'Bob Builder');
    handbook.wikis.push({ slug: 'home', title: 'home', content: 'Welcome to the handbook wiki.', format: 'markdown' }, { slug: 'guides/onboarding', title: 'onboarding', content: 'Day one: get your laptop.', format: 'markdown' });
    data.notes.set(`issues:${handbook.id}:1`, [
      { id: 1, body: 'I can reproduce this on staging.', author: bob, created_at: day(2), system: false },
      { id: 2, body: 'changed the description', author: ada, created_at: day(2), system: true },
    ]);
  }
  return data;
}

export async function startFakeGitLab(data: GitLabData = seedGitLab()): Promise<FakeGitLab> {
  const fake = new VendorFake({
    name: 'GitLab',
    // A second (unused) token keeps the set non-empty after `revoke(TOKEN)`: an empty set means "no token check".
    tokens: [TOKEN, 'glpat-atrium-test-other-user'],
    tokenOf: ({ headers }) => {
      const pt = headers['private-token'];
      if (typeof pt === 'string') return pt;
      const a = headers.authorization;
      return a?.startsWith('Bearer ') ? a.slice(7) : null;
    },
    publicPath: (p) => p === '/oauth/token',
    unauthorized: () => ({ status: 401, json: { message: '401 Unauthorized' } }),
    rateLimited: () => ({ status: 429, headers: { 'content-type': 'text/plain', 'ratelimit-limit': '2000', 'ratelimit-remaining': '0' }, body: 'Retry later\n' }),
    serverError: (status) => ({ json: { message: `${status} Internal Server Error` } }),
  });
  let last = Date.now();
  const tick = () => {
    last = Math.max(last + 1000, Date.now());
    return new Date(last).toISOString();
  };
  const notFound = (what: string): FakeReply => ({ status: 404, json: { message: `404 ${what} Not Found` } });
  const projectOf = (ref: string | undefined) => data.projects.find((p) => String(p.id) === ref || p.path_with_namespace === ref);
  const projectJson = (p: GProject) => {
    const { member: _m, head: _h, files, wikis: _w, ...rest } = p;
    return { ...rest, web_url: `${fake.url}/${p.path_with_namespace}`, empty_repo: files.size === 0 && !p.head, owner: data.user };
  };
  const withUrl = (p: GProject, kind: 'issues' | 'merge_requests', i: GIssuable) => ({ ...i, web_url: `${fake.url}/${p.path_with_namespace}/-/${kind}/${i.iid}` });

  /** Offset pagination as GitLab answers it. */
  const offset = <T>(req: FakeRequest, items: readonly T[]): FakeReply => {
    const perPage = Math.min(100, Number(req.query.get('per_page') ?? 20) || 20);
    const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1);
    const slice = items.slice((page - 1) * perPage, page * perPage);
    const totalPages = Math.max(1, Math.ceil(items.length / perPage));
    const next = page < totalPages ? String(page + 1) : '';
    const link = (n: number, rel: string) => {
      const u = new URL(req.url.toString());
      u.searchParams.set('page', String(n));
      return `<${u.toString()}>; rel="${rel}"`;
    };
    const links = [...(next ? [link(page + 1, 'next')] : []), link(1, 'first'), link(totalPages, 'last')];
    return {
      json: slice,
      headers: { 'x-page': String(page), 'x-per-page': String(perPage), 'x-next-page': next, 'x-prev-page': page > 1 ? String(page - 1) : '', 'x-total': String(items.length), 'x-total-pages': String(totalPages), link: links.join(', ') },
    };
  };

  const issuableRoutes = (kind: 'issues' | 'merge_requests', list: () => GIssuable[]) => {
    fake.route('GET', `/api/v4/projects/:id/${kind}`, (req) => {
      const p = projectOf(req.params.id);
      if (!p) return notFound('Project');
      if (kind === 'issues' ? !p.issues_enabled : !p.merge_requests_enabled) return { status: 403, json: { message: '403 Forbidden' } };
      const after = req.query.get('updated_after');
      const orderBy = req.query.get('order_by') ?? 'created_at';
      const dir = req.query.get('sort') === 'asc' ? 1 : -1;
      const items = list()
        .filter((i) => i.project_id === p.id && (!after || Date.parse(i.updated_at) >= Date.parse(after)))
        .sort((a, b) => dir * (Date.parse(orderBy === 'updated_at' ? a.updated_at : a.created_at) - Date.parse(orderBy === 'updated_at' ? b.updated_at : b.created_at)) || dir * (a.id - b.id));
      const r = offset(req, items);
      return { ...r, json: (r.json as GIssuable[]).map((i) => withUrl(p, kind, i)) };
    });
    fake.route('GET', `/api/v4/projects/:id/${kind}/:iid`, (req) => {
      const p = projectOf(req.params.id);
      const i = p && list().find((x) => x.project_id === p.id && String(x.iid) === req.params.iid);
      return p && i ? { json: withUrl(p, kind, i) } : notFound(kind === 'issues' ? 'Issue' : 'Merge Request');
    });
    fake.route('GET', `/api/v4/projects/:id/${kind}/:iid/notes`, (req) => {
      const p = projectOf(req.params.id);
      if (!p) return notFound('Project');
      return offset(req, data.notes.get(`${kind}:${p.id}:${req.params.iid}`) ?? []);
    });
  };

  fake
    .route('GET', '/api/v4/user', () => ({ json: { ...data.user, state: 'active', web_url: `${fake.url}/${data.user.username}` } }))
    .route('GET', '/api/v4/projects', (req) => {
      let items = data.projects.filter((p) => (req.query.get('membership') === 'true' ? p.member : true) && (req.query.get('archived') === 'false' ? !p.archived : true)).sort((a, b) => a.id - b.id);
      if (req.query.get('pagination') !== 'keyset') return { ...offset(req, items.map(projectJson)) };
      if (req.query.get('order_by') !== 'id') return { status: 400, json: { error: 'This pagination method is not supported with this order_by' } };
      const idAfter = Number(req.query.get('id_after') ?? 0);
      items = items.filter((p) => p.id > idAfter);
      const perPage = Number(req.query.get('per_page') ?? 20);
      const page = items.slice(0, perPage);
      const last = page.at(-1);
      const headers: Record<string, string> = {};
      if (last && items.length > perPage) {
        const u = new URL(req.url.toString());
        u.searchParams.set('id_after', String(last.id));
        headers.link = `<${u.toString()}>; rel="next"`;
      }
      return { json: page.map(projectJson), headers };
    })
    .route('GET', '/api/v4/projects/:id', (req) => {
      const p = projectOf(req.params.id);
      return p ? { json: projectJson(p) } : notFound('Project');
    })
    .route('GET', '/api/v4/groups/:id', (req) => {
      const g = data.groups.find((x) => String(x.id) === req.params.id || x.full_path === req.params.id);
      return g ? { json: { ...g, path: g.full_path.split('/').at(-1) } } : notFound('Group');
    })
    .route('GET', '/api/v4/groups/:id/projects', (req) => {
      const g = data.groups.find((x) => String(x.id) === req.params.id || x.full_path === req.params.id);
      if (!g) return notFound('Group');
      const sub = req.query.get('include_subgroups') === 'true';
      const items = data.projects
        .filter((p) => (sub ? p.namespace.full_path === g.full_path || p.namespace.full_path.startsWith(`${g.full_path}/`) : p.namespace.full_path === g.full_path))
        .filter((p) => (req.query.get('archived') === 'false' ? !p.archived : true))
        .sort((a, b) => a.id - b.id);
      return offset(req, items.map(projectJson));
    })
    .route('GET', '/api/v4/projects/:id/repository/branches/:branch', (req) => {
      const p = projectOf(req.params.id);
      if (!p?.head || req.params.branch !== p.default_branch) return notFound('Branch');
      const c = data.commits.get(p.head);
      return { json: { name: p.default_branch, default: true, commit: { id: p.head, committed_date: c?.committed_date } } };
    })
    .route('GET', '/api/v4/projects/:id/repository/tree', (req) => {
      const p = projectOf(req.params.id);
      if (!p) return notFound('Project');
      if (!p.head) return notFound('Tree');
      const entries: { id: string; name: string; type: string; path: string; mode: string }[] = [];
      const dirs = new Set<string>();
      for (const [path, f] of [...p.files].sort(([a], [b]) => a.localeCompare(b))) {
        const parts = path.split('/');
        for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
        entries.push({ id: blobId(f.content), name: parts.at(-1) ?? path, type: 'blob', path, mode: '100644' });
      }
      for (const d of dirs) entries.push({ id: createHash('sha1').update(`tree ${d}`).digest('hex'), name: d.split('/').at(-1) ?? d, type: 'tree', path: d, mode: '040000' });
      return offset(req, req.query.get('recursive') === 'true' ? entries : entries.filter((e) => !e.path.includes('/')));
    })
    .route('GET', '/api/v4/projects/:id/repository/files/:file_path/raw', (req) => {
      const p = projectOf(req.params.id);
      const f = p?.files.get(req.params.file_path ?? '');
      if (!p || !f) return notFound('File');
      const body = Buffer.from(f.content);
      return {
        body,
        headers: {
          'content-type': 'text/plain; charset=utf-8',
          'x-gitlab-blob-id': blobId(f.content),
          'x-gitlab-commit-id': p.head,
          'x-gitlab-last-commit-id': f.commit,
          'x-gitlab-file-path': req.params.file_path ?? '',
          'x-gitlab-ref': req.query.get('ref') ?? p.default_branch,
          'x-gitlab-size': String(body.byteLength),
        },
      };
    })
    .route('GET', '/api/v4/projects/:id/repository/commits/:sha', (req) => {
      const c = data.commits.get(req.params.sha ?? '');
      return c ? { json: { ...c, short_id: c.id.slice(0, 8), title: 'commit', authored_date: c.committed_date } } : notFound('Commit');
    })
    .route('GET', '/api/v4/projects/:id/wikis', (req) => {
      const p = projectOf(req.params.id);
      if (!p) return notFound('Project');
      if (!p.wiki_enabled) return { status: 403, json: { message: '403 Forbidden' } };
      const content = req.query.get('with_content') === '1' || req.query.get('with_content') === 'true';
      return { json: p.wikis.map((w) => ({ ...(content ? { content: w.content } : {}), format: w.format, slug: w.slug, title: w.title, encoding: 'UTF-8' })) };
    })
    .route('GET', '/api/v4/projects/:id/wikis/:slug', (req) => {
      const p = projectOf(req.params.id);
      const w = p?.wikis.find((x) => x.slug === req.params.slug);
      return w ? { json: { ...w, encoding: 'UTF-8' } } : notFound('Wiki Page');
    });
  issuableRoutes('issues', () => data.issues);
  issuableRoutes('merge_requests', () => data.mergeRequests);
  let tokenN = 0;
  fake.route('POST', '/oauth/token', oauthTokenEndpoint(fake, { code: 'gitlab-oauth-code', issue: () => ({ access_token: `gitlab-oauth-token-${++tokenN}`, refresh_token: `gitlab-refresh-${tokenN}`, expires_in: 7200, scope: 'read_api read_repository' }) }));
  await fake.start();

  let commitN = 0;
  return {
    get url() {
      return fake.url;
    },
    get api() {
      return `${fake.url}/api/v4`;
    },
    token: TOKEN,
    data,
    fake,
    tick,
    commit(project, files, author = 'Ada Lovelace') {
      const sha = createHash('sha1').update(`commit ${++commitN} ${Date.now()}`).digest('hex');
      data.commits.set(sha, { id: sha, author_name: author, author_email: 'ada@example.com', committed_date: tick() });
      for (const [path, content] of Object.entries(files)) {
        if (content === null) project.files.delete(path);
        else project.files.set(path, { content, commit: sha });
      }
      project.head = sha;
      return sha;
    },
    addIssue(project, title, extra = {}) {
      const t = tick();
      const iid = Math.max(0, ...data.issues.filter((i) => i.project_id === project.id).map((i) => i.iid)) + 1;
      const issue: GIssuable = { id: 9000 + data.issues.length, iid, project_id: project.id, title, description: `${title}: details.`, state: 'opened', labels: [], author: data.user, assignees: [], created_at: t, updated_at: t, closed_at: null, ...extra };
      data.issues.push(issue);
      return issue;
    },
    close: () => fake.close(),
  };
}
