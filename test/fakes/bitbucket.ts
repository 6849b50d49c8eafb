import { type FakeReply, type FakeRequest, oauthTokenEndpoint, VendorFake, bearerToken, offsetPage } from './kit/index.ts';

/**
 * A local Bitbucket Cloud REST 2.0 fake, speaking the wire format of developer.atlassian.com/cloud/bitbucket/rest:
 * `GET /2.0/user`, `GET /2.0/user/workspaces` (workspace_access), `GET /2.0/repositories/{workspace}`,
 * `GET /2.0/repositories/{ws}/{repo}`, `…/pullrequests` (repeatable `state`, default OPEN only), `…/pullrequests/{id}`
 * and `…/comments`, `…/issues` (404 when the tracker is off), `…/issues/{id}` and `…/comments`, `…/src/{branch}/{path}`
 * (raw file); paged `{pagelen, size, page, values, next}` with absolute `next` links; BBQL `q` for
 * `updated_on >=|>` with a datetime and `sort=-updated_on`; `{type: "error", error: {message}}` error bodies. HTTP Basic
 * (username:app password, email:API token) or Bearer tokens; `POST /site/oauth2/access_token`.
 */
export interface BBUser {
  display_name: string;
  account_id: string;
  uuid: string;
  nickname: string;
}
export interface BBComment {
  id: number;
  raw: string;
  user: BBUser;
  created_on: string;
  deleted?: boolean;
  inline?: { path: string; to: number };
}
export interface BBPullRequest {
  id: number;
  title: string;
  description: string;
  state: 'OPEN' | 'MERGED' | 'DECLINED' | 'SUPERSEDED';
  author: BBUser;
  source: string;
  destination: string;
  created_on: string;
  updated_on: string;
  comments: BBComment[];
}
export interface BBIssue {
  id: number;
  title: string;
  raw: string;
  state: string;
  kind: string;
  priority: string;
  reporter: BBUser;
  assignee: BBUser | null;
  created_on: string;
  updated_on: string;
  comments: BBComment[];
}
export interface BBRepo {
  uuid: string;
  workspace: string;
  slug: string;
  name: string;
  description: string;
  is_private: boolean;
  has_issues: boolean;
  mainbranch: string;
  language: string;
  created_on: string;
  updated_on: string;
  files: Record<string, string>;
  pullrequests: BBPullRequest[];
  issues: BBIssue[];
}
export interface BitbucketData {
  me: BBUser;
  workspaces: { slug: string; uuid: string; name: string }[];
  repos: BBRepo[];
}

export interface FakeBitbucket {
  readonly url: string;
  readonly username: string;
  readonly appPassword: string;
  readonly data: BitbucketData;
  readonly fake: VendorFake;
  /** Every listing of pull requests or issues: its path and query. */
  readonly listings: { path: string; q: string | null; states: string[]; sort: string | null }[];
  /** A Bitbucket timestamp later than every earlier one (for edits after a sync). */
  tick(): string;
  close(): Promise<void>;
}

const BASE = Date.UTC(2026, 0, 5, 9, 0, 0);
/** Bitbucket's own timestamp form: microseconds and a `+00:00` offset. */
export const bbStamp = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1123+00:00');
const parse = (s: string) => Date.parse(s.replace(/(\.\d{3})\d+/, '$1'));

export function seedBitbucket(opts: { prsPerRepo?: number } = {}): BitbucketData {
  const per = opts.prsPerRepo ?? 3;
  const users: BBUser[] = [
    { display_name: 'Ada Lovelace', account_id: '557058:ada-0001', uuid: '{0a0a0a0a-0000-4000-8000-000000000001}', nickname: 'ada' },
    { display_name: 'Grace Hopper', account_id: '557058:grace-0002', uuid: '{0a0a0a0a-0000-4000-8000-000000000002}', nickname: 'grace' },
  ];
  const u = (i: number) => users[i % users.length] as BBUser;
  let clock = 0;
  const at = () => bbStamp(BASE + clock++ * 60_000);
  const repo = (i: number, slug: string, isPrivate: boolean, hasIssues: boolean, readme: string | null): BBRepo => {
    const created = at();
    const r: BBRepo = {
      uuid: `{7b1e5a00-0000-4000-8000-00000000000${i}}`,
      workspace: 'acme',
      slug,
      name: slug,
      description: `The ${slug} service`,
      is_private: isPrivate,
      has_issues: hasIssues,
      mainbranch: 'main',
      language: 'typescript',
      created_on: created,
      updated_on: created,
      files: readme === null ? {} : { 'README.md': readme },
      pullrequests: [],
      issues: [],
    };
    for (let n = 1; n <= per; n++) {
      const t = at();
      const pr: BBPullRequest = { id: n, title: `${slug}: change ${n}`, description: `This **change** fixes item ${n} of ${slug}.`, state: (['OPEN', 'MERGED', 'DECLINED'] as const)[n % 3] ?? 'OPEN', author: u(n), source: `feature/${n}`, destination: 'main', created_on: t, updated_on: t, comments: [] };
      if (n === 1) {
        pr.comments.push({ id: 100 + i * 10, raw: 'Looks good, one nit below.', user: u(n + 1), created_on: at() });
        pr.comments.push({ id: 101 + i * 10, raw: 'Rename this variable.', user: u(n + 1), created_on: at(), inline: { path: 'src/index.ts', to: 12 } });
        pr.comments.push({ id: 102 + i * 10, raw: 'Removed comment', user: u(n), created_on: at(), deleted: true });
        pr.updated_on = pr.comments.at(-1)?.created_on ?? t;
      }
      r.pullrequests.push(pr);
    }
    if (hasIssues) {
      const t = at();
      r.issues.push({ id: 1, title: 'Crash when the config file is empty', raw: 'Steps:\n\n1. empty `config.yml`\n2. start', state: 'new', kind: 'bug', priority: 'major', reporter: u(0), assignee: u(1), created_on: t, updated_on: t, comments: [{ id: 900 + i, raw: 'Reproduced on 2.3.', user: u(1), created_on: at() }] });
    }
    return r;
  };
  return {
    me: u(0),
    workspaces: [{ slug: 'acme', uuid: '{a1c3e000-0000-4000-8000-00000000000a}', name: 'Acme' }],
    repos: [repo(1, 'api', true, true, '# API\n\nThe public API of Acme.\n\n## Running\n\n`npm start`'), repo(2, 'website', false, false, null)],
  };
}

class QueryError extends Error {}

/** BBQL, the subset the connector uses: `updated_on >= <datetime>` / `updated_on > <datetime>`. */
function bbql(q: string | null): (x: { updated_on: string }) => boolean {
  if (!q) return () => true;
  const m = /^updated_on\s*(>=|>)\s*"?([0-9T:.+\-Z]+)"?$/.exec(q.trim());
  if (!m) throw new QueryError(`Invalid field name or value for BBQL: ${q}`);
  const at = Date.parse(m[2] ?? '');
  if (Number.isNaN(at)) throw new QueryError(`Invalid datetime in BBQL: ${m[2]}`);
  return m[1] === '>=' ? (x) => parse(x.updated_on) >= at : (x) => parse(x.updated_on) > at;
}

const errorBody = (status: number, message: string): FakeReply => ({ status, json: { type: 'error', error: { message } } });

export async function startFakeBitbucket(data: BitbucketData = seedBitbucket(), opts: { pagelen?: number } = {}): Promise<FakeBitbucket> {
  const username = 'ada';
  const appPassword = 'ATBBfakeAppPassword0123456789';
  const listings: FakeBitbucket['listings'] = [];
  let clock = BASE + 100_000 * 60_000;
  const fake = new VendorFake({
    name: 'Bitbucket',
    tokens: [`${username}:${appPassword}`, 'grace:ATBBgraceAppPassword'],
    tokenOf: ({ headers }) => {
      const h = headers.authorization ?? '';
      if (h.startsWith('Basic ')) return Buffer.from(h.slice(6), 'base64').toString('utf8');
      return bearerToken({ headers });
    },
    publicPath: (path) => path === '/site/oauth2/access_token',
    unauthorized: () => errorBody(401, 'Access token expired or invalid. Use your Bitbucket username and an app password or API token.'),
    rateLimited: () => ({ status: 429, json: { type: 'error', error: { message: 'Rate limit for this resource has been exceeded' } } }),
    serverError: (status) => errorBody(status, 'Something went wrong'),
  });

  const userJson = (x: BBUser) => ({ type: 'user', display_name: x.display_name, uuid: x.uuid, account_id: x.account_id, nickname: x.nickname, links: { html: { href: `https://bitbucket.org/${x.uuid}/` } } });
  const html = (href: string) => ({ self: { href: href.replace('https://bitbucket.org/', 'https://api.bitbucket.org/2.0/repositories/') }, html: { href } });
  const repoJson = (r: BBRepo) => ({
    type: 'repository',
    uuid: r.uuid,
    full_name: `${r.workspace}/${r.slug}`,
    slug: r.slug,
    name: r.name,
    description: r.description,
    is_private: r.is_private,
    has_issues: r.has_issues,
    has_wiki: false,
    language: r.language,
    scm: 'git',
    mainbranch: { type: 'branch', name: r.mainbranch },
    project: { type: 'project', key: 'PLAT', name: 'Platform' },
    workspace: { type: 'workspace', slug: r.workspace },
    links: html(`https://bitbucket.org/${r.workspace}/${r.slug}`),
    created_on: r.created_on,
    updated_on: r.updated_on,
  });
  const commentJson = (r: BBRepo, kind: 'pullrequests' | 'issues', parent: number, c: BBComment) => ({
    type: kind === 'pullrequests' ? 'pullrequest_comment' : 'issue_comment',
    id: c.id,
    content: { type: 'rendered', raw: c.raw, markup: 'markdown', html: `<p>${c.raw}</p>` },
    user: userJson(c.user),
    created_on: c.created_on,
    updated_on: c.created_on,
    deleted: c.deleted ?? false,
    ...(c.inline ? { inline: { path: c.inline.path, to: c.inline.to, from: null } } : {}),
    links: html(`https://bitbucket.org/${r.workspace}/${r.slug}/${kind === 'pullrequests' ? 'pull-requests' : 'issues'}/${parent}#comment-${c.id}`),
  });
  const prJson = (r: BBRepo, p: BBPullRequest) => ({
    type: 'pullrequest',
    id: p.id,
    title: p.title,
    description: p.description,
    summary: { type: 'rendered', raw: p.description, markup: 'markdown', html: `<p>${p.description}</p>` },
    state: p.state,
    author: userJson(p.author),
    source: { branch: { name: p.source }, repository: { full_name: `${r.workspace}/${r.slug}` } },
    destination: { branch: { name: p.destination }, repository: { full_name: `${r.workspace}/${r.slug}` } },
    comment_count: p.comments.filter((c) => !c.deleted).length,
    created_on: p.created_on,
    updated_on: p.updated_on,
    links: html(`https://bitbucket.org/${r.workspace}/${r.slug}/pull-requests/${p.id}`),
  });
  const issueJson = (r: BBRepo, i: BBIssue) => ({
    type: 'issue',
    id: i.id,
    title: i.title,
    content: { type: 'rendered', raw: i.raw, markup: 'markdown', html: `<p>${i.raw}</p>` },
    state: i.state,
    kind: i.kind,
    priority: i.priority,
    reporter: userJson(i.reporter),
    assignee: i.assignee ? userJson(i.assignee) : null,
    created_on: i.created_on,
    updated_on: i.updated_on,
    links: html(`https://bitbucket.org/${r.workspace}/${r.slug}/issues/${i.id}`),
  });

  /** One page of `items` with Bitbucket's envelope: `page`/`pagelen` numbers and an absolute `next` link. */
  const pageOf = <T>(req: FakeRequest, items: readonly T[], map: (x: T) => unknown): FakeReply => {
    const pagelen = Math.min(opts.pagelen ?? 100, Math.max(1, Number(req.query.get('pagelen') ?? 10)));
    const page = Math.max(1, Number(req.query.get('page') ?? 1));
    const p = offsetPage(items, (page - 1) * pagelen, pagelen);
    const next = new URL(req.url.toString());
    next.searchParams.set('page', String(page + 1));
    return { json: { pagelen, size: p.total, page, values: p.items.map(map), ...(p.next !== null ? { next: next.toString() } : {}) } };
  };
  const findRepo = (ws: string, slug: string) => data.repos.find((r) => r.workspace === ws && r.slug === slug);
  const noRepo = () => errorBody(404, 'Repository not found');
  const listing = (req: FakeRequest, items: { updated_on: string }[]) => {
    const sort = req.query.get('sort');
    listings.push({ path: req.path, q: req.query.get('q'), states: req.query.getAll('state'), sort });
    const filtered = items.filter(bbql(req.query.get('q')));
    if (sort === '-updated_on') filtered.sort((a, b) => parse(b.updated_on) - parse(a.updated_on));
    return filtered;
  };
  const guard = (handler: (req: FakeRequest) => FakeReply) => (req: FakeRequest) => {
    try {
      return handler(req);
    } catch (err) {
      if (err instanceof QueryError) return errorBody(400, err.message);
      throw err;
    }
  };

  fake.route('GET', '/2.0/user', () => ({ json: { ...userJson(data.me), username: data.me.nickname, created_on: '2019-01-01T00:00:00+00:00', is_staff: false } }));
  fake.route('GET', '/2.0/user/workspaces', (req) =>
    pageOf(req, data.workspaces, (w) => ({ type: 'workspace_access', administrator: true, workspace: { type: 'workspace_base', uuid: w.uuid, slug: w.slug, links: html(`https://bitbucket.org/${w.slug}/`) } })),
  );
  fake.route('GET', '/2.0/workspaces', () => errorBody(410, 'CHANGE-2770 - Functionality has been deprecated'));
  fake.route('GET', '/2.0/repositories/:ws', (req) => {
    if (!data.workspaces.some((w) => w.slug === req.params.ws)) return errorBody(404, `No workspace with identifier '${req.params.ws}'.`);
    return pageOf(req, data.repos.filter((r) => r.workspace === req.params.ws), repoJson);
  });
  fake.route('GET', '/2.0/repositories/:ws/:repo', (req) => {
    const r = findRepo(req.params.ws ?? '', req.params.repo ?? '');
    return r ? { json: repoJson(r) } : noRepo();
  });
  fake.route(
    'GET',
    '/2.0/repositories/:ws/:repo/pullrequests',
    guard((req) => {
      const r = findRepo(req.params.ws ?? '', req.params.repo ?? '');
      if (!r) return noRepo();
      const states = req.query.getAll('state');
      const wanted = states.length > 0 ? states : ['OPEN'];
      return pageOf(req, listing(req, r.pullrequests.filter((p) => wanted.includes(p.state))) as BBPullRequest[], (p) => prJson(r, p));
    }),
  );
  fake.route('GET', '/2.0/repositories/:ws/:repo/pullrequests/:id', (req) => {
    const r = findRepo(req.params.ws ?? '', req.params.repo ?? '');
    const p = r?.pullrequests.find((x) => x.id === Number(req.params.id));
    return r && p ? { json: prJson(r, p) } : errorBody(404, 'Pull request not found');
  });
  fake.route('GET', '/2.0/repositories/:ws/:repo/pullrequests/:id/comments', (req) => {
    const r = findRepo(req.params.ws ?? '', req.params.repo ?? '');
    const p = r?.pullrequests.find((x) => x.id === Number(req.params.id));
    return r && p ? pageOf(req, p.comments, (c) => commentJson(r, 'pullrequests', p.id, c)) : errorBody(404, 'Pull request not found');
  });
  const tracker = (req: FakeRequest) => {
    const r = findRepo(req.params.ws ?? '', req.params.repo ?? '');
    if (!r) return { error: noRepo() };
    if (!r.has_issues) return { error: errorBody(404, 'Repository has no issue tracker.') };
    return { r };
  };
  fake.route(
    'GET',
    '/2.0/repositories/:ws/:repo/issues',
    guard((req) => {
      const t = tracker(req);
      if (!t.r) return t.error as FakeReply;
      const r = t.r;
      return pageOf(req, listing(req, r.issues) as BBIssue[], (i) => issueJson(r, i));
    }),
  );
  fake.route('GET', '/2.0/repositories/:ws/:repo/issues/:id', (req) => {
    const t = tracker(req);
    if (!t.r) return t.error as FakeReply;
    const i = t.r.issues.find((x) => x.id === Number(req.params.id));
    return i ? { json: issueJson(t.r, i) } : errorBody(404, 'Issue not found');
  });
  fake.route('GET', '/2.0/repositories/:ws/:repo/issues/:id/comments', (req) => {
    const t = tracker(req);
    if (!t.r) return t.error as FakeReply;
    const r = t.r;
    const i = r.issues.find((x) => x.id === Number(req.params.id));
    return i ? pageOf(req, i.comments, (c) => commentJson(r, 'issues', i.id, c)) : errorBody(404, 'Issue not found');
  });
  fake.route('GET', '/2.0/repositories/:ws/:repo/src/:branch/:path*', (req) => {
    const r = findRepo(req.params.ws ?? '', req.params.repo ?? '');
    if (!r) return noRepo();
    if (req.params.branch !== r.mainbranch) return errorBody(404, `Commit not found: ${req.params.branch}`);
    const file = r.files[req.params.path ?? ''];
    return file === undefined ? errorBody(404, 'No such file or directory') : { headers: { 'content-type': 'text/plain' }, body: file };
  });
  let issued = 0;
  fake.route('POST', '/site/oauth2/access_token', oauthTokenEndpoint(fake, { code: 'bitbucket-code', issue: () => ({ access_token: `bb-oauth-${++issued}`, refresh_token: `bb-rt-${issued}`, expires_in: 7200, scopes: 'repository pullrequest issue account' }) }));

  await fake.start();
  return {
    get url() {
      return fake.url;
    },
    username,
    appPassword,
    data,
    fake,
    listings,
    tick: () => {
      clock += 60_000;
      return bbStamp(clock);
    },
    close: () => fake.close(),
  };
}
