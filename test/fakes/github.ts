import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGitRepos, serveGit } from './git-http.ts';

/**
 * A local GitHub REST v3 + GraphQL fake speaking the real wire format (docs.github.com/rest): token auth
 * with `401 Bad credentials`, `Link: <…>; rel="next"` page pagination, `x-ratelimit-*` headers, secondary
 * rate limits as 429 with `Retry-After`, git trees/blobs, and the discussions GraphQL connection. Wikis are
 * git repositories at `/<owner>/<repo>.wiki.git` served over git's smart HTTP protocol by the real
 * `git http-backend` (Basic auth, password = the token); `wiki()` commits pages to them.
 */
export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  user: string;
  created_at: string;
  updated_at: string;
  pull?: boolean;
  labels?: string[];
}
export interface FakeDiscussion {
  number: number;
  title: string;
  body: string;
  user: string;
  created_at: string;
  updated_at: string;
}
export interface FakeRepo {
  full_name: string;
  private: boolean;
  fork?: boolean;
  archived?: boolean;
  description?: string;
  default_branch?: string;
  has_discussions?: boolean;
  /** GitHub's default is true; the wiki's git repository exists only once `wiki()` committed a page. */
  has_wiki?: boolean;
  issues: FakeIssue[];
  files: Map<string, string>;
  discussions: FakeDiscussion[];
}

export interface FakeGitHub {
  readonly url: string;
  readonly token: string;
  readonly repos: FakeRepo[];
  /** Every request as `METHOD /path?query`. */
  readonly requests: string[];
  /** The next `count` API requests answer 429 with `Retry-After: seconds`. */
  rateLimitNext(count: number, retryAfterSeconds?: number | null): void;
  /** Delay every response by this many ms (to kill a worker mid-sync). */
  delayMs: number;
  /** Commits wiki page changes (content, or null to delete) to `<repo>.wiki.git`; returns the commit sha. */
  wiki(fullName: string, pages: Record<string, string | null>, opts?: { author?: string; date?: string }): string;
  /** The next `count` git requests (wiki `info/refs`, `git-upload-pack`) answer 429 with `Retry-After: seconds`. */
  gitRateLimitNext(count: number, retryAfterSeconds: number): void;
  /** The token the git endpoints accept (default: `token`), to simulate git rejecting the REST token. */
  gitToken: string;
  created: { repo: string; title: string; body?: string; number: number }[];
  comments: { repo: string; issue: number; body: string }[];
  close(): Promise<void>;
}

const sha = (s: string) => createHash('sha1').update(s).digest('hex');

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): boolean {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'x-ratelimit-limit': '5000',
    'x-ratelimit-remaining': '4999',
    'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
    'x-ratelimit-resource': 'core',
    'x-github-request-id': sha(String(Math.random())).slice(0, 16).toUpperCase(),
    ...headers,
  });
  res.end(JSON.stringify(body));
  return true;
}

function paginate<T>(items: T[], url: URL, base: string): { page: T[]; link?: string } {
  const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30));
  const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
  const slice = items.slice((page - 1) * perPage, page * perPage);
  if (page * perPage >= items.length) return { page: slice };
  const next = new URL(url.toString(), base);
  next.searchParams.set('page', String(page + 1));
  const last = new URL(url.toString(), base);
  last.searchParams.set('page', String(Math.ceil(items.length / perPage)));
  return { page: slice, link: `<${base}${next.pathname}${next.search}>; rel="next", <${base}${last.pathname}${last.search}>; rel="last"` };
}

export async function startFakeGitHub(opts: { token?: string; repos?: FakeRepo[]; scopes?: string } = {}): Promise<FakeGitHub> {
  const token = opts.token ?? 'ghp_fake_token_0123456789';
  const repos = opts.repos ?? [];
  const requests: string[] = [];
  let limited = 0;
  let retryAfter: number | null = 1;
  const state = {
    delayMs: 0,
    created: [] as FakeGitHub['created'],
    comments: [] as FakeGitHub['comments'],
  };
  let base = '';
  const git = createGitRepos();
  let gitToken = token;
  let gitLimited = 0;
  let gitRetryAfter = 1;

  const repoJson = (r: FakeRepo) => ({
    id: Number.parseInt(sha(r.full_name).slice(0, 8), 16),
    name: r.full_name.split('/')[1],
    full_name: r.full_name,
    private: r.private,
    owner: { login: r.full_name.split('/')[0], type: 'User' },
    html_url: `${base}/${r.full_name}`,
    clone_url: `${base}/${r.full_name}.git`,
    description: r.description ?? null,
    fork: r.fork ?? false,
    archived: r.archived ?? false,
    default_branch: r.default_branch ?? 'main',
    has_discussions: r.has_discussions ?? false,
    has_wiki: r.has_wiki ?? true,
    topics: [],
    created_at: '2024-01-01T00:00:00Z',
    updated_at: '2024-06-01T00:00:00Z',
  });
  const issueJson = (r: FakeRepo, i: FakeIssue) => ({
    id: i.number * 1000,
    number: i.number,
    title: i.title,
    body: i.body,
    state: i.state,
    user: { login: i.user, id: 1, type: 'User' },
    labels: (i.labels ?? []).map((name) => ({ name, color: 'ededed' })),
    html_url: `https://github.com/${r.full_name}/${i.pull ? 'pull' : 'issues'}/${i.number}`,
    created_at: i.created_at,
    updated_at: i.updated_at,
    ...(i.pull ? { pull_request: { url: `${base}/repos/${r.full_name}/pulls/${i.number}` } } : {}),
  });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const run = () => handle(req, res, Buffer.concat(chunks));
      if (state.delayMs > 0) setTimeout(run, state.delayMs);
      else run();
    });
  });

  function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer): boolean {
    const url = new URL(req.url ?? '/', base);
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    const wiki = /^\/([^/]+\/[^/]+)\.wiki\.git(\/info\/refs|\/git-upload-pack)$/.exec(url.pathname);
    if (wiki) return serveWiki(req, res, wiki[1] ?? '', url, raw);
    const body = raw.toString('utf8');
    if (req.headers.authorization !== `token ${token}` && req.headers.authorization !== `Bearer ${token}`) {
      return send(res, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });
    }
    if (limited > 0) {
      limited--;
      return send(
        res,
        429,
        { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api' },
        retryAfter === null ? {} : { 'retry-after': String(retryAfter) },
      );
    }
    const p = url.pathname;
    if (req.method === 'GET' && p === '/user') return send(res, 200, { login: 'octocat', id: 1, type: 'User' }, { 'x-oauth-scopes': opts.scopes ?? 'repo, read:org, read:discussion' });
    if (req.method === 'GET' && p === '/user/repos') {
      const visible = url.searchParams.get('visibility') === 'public' ? repos.filter((r) => !r.private) : repos;
      const pg = paginate(visible.map(repoJson), url, base);
      return send(res, 200, pg.page, pg.link ? { link: pg.link } : {});
    }
    if (req.method === 'POST' && p === '/graphql') {
      const q = JSON.parse(body) as { query: string; variables: { owner: string; name: string; after: string | null } };
      const repo = repos.find((r) => r.full_name === `${q.variables.owner}/${q.variables.name}`);
      if (!repo) return send(res, 200, { data: { repository: null }, errors: [{ type: 'NOT_FOUND', message: 'Could not resolve to a Repository' }] });
      const sorted = [...repo.discussions].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
      const start = q.variables.after ? Number(Buffer.from(q.variables.after, 'base64').toString()) : 0;
      const nodes = sorted.slice(start, start + 50);
      const end = start + nodes.length;
      return send(res, 200, {
        data: {
          repository: {
            discussions: {
              pageInfo: { hasNextPage: end < sorted.length, endCursor: nodes.length ? Buffer.from(String(end)).toString('base64') : null },
              nodes: nodes.map((d) => ({
                number: d.number,
                title: d.title,
                body: d.body,
                url: `https://github.com/${repo.full_name}/discussions/${d.number}`,
                createdAt: d.created_at,
                updatedAt: d.updated_at,
                author: { login: d.user },
                category: { name: 'General' },
              })),
            },
          },
        },
      });
    }
    const m = /^\/repos\/([^/]+\/[^/]+)\/(.+)$/.exec(p);
    const repo = m ? repos.find((r) => r.full_name === m[1]) : undefined;
    if (!m || !repo) return send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
    const rest = m[2] ?? '';
    if (req.method === 'GET' && rest === 'issues') {
      const since = url.searchParams.get('since');
      const list = repo.issues.filter((i) => !since || i.updated_at >= since).sort((a, b) => a.updated_at.localeCompare(b.updated_at) || a.number - b.number);
      const pg = paginate(list.map((i) => issueJson(repo, i)), url, base);
      return send(res, 200, pg.page, pg.link ? { link: pg.link } : {});
    }
    if (req.method === 'POST' && rest === 'issues') {
      const b = JSON.parse(body) as { title: string; body?: string };
      const number = Math.max(0, ...repo.issues.map((i) => i.number)) + 1;
      const now = new Date().toISOString();
      repo.issues.push({ number, title: b.title, body: b.body ?? '', state: 'open', user: 'octocat', created_at: now, updated_at: now });
      state.created.push({ repo: repo.full_name, title: b.title, body: b.body, number });
      return send(res, 201, issueJson(repo, repo.issues[repo.issues.length - 1] as FakeIssue));
    }
    const cm = /^issues\/(\d+)\/comments$/.exec(rest);
    if (req.method === 'POST' && cm) {
      const b = JSON.parse(body) as { body: string };
      state.comments.push({ repo: repo.full_name, issue: Number(cm[1]), body: b.body });
      return send(res, 201, { id: state.comments.length, body: b.body, html_url: `https://github.com/${repo.full_name}/issues/${cm[1]}#issuecomment-${state.comments.length}` });
    }
    if (req.method === 'GET' && rest.startsWith('git/trees/')) {
      const tree = [...repo.files.entries()].sort().map(([path, content]) => ({ path, mode: '100644', type: 'blob', sha: sha(`blob:${content}`), size: Buffer.byteLength(content), url: `${base}/repos/${repo.full_name}/git/blobs/${sha(`blob:${content}`)}` }));
      return send(res, 200, { sha: sha(JSON.stringify(tree)), url: `${base}${p}`, tree, truncated: false });
    }
    if (req.method === 'GET' && rest.startsWith('git/blobs/')) {
      const want = rest.slice('git/blobs/'.length);
      const content = [...repo.files.values()].find((c) => sha(`blob:${c}`) === want);
      if (content === undefined) return send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
      return send(res, 200, { sha: want, size: Buffer.byteLength(content), content: Buffer.from(content).toString('base64'), encoding: 'base64' });
    }
    if (req.method === 'GET' && rest.startsWith('contents/')) {
      const path = decodeURIComponent(rest.slice('contents/'.length));
      const content = repo.files.get(path);
      if (content === undefined) return send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
      return send(res, 200, { type: 'file', path, name: path.split('/').pop(), sha: sha(`blob:${content}`), size: Buffer.byteLength(content), encoding: 'base64', content: Buffer.from(content).toString('base64') });
    }
    return send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
  }

  /** GitHub's git endpoints: Basic auth (any username, the token as password), 404 for a missing wiki. */
  function serveWiki(req: http.IncomingMessage, res: http.ServerResponse, fullName: string, url: URL, raw: Buffer): boolean {
    const auth = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    const password = auth ? Buffer.from(auth[1] ?? '', 'base64').toString('utf8').split(':').slice(1).join(':') : null;
    if (password !== gitToken) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Basic realm="GitHub"' });
      res.end(password === null ? '' : 'Invalid username or token. Password authentication is not supported for Git operations.\n');
      return true;
    }
    if (gitLimited > 0) {
      gitLimited--;
      res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': String(gitRetryAfter) });
      res.end('Too Many Requests\n');
      return true;
    }
    const repo = repos.find((r) => r.full_name === fullName);
    const name = `${fullName}.wiki.git`;
    if (!repo || repo.has_wiki === false || !git.exists(name)) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Repository not found.\n');
      return true;
    }
    serveGit(git.root, req, res, url.pathname, url.search.slice(1), raw);
    return true;
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: FakeGitHub = {
    url: base,
    token,
    repos,
    requests,
    rateLimitNext(count, seconds = 1) {
      limited = count;
      retryAfter = seconds;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(v: number) {
      state.delayMs = v;
    },
    wiki: (fullName, pages, o) => git.commit(`${fullName}.wiki.git`, pages, o),
    gitRateLimitNext(count, seconds) {
      gitLimited = count;
      gitRetryAfter = seconds;
    },
    get gitToken() {
      return gitToken;
    },
    set gitToken(v: string) {
      gitToken = v;
    },
    created: state.created,
    comments: state.comments,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          git.remove();
          resolve();
        });
      }),
  };
  return fake;
}

/** A repository with `issues` issues (every 5th a pull request), two docs files and one discussion. */
export function seededRepo(full_name: string, issues: number, opts: { private?: boolean } = {}): FakeRepo {
  const list: FakeIssue[] = [];
  for (let n = 1; n <= issues; n++) {
    const t = new Date(Date.UTC(2025, 0, 1, 0, n)).toISOString().replace('.000', '');
    list.push({ number: n, title: `Issue ${n} about ${n % 2 ? 'billing' : 'search'}`, body: `Body of ${full_name} issue ${n}.`, state: n % 3 ? 'open' : 'closed', user: `user${n % 4}`, created_at: t, updated_at: t, pull: n % 5 === 0 });
  }
  return {
    full_name,
    private: opts.private ?? false,
    default_branch: 'main',
    has_discussions: true,
    description: `The ${full_name} repository`,
    issues: list,
    files: new Map([
      ['README.md', `# ${full_name}\n\nHow to run it.`],
      ['docs/guide.md', 'A guide to deployment.'],
      ['src/index.ts', 'export const x = 1;'],
    ]),
    discussions: [{ number: 1, title: 'Roadmap', body: 'What comes next.', user: 'octocat', created_at: '2025-02-01T00:00:00Z', updated_at: '2025-02-01T00:00:00Z' }],
  };
}
