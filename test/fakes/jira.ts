import { type FakeReply, type FakeRequest, oauthTokenEndpoint, VendorFake, bearerToken, cursorPage } from './kit/index.ts';

/**
 * A local Jira Cloud REST v3 fake, speaking the wire format of developer.atlassian.com/cloud/jira/platform/rest/v3:
 * `GET /rest/api/3/myself`, `GET /rest/api/3/project/search` (startAt/maxResults/isLast, `expand=description,lead`),
 * the enhanced JQL search `POST|GET /rest/api/3/search/jql` (`jql`, `fields`, `maxResults`, `nextPageToken`; the last page
 * has no `nextPageToken` key; unbounded JQL refused), `GET /rest/api/3/issue/{id}` and `/issue/{id}/comment`; Jira
 * timestamps (`…+0000`), ADF bodies, `{errorMessages, errors}` error bodies. API tokens arrive as HTTP Basic
 * (`email:token`) on the site; OAuth bearer tokens on the gateway path `/ex/jira/{cloudId}/…`, with
 * `GET /oauth/token/accessible-resources` and `POST /oauth/token`. JQL: a small evaluator for the clauses the connector
 * and tests use (`project =`, `project in`, `updated >=` read in the user's time zone, `labels =`, `status =`, `id =`,
 * AND, parentheses, ORDER BY updated/created/key); anything else answers 400 like Jira does.
 */
export type Adf = { type: string; [k: string]: unknown };
export interface JUser {
  accountId: string;
  displayName: string;
  /** Hidden (absent) when the user's profile visibility hides it. */
  emailAddress?: string;
}
export interface JProject {
  id: string;
  key: string;
  name: string;
  description: string;
  lead: JUser;
}
export interface JComment {
  id: string;
  author: JUser;
  body: Adf;
  created: string;
  updated: string;
  visibility?: { type: 'group' | 'role'; value: string; identifier?: string };
}
export interface JIssue {
  id: string;
  key: string;
  project: JProject;
  summary: string;
  description: Adf | null;
  status: string;
  assignee: JUser | null;
  reporter: JUser;
  labels: string[];
  priority: string;
  issuetype: string;
  created: string;
  updated: string;
  security?: { id: string; name: string };
  comments: JComment[];
}
export interface JiraData {
  me: JUser & { timeZone: string };
  users: JUser[];
  projects: JProject[];
  issues: JIssue[];
}

export interface FakeJira {
  readonly url: string;
  readonly siteUrl: string;
  readonly cloudId: string;
  readonly email: string;
  readonly apiToken: string;
  readonly data: JiraData;
  readonly fake: VendorFake;
  /** Every search: its JQL and paging. */
  readonly searches: { jql: string; nextPageToken: string | null; fields: string[]; maxResults: number }[];
  /** A Jira timestamp later than every earlier one (for edits after a sync). */
  tick(): string;
  rateLimitNext(count: number, retryAfterSeconds: number): void;
  close(): Promise<void>;
}

const BASE = Date.UTC(2026, 0, 5, 9, 0, 0);
/** Jira's own timestamp form: milliseconds and an offset without a colon. */
export const jiraStamp = (ms: number) => new Date(ms).toISOString().replace('Z', '+0000');

const text = (t: string, extra: Record<string, unknown> = {}) => ({ type: 'text', text: t, ...extra });
const para = (...content: unknown[]) => ({ type: 'paragraph', content });
export const adfDoc = (...content: unknown[]): Adf => ({ type: 'doc', version: 1, content });

/** A deterministic site: three projects, issues with ADF descriptions, comments (one issue has many), a security level. */
export function seedJira(opts: { issuesPerProject?: number } = {}): JiraData {
  const per = opts.issuesPerProject ?? 6;
  const users: JUser[] = [
    { accountId: '5b10a2844c20165700ede21g', displayName: 'Ada Lovelace', emailAddress: 'Ada@Acme.test' },
    { accountId: '5b10ac8d82e05b22cc7d4ef5', displayName: 'Grace Hopper', emailAddress: 'grace@acme.test' },
    // Profile visibility hides this user's email.
    { accountId: '712020:0e1f2a3b-hidden', displayName: 'Alan Turing' },
  ];
  const u = (i: number) => users[i % users.length] as JUser;
  const projects: JProject[] = [
    { id: '10000', key: 'ENG', name: 'Engineering', description: 'Product engineering work', lead: u(0) },
    { id: '10001', key: 'OPS', name: 'Operations', description: 'Runbooks and incidents', lead: u(1) },
    { id: '10002', key: 'DES', name: 'Design', description: '', lead: u(2) },
  ];
  const topics = ['login redirect loop', 'search ranking for acronyms', 'webhook retries', 'dark mode contrast', 'CSV export encoding', 'SAML clock skew', 'slow dashboard query', 'onboarding checklist'];
  let clock = 0;
  let issueId = 10100;
  let commentId = 20000;
  const issues: JIssue[] = [];
  for (const project of projects) {
    for (let n = 1; n <= per; n++) {
      const i = issues.length;
      const created = jiraStamp(BASE + clock++ * 60_000);
      const topic = topics[i % topics.length] ?? 'misc';
      const issue: JIssue = {
        id: String(issueId++),
        key: `${project.key}-${n}`,
        project,
        summary: `Fix ${topic}`,
        description: adfDoc(
          { type: 'heading', attrs: { level: 2 }, content: [text('Steps')] },
          para(text('Reported by '), { type: 'mention', attrs: { id: u(i + 1).accountId, text: `@${u(i + 1).displayName}` } }, text(` while testing ${topic}.`)),
          { type: 'bulletList', content: [{ type: 'listItem', content: [para(text('open the app'))] }, { type: 'listItem', content: [para(text('see the '), text('error', { marks: [{ type: 'strong' }] }))] }] },
          { type: 'codeBlock', attrs: { language: 'bash' }, content: [text(`curl https://acme.test/${project.key.toLowerCase()}/${n}`)] },
        ),
        status: ['To Do', 'In Progress', 'Done'][i % 3] ?? 'To Do',
        assignee: i % 4 === 3 ? null : u(i),
        reporter: u(i + 2),
        labels: i % 2 === 0 ? ['customer', topic.split(' ')[0] ?? 'x'] : [],
        priority: ['High', 'Medium', 'Low'][i % 3] ?? 'Medium',
        issuetype: i % 3 === 0 ? 'Bug' : 'Task',
        created,
        updated: created,
        comments: [],
      };
      issues.push(issue);
    }
  }
  const addComment = (issue: JIssue, body: string, who: JUser, visibility?: JComment['visibility']) => {
    const at = jiraStamp(BASE + clock++ * 60_000);
    issue.comments.push({ id: String(commentId++), author: who, body: adfDoc(para(text(body))), created: at, updated: at, ...(visibility ? { visibility } : {}) });
    issue.updated = at;
  };
  const eng1 = issues[0] as JIssue;
  addComment(eng1, 'Reproduced on staging.', u(1));
  addComment(eng1, 'Root cause is the session cookie domain.', u(2));
  // More comments than a search embeds: the rest come from /issue/{id}/comment.
  const eng2 = issues[1] as JIssue;
  for (let c = 1; c <= 8; c++) addComment(eng2, `Investigation note ${c}`, u(c));
  const ops1 = issues.find((x) => x.key === 'OPS-1') as JIssue;
  addComment(ops1, 'Only the on-call group may read this.', u(0), { type: 'group', value: 'oncall', identifier: 'a1b2c3-oncall' });
  ops1.security = { id: '10400', name: 'Internal only' };
  return { me: { ...u(0), timeZone: 'Europe/Berlin' }, users, projects, issues };
}

const userJson = (u: JUser | null) =>
  u ? { self: `https://acme.atlassian.net/rest/api/3/user?accountId=${u.accountId}`, accountId: u.accountId, displayName: u.displayName, active: true, accountType: 'atlassian', ...(u.emailAddress ? { emailAddress: u.emailAddress } : {}) } : null;
const CATEGORY: Record<string, { key: string; name: string }> = { 'To Do': { key: 'new', name: 'To Do' }, 'In Progress': { key: 'indeterminate', name: 'In Progress' }, Done: { key: 'done', name: 'Done' } };
const commentJson = (c: JComment) => ({ id: c.id, author: userJson(c.author), updateAuthor: userJson(c.author), body: c.body, created: c.created, updated: c.updated, jsdPublic: true, ...(c.visibility ? { visibility: c.visibility } : {}) });

/** The wall-clock `yyyy/MM/dd HH:mm` of a Jira timestamp in a zone, as JQL compares dates. */
function wallClock(stamp: string, timeZone: string): string {
  const d = new Date(stamp.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(d);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '00';
  return `${get('year')}/${get('month')}/${get('day')} ${get('hour')}:${get('minute')}`;
}

class JqlError extends Error {}

function splitAnd(where: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < where.length; i++) {
    const ch = where[i];
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === '(') depth++;
    else if (!quoted && ch === ')') depth--;
    else if (!quoted && depth === 0 && ch && /\s/.test(ch)) {
      const m = /^\s+AND\s+/i.exec(where.slice(i));
      if (m) {
        out.push(where.slice(start, i));
        start = i + m[0].length;
        i = start - 1;
      }
    }
  }
  out.push(where.slice(start));
  return out.map((s) => s.trim()).filter(Boolean);
}

function clause(term: string, timeZone: string): (i: JIssue) => boolean {
  if (term.startsWith('(') && term.endsWith(')')) return where(term.slice(1, -1), timeZone);
  let m = /^project\s*=\s*"?([\w-]+)"?$/i.exec(term);
  if (m) return (i) => i.project.id === m?.[1] || i.project.key === m?.[1];
  m = /^project\s+in\s*\(([^)]*)\)$/i.exec(term);
  if (m) {
    const list = (m[1] ?? '').split(',').map((s) => s.trim().replace(/^"|"$/g, ''));
    return (i) => list.includes(i.project.key) || list.includes(i.project.id);
  }
  m = /^updated\s*>=\s*"(\d{4}\/\d\d\/\d\d \d\d:\d\d)"$/i.exec(term);
  if (m) return (i) => wallClock(i.updated, timeZone) >= (m?.[1] ?? '');
  m = /^labels\s*=\s*"?([^"]+?)"?$/i.exec(term);
  if (m) return (i) => i.labels.includes(m?.[1] ?? '');
  m = /^status\s*=\s*"([^"]+)"$/i.exec(term);
  if (m) return (i) => i.status === m?.[1];
  m = /^id\s*=\s*(\d+)$/i.exec(term);
  if (m) return (i) => i.id === m?.[1];
  throw new JqlError(`Error in the JQL Query: the fake cannot read '${term}'.`);
}

function where(text: string, timeZone: string): (i: JIssue) => boolean {
  const parts = splitAnd(text).map((t) => clause(t, timeZone));
  return (i) => parts.every((f) => f(i));
}

export function evaluateJql(jql: string, timeZone: string): { filter: (i: JIssue) => boolean; compare: (a: JIssue, b: JIssue) => number } {
  const m = /^(.*?)(?:\s*ORDER\s+BY\s+(\w+)(?:\s+(ASC|DESC))?)?\s*$/is.exec(jql.trim());
  const cond = (m?.[1] ?? '').trim();
  if (!cond) throw new JqlError('Unbounded JQL queries are not allowed here. Please add a search restriction to your query.');
  const field = (m?.[2] ?? 'created').toLowerCase();
  const dir = (m?.[3] ?? 'ASC').toUpperCase() === 'DESC' ? -1 : 1;
  const at = (s: string) => Date.parse(s.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
  const key = (i: JIssue): number => (field === 'updated' ? at(i.updated) : field === 'created' ? at(i.created) : Number(i.id));
  return { filter: where(cond, timeZone), compare: (a, b) => dir * (key(a) - key(b) || Number(a.id) - Number(b.id)) };
}

/**
 * `embedComments`: how many comments a search embeds per issue (the rest are read from /comment); `maxPage`: the most
 * issues a search page holds (Jira may answer fewer than `maxResults` asks for).
 */
export async function startFakeJira(data: JiraData = seedJira(), opts: { embedComments?: number; maxPage?: number } = {}): Promise<FakeJira> {
  const email = data.me.emailAddress ?? 'ada@acme.test';
  const apiToken = 'ATATT3xFfGF0-fake-api-token';
  const cloudId = '1324a887-45db-1bf4-1e99-ef0ff456d421';
  const siteUrl = 'https://acme.atlassian.net';
  const embed = opts.embedComments ?? 5;
  const searches: FakeJira['searches'] = [];
  let clock = BASE + 100_000 * 60_000;
  const fake = new VendorFake({
    name: 'Jira',
    // A second account's token keeps the token check on after the first is revoked (an empty set lets everything in).
    tokens: [`${email}:${apiToken}`, 'grace@acme.test:ATATT-grace-token'],
    tokenOf: ({ headers }) => {
      const h = headers.authorization ?? '';
      if (h.startsWith('Basic ')) return Buffer.from(h.slice(6), 'base64').toString('utf8');
      return bearerToken({ headers });
    },
    publicPath: (path) => path === '/oauth/token',
    unauthorized: (req) =>
      req.headers.authorization?.startsWith('Bearer ')
        ? { status: 401, json: { code: 401, message: 'Unauthorized' } }
        : { status: 401, json: { errorMessages: ['Client must be authenticated to access this resource.'], errors: {} } },
    rateLimited: () => ({ status: 429, headers: { 'ratelimit-reason': 'jira-burst-based' }, json: { errorMessages: ['Rate limit exceeded.'], errors: {} } }),
    serverError: (status) => ({ json: { errorMessages: [`Internal server error (${status})`], errors: {} } }),
  });

  const issueJson = (i: JIssue, fields: string[]) => {
    const all: Record<string, unknown> = {
      summary: i.summary,
      description: i.description,
      status: { name: i.status, statusCategory: CATEGORY[i.status] },
      assignee: userJson(i.assignee),
      reporter: userJson(i.reporter),
      creator: userJson(i.reporter),
      labels: i.labels,
      priority: { name: i.priority, id: '3' },
      issuetype: { name: i.issuetype, id: '10001', subtask: false },
      resolution: i.status === 'Done' ? { name: 'Done' } : null,
      project: { id: i.project.id, key: i.project.key, name: i.project.name, projectTypeKey: 'software' },
      created: i.created,
      updated: i.updated,
      security: i.security ?? null,
      parent: null,
      comment: { comments: i.comments.slice(0, embed).map(commentJson), maxResults: embed, total: i.comments.length, startAt: 0 },
    };
    const wanted = fields.includes('*all') ? Object.keys(all) : fields;
    return { expand: 'renderedFields,names,schema,operations,editmeta,changelog,versionedRepresentations', id: i.id, self: `${siteUrl}/rest/api/3/issue/${i.id}`, key: i.key, fields: Object.fromEntries(wanted.filter((f) => f in all).map((f) => [f, all[f]])) };
  };
  const notFound = (): FakeReply => ({ status: 404, json: { errorMessages: ['Issue does not exist or you do not have permission to see it.'], errors: {} } });
  const findIssue = (idOrKey: string) => data.issues.find((i) => i.id === idOrKey || i.key === idOrKey);

  const search = (input: { jql?: string; nextPageToken?: string; maxResults?: number; fields?: string[] }): FakeReply => {
    const jql = input.jql ?? '';
    const maxResults = Math.min(opts.maxPage ?? 100, Math.max(1, input.maxResults ?? 50));
    const fields = input.fields ?? ['id'];
    searches.push({ jql, nextPageToken: input.nextPageToken ?? null, fields, maxResults });
    try {
      const { filter, compare } = evaluateJql(jql, data.me.timeZone);
      const hits = data.issues.filter(filter).sort(compare);
      const page = cursorPage(hits, input.nextPageToken, maxResults);
      return { json: { issues: page.items.map((i) => issueJson(i, fields)), ...(page.next ? { nextPageToken: page.next } : {}), isLast: page.next === null } };
    } catch (err) {
      if (err instanceof JqlError) return { status: 400, json: { errorMessages: [err.message], errors: {}, warningMessages: [] } };
      throw err;
    }
  };

  const api = (method: string, path: string, handler: (req: FakeRequest) => FakeReply | Promise<FakeReply>) => {
    fake.route(method, path, handler);
    fake.route(method, `/ex/jira/:cloudId${path}`, (req) => (req.params.cloudId === cloudId ? handler(req) : { status: 404, json: { errorMessages: ['Site not found'], errors: {} } }));
  };

  api('GET', '/rest/api/3/myself', () => ({ json: { ...userJson(data.me), timeZone: data.me.timeZone, locale: 'en_US' } }));
  api('GET', '/rest/api/3/project/search', (req) => {
    const startAt = Number(req.query.get('startAt') ?? 0);
    const maxResults = Number(req.query.get('maxResults') ?? 50);
    const expand = (req.query.get('expand') ?? '').split(',');
    const values = data.projects.slice(startAt, startAt + maxResults).map((p) => ({
      self: `${siteUrl}/rest/api/3/project/${p.id}`,
      id: p.id,
      key: p.key,
      name: p.name,
      projectTypeKey: 'software',
      simplified: false,
      style: 'classic',
      isPrivate: false,
      ...(expand.includes('description') ? { description: p.description } : {}),
      ...(expand.includes('lead') ? { lead: userJson(p.lead) } : {}),
    }));
    const isLast = startAt + maxResults >= data.projects.length;
    return { json: { self: `${siteUrl}/rest/api/3/project/search`, ...(isLast ? {} : { nextPage: `${siteUrl}/rest/api/3/project/search?startAt=${startAt + maxResults}` }), maxResults, startAt, total: data.projects.length, isLast, values } };
  });
  api('POST', '/rest/api/3/search/jql', (req) => search((req.body ?? {}) as Parameters<typeof search>[0]));
  api('GET', '/rest/api/3/search/jql', (req) =>
    search({
      jql: req.query.get('jql') ?? undefined,
      nextPageToken: req.query.get('nextPageToken') ?? undefined,
      maxResults: req.query.has('maxResults') ? Number(req.query.get('maxResults')) : undefined,
      fields: req.query.get('fields')?.split(','),
    }),
  );
  api('GET', '/rest/api/3/issue/:id', (req) => {
    const i = findIssue(req.params.id ?? '');
    return i ? { json: issueJson(i, (req.query.get('fields') ?? '*all').split(',')) } : notFound();
  });
  api('GET', '/rest/api/3/issue/:id/comment', (req) => {
    const i = findIssue(req.params.id ?? '');
    if (!i) return notFound();
    const startAt = Number(req.query.get('startAt') ?? 0);
    const maxResults = Math.min(100, Number(req.query.get('maxResults') ?? 50));
    return { json: { startAt, maxResults, total: i.comments.length, comments: i.comments.slice(startAt, startAt + maxResults).map(commentJson) } };
  });
  fake.route('GET', '/oauth/token/accessible-resources', () => ({
    json: [
      { id: cloudId, url: siteUrl, name: 'acme', scopes: ['read:jira-work', 'read:jira-user'], avatarUrl: 'https://site-admin-avatar-cdn.prod.public.atl-paas.net/avatars/240/rocket.png' },
      { id: 'other-cloud', url: 'https://other.atlassian.net', name: 'other', scopes: ['read:jira-work'], avatarUrl: '' },
    ],
  }));
  let issued = 0;
  fake.route('POST', '/oauth/token', oauthTokenEndpoint(fake, { code: 'atlassian-code', issue: () => ({ access_token: `atl-at-${++issued}`, refresh_token: `atl-rt-${issued}`, expires_in: 3600, scope: 'read:jira-work read:jira-user offline_access' }) }));

  await fake.start();
  return {
    get url() {
      return fake.url;
    },
    siteUrl,
    cloudId,
    email,
    apiToken,
    data,
    fake,
    searches,
    tick: () => {
      clock += 60_000;
      return jiraStamp(clock);
    },
    rateLimitNext: (count, retryAfterSeconds) => {
      fake.rateLimitNext(count, retryAfterSeconds);
    },
    close: () => fake.close(),
  };
}
