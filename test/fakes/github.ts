import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSchema, type ExecutionResult, graphql } from 'graphql';
import { createGitRepos, serveGit } from './git-http.ts';

/**
 * A local GitHub REST v3 + GraphQL fake speaking the real wire format (docs.github.com/rest): token auth
 * with `401 Bad credentials`, `Link: <…>; rel="next"` page pagination, `x-ratelimit-*` headers, secondary
 * rate limits as 429 with `Retry-After`, git trees/blobs. `POST /graphql` is executed by graphql-js against the
 * subset of GitHub's schema the connector uses (discussions; a commit's `history(path:)` for files' last commits),
 * so a query with a wrong field, argument or variable type fails as it would at GitHub. Wikis are
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
/** The last commit that touched a file: `author` is the git author name, `login` its GitHub account (null: none). */
export interface FakeCommit {
  date: string;
  author: string;
  login?: string | null;
}
/** The last commit of a file that `FakeRepo.commits` does not list. */
export const DEFAULT_COMMIT: FakeCommit = { date: '2024-06-01T00:00:00Z', author: 'The Octocat', login: 'octocat' };
export interface FakeRepo {
  full_name: string;
  private: boolean;
  /** The git tree listing is cut to this many entries and says `truncated: true` (GitHub's limit for huge repos). */
  truncateTreeAt?: number;
  fork?: boolean;
  archived?: boolean;
  description?: string;
  default_branch?: string;
  has_discussions?: boolean;
  /** GitHub's default is true; the wiki's git repository exists only once `wiki()` committed a page. */
  has_wiki?: boolean;
  issues: FakeIssue[];
  files: Map<string, string>;
  /** Per file path, its last commit on the default branch (default: DEFAULT_COMMIT). */
  commits?: Map<string, FakeCommit>;
  discussions: FakeDiscussion[];
  /**
   * `GET /repos/{owner}/{repo}/collaborators` (affiliation=all: direct, outside, through teams and base permission),
   * as GitHub's collaborator objects carry them; `'forbidden'` answers 403 as for a token without push access.
   */
  collaborators?: { id: number; login: string; role_name?: string }[] | 'forbidden';
}

export interface FakeGitHub {
  readonly url: string;
  readonly token: string;
  readonly repos: FakeRepo[];
  /** Every request as `METHOD /path?query`. */
  readonly requests: string[];
  /** Every GraphQL request's body. */
  readonly graphql: { query: string; variables: Record<string, unknown> }[];
  /** The next `count` API requests answer 429 with `Retry-After: seconds`. */
  rateLimitNext(count: number, retryAfterSeconds?: number | null): void;
  /**
   * The next `count` GraphQL requests answer as GitHub does when the GraphQL quota is spent: HTTP 200, a
   * `RATE_LIMITED` error, `x-ratelimit-remaining: 0` and `x-ratelimit-reset` one second ahead.
   */
  graphqlRateLimitNext(count: number): void;
  /** The next `count` commit-history GraphQL queries answer HTTP `status` (GitHub's 502 when a query times out). */
  failHistoryNext(count: number, status?: number): void;
  /** Delay every response by this many ms (to kill a worker mid-sync). */
  delayMs: number;
  /** How many blobs were answered raw (`Accept: application/vnd.github.raw`) rather than as base64 JSON. */
  readonly rawBlobs: number;
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

/** The part of GitHub's GraphQL schema (docs.github.com/graphql/reference) the connector queries. */
const SDL = `
scalar DateTime
scalar URI
scalar GitObjectID
scalar GitTimestamp
enum OrderDirection { ASC DESC }
enum DiscussionOrderField { CREATED_AT UPDATED_AT }
input DiscussionOrder { field: DiscussionOrderField! direction: OrderDirection! }
type PageInfo { hasNextPage: Boolean! hasPreviousPage: Boolean! startCursor: String endCursor: String }
interface Actor { login: String! }
type User implements Actor { login: String! name: String }
type DiscussionCategory { name: String! }
type Discussion { number: Int! title: String! body: String! url: URI! createdAt: DateTime! updatedAt: DateTime! author: Actor category: DiscussionCategory! }
type DiscussionConnection { nodes: [Discussion] pageInfo: PageInfo! totalCount: Int! }
type GitActor { name: String email: String date: GitTimestamp user: User }
interface GitObject { oid: GitObjectID! }
type Commit implements GitObject {
  oid: GitObjectID! committedDate: DateTime! authoredDate: DateTime! messageHeadline: String! author: GitActor committer: GitActor
  history(first: Int, last: Int, after: String, before: String, path: String, since: GitTimestamp, until: GitTimestamp): CommitHistoryConnection!
}
type CommitHistoryConnection { nodes: [Commit] pageInfo: PageInfo! totalCount: Int! }
type Repository {
  nameWithOwner: String!
  discussions(first: Int, last: Int, after: String, before: String, orderBy: DiscussionOrder): DiscussionConnection!
  object(expression: String, oid: GitObjectID): GitObject
}
type Query { repository(owner: String!, name: String!, followRenames: Boolean): Repository }
`;
const schema = buildSchema(SDL);

/** An error GitHub reports with a `type` (NOT_FOUND, MISSING_PAGINATION_BOUNDARIES…). */
class TypedError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

function bounded(args: { first?: number | null; last?: number | null }, connection: string): number {
  const n = args.first ?? args.last;
  if (n === null || n === undefined) throw new TypedError('MISSING_PAGINATION_BOUNDARIES', `You must provide a \`first\` or \`last\` value to properly paginate the \`${connection}\` connection.`);
  if (n < 1 || n > 100) throw new TypedError('EXCESSIVE_PAGINATION', `Requesting ${n} records on the \`${connection}\` connection exceeds the \`first\` limit of 100 records.`);
  return n;
}

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
  let blobRawRequests = 0;
  const graphqlLog: FakeGitHub['graphql'] = [];
  let graphqlLimited = 0;
  let historyFailures = 0;
  let historyStatus = 502;

  const commitJson = (repo: FakeRepo, path: string, c: FakeCommit) => ({
    __typename: 'Commit',
    oid: sha(`commit:${repo.full_name}:${path}:${c.date}`),
    committedDate: c.date,
    authoredDate: c.date,
    messageHeadline: `Update ${path}`,
    author: { name: c.author, email: `${c.login ?? 'someone'}@example.com`, date: c.date, user: c.login ? { login: c.login, name: c.author } : null },
    committer: { name: 'GitHub', email: 'noreply@github.com', date: c.date, user: null },
  });
  /** The head commit of the default branch: its history filtered by path is the file's last commit. */
  const headCommit = (repo: FakeRepo) => {
    const last = (path: string) => repo.commits?.get(path) ?? DEFAULT_COMMIT;
    const newest = [...repo.files.keys()].map((path) => ({ path, c: last(path) })).sort((a, b) => b.c.date.localeCompare(a.c.date))[0];
    return {
      ...commitJson(repo, newest?.path ?? '', newest?.c ?? DEFAULT_COMMIT),
      history: (args: { first?: number | null; last?: number | null; path?: string | null }) => {
        const n = bounded(args, 'history');
        if (args.last !== null && args.last !== undefined) throw new TypedError('INVALID_CURSOR_ARGUMENTS', 'backwards pagination unsupported for CommitHistoryConnection');
        const paths = args.path ? [...repo.files.keys()].filter((f) => f === args.path || f.startsWith(`${args.path}/`)) : [...repo.files.keys()];
        const nodes = paths
          .map((path) => commitJson(repo, path, last(path)))
          .sort((a, b) => b.committedDate.localeCompare(a.committedDate))
          .slice(0, n);
        return { nodes, totalCount: nodes.length, pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null } };
      },
    };
  };
  const graphqlRoot = {
    repository: ({ owner, name }: { owner: string; name: string }) => {
      const repo = repos.find((r) => r.full_name === `${owner}/${name}`);
      if (!repo) throw new TypedError('NOT_FOUND', `Could not resolve to a Repository with the name '${owner}/${name}'.`);
      return {
        nameWithOwner: repo.full_name,
        object: ({ expression }: { expression?: string | null }) => (expression === (repo.default_branch ?? 'main') || expression === 'HEAD' ? headCommit(repo) : null),
        discussions: (args: { first?: number | null; after?: string | null }) => {
          const n = bounded(args, 'discussions');
          const sorted = [...repo.discussions].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
          const start = args.after ? Number(Buffer.from(args.after, 'base64').toString()) : 0;
          const nodes = sorted.slice(start, start + n);
          const end = start + nodes.length;
          return {
            totalCount: sorted.length,
            pageInfo: { hasNextPage: end < sorted.length, hasPreviousPage: start > 0, startCursor: null, endCursor: nodes.length ? Buffer.from(String(end)).toString('base64') : null },
            nodes: nodes.map((d) => ({
              number: d.number,
              title: d.title,
              body: d.body,
              url: `https://github.com/${repo.full_name}/discussions/${d.number}`,
              createdAt: d.created_at,
              updatedAt: d.updated_at,
              author: { __typename: 'User', login: d.user },
              category: { name: 'General' },
            })),
          };
        },
      };
    },
  };

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
      const q = JSON.parse(body) as { query?: string; variables?: Record<string, unknown> };
      graphqlLog.push({ query: q.query ?? '', variables: q.variables ?? {} });
      if (graphqlLimited > 0) {
        graphqlLimited--;
        return send(
          res,
          200,
          { errors: [{ type: 'RATE_LIMITED', message: 'API rate limit already exceeded for user ID 1.' }] },
          { 'x-ratelimit-remaining': '0', 'x-ratelimit-used': '5000', 'x-ratelimit-resource': 'graphql', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 1) },
        );
      }
      if (historyFailures > 0 && /\bhistory\s*\(/.test(q.query ?? '')) {
        historyFailures--;
        return send(res, historyStatus, { message: "We couldn't respond to your request in time. Sorry about that. Please try resubmitting your request and contact us if the problem persists." });
      }
      void graphql({ schema, source: q.query ?? '', rootValue: graphqlRoot, variableValues: q.variables ?? {} }).then((result: ExecutionResult) => {
        const errors = result.errors?.map((e) => ({
          ...(e.originalError instanceof TypedError ? { type: e.originalError.type } : {}),
          path: e.path,
          locations: e.locations,
          message: e.message,
        }));
        send(res, 200, { ...('data' in result ? { data: result.data } : {}), ...(errors ? { errors } : {}) });
      });
      return true;
    }
    const m = /^\/repos\/([^/]+\/[^/]+)\/(.+)$/.exec(p);
    const repo = m ? repos.find((r) => r.full_name === m[1]) : undefined;
    if (!m || !repo) return send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
    const rest = m[2] ?? '';
    if (req.method === 'GET' && rest === 'collaborators') {
      if (repo.collaborators === 'forbidden') return send(res, 403, { message: 'Must have push access to view repository collaborators.', documentation_url: 'https://docs.github.com/rest/collaborators/collaborators#list-repository-collaborators', status: '403' });
      const list = (repo.collaborators ?? []).map((c) => ({
        login: c.login,
        id: c.id,
        node_id: `U_${c.id}`,
        avatar_url: `https://avatars.githubusercontent.com/u/${c.id}?v=4`,
        url: `${base}/users/${c.login}`,
        html_url: `https://github.com/${c.login}`,
        type: 'User',
        site_admin: false,
        permissions: { pull: true, triage: true, push: c.role_name !== 'read', maintain: false, admin: c.role_name === 'admin' },
        role_name: c.role_name ?? 'write',
      }));
      const pg = paginate(list, url, base);
      return send(res, 200, pg.page, pg.link ? { link: pg.link } : {});
    }
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
      // GitHub: a repository without commits has no tree.
      if (repo.files.size === 0) return send(res, 409, { message: 'Git Repository is empty.', documentation_url: 'https://docs.github.com/rest/git/trees#get-a-tree', status: '409' });
      const full = [...repo.files.entries()].sort().map(([path, content]) => ({ path, mode: '100644', type: 'blob', sha: sha(`blob:${content}`), size: Buffer.byteLength(content), url: `${base}/repos/${repo.full_name}/git/blobs/${sha(`blob:${content}`)}` }));
      const tree = repo.truncateTreeAt === undefined ? full : full.slice(0, repo.truncateTreeAt);
      return send(res, 200, { sha: sha(JSON.stringify(full)), url: `${base}${p}`, tree, truncated: tree.length < full.length });
    }
    if (req.method === 'GET' && rest.startsWith('git/blobs/')) {
      const want = rest.slice('git/blobs/'.length);
      const content = [...repo.files.values()].find((c) => sha(`blob:${c}`) === want);
      if (content === undefined) return send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
      // `Accept: application/vnd.github.raw` (or the v3 form) answers the blob's bytes.
      if (/vnd\.github(\.v3)?\.raw/.test(String(req.headers.accept ?? ''))) {
        blobRawRequests++;
        res.writeHead(200, { 'content-type': 'application/vnd.github.raw; charset=utf-8', 'content-length': Buffer.byteLength(content) });
        res.end(content);
        return true;
      }
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

  server.keepAliveTimeout = 120_000; // see test/fakes/kit: no ECONNRESET from a stalled event loop
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: FakeGitHub = {
    url: base,
    token,
    repos,
    requests,
    graphql: graphqlLog,
    rateLimitNext(count, seconds = 1) {
      limited = count;
      retryAfter = seconds;
    },
    graphqlRateLimitNext(count) {
      graphqlLimited = count;
    },
    get rawBlobs() {
      return blobRawRequests;
    },
    failHistoryNext(count, status = 502) {
      historyFailures = count;
      historyStatus = status;
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
