import { cursorPage, type FakeReply, type FakeRequest, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local Asana API fake, speaking the wire format of developers.asana.com/reference: `GET /users/me`,
 * `GET /workspaces`, `GET /projects?workspace=&archived=`, `GET /tasks?project=&modified_since=` and
 * `GET /tasks/{gid}/stories`, every list as `{ data: [...], next_page: { offset, path, uri } | null }` with `limit`
 * (1-100) and an opaque `offset`; records carry `gid` and `resource_type`; errors are `{ errors: [{ message, help }] }`
 * (401 "Not Authorized", 429 with Retry-After, 5xx with a `phrase`); `POST /-/oauth_token` for OAuth.
 * The fake answers full records whatever `opt_fields` asks (tests check that the connector asks).
 */
export interface AUser {
  gid: string;
  name: string;
  email: string;
}
export interface AProject {
  gid: string;
  workspace: string;
  name: string;
  notes: string;
  archived: boolean;
  privacy_setting: 'public_to_workspace' | 'private_to_team' | 'private';
  team: { gid: string; name: string } | null;
  owner: string;
  created_at: string;
  modified_at: string;
}
export interface AStory {
  gid: string;
  type: 'comment' | 'system';
  text: string;
  created_by: string;
  created_at: string;
}
export interface ATask {
  gid: string;
  name: string;
  notes: string;
  completed: boolean;
  completed_at: string | null;
  assignee: string | null;
  created_by: string;
  due_on: string | null;
  /** [project gid, section name] pairs. */
  memberships: [string, string][];
  tags: string[];
  created_at: string;
  modified_at: string;
  stories: AStory[];
}
export interface AsanaData {
  me: string;
  users: AUser[];
  workspaces: { gid: string; name: string }[];
  projects: AProject[];
  tasks: ATask[];
}

export interface FakeAsana {
  readonly url: string;
  readonly token: string;
  readonly data: AsanaData;
  readonly fake: VendorFake;
  /** A time later than every earlier one (five minutes a tick), for edits after a sync. */
  tick(): string;
  close(): Promise<void>;
}

const BASE = Date.UTC(2026, 0, 5, 9, 0, 0);
const STEP = 5 * 60_000;

export function seedAsana(): AsanaData {
  let at = BASE;
  const t = () => {
    at += STEP;
    return new Date(at).toISOString();
  };
  const story = (gid: string, type: AStory['type'], text: string, by: string): AStory => ({ gid, type, text, created_by: by, created_at: t() });
  const task = (gid: string, name: string, notes: string, memberships: [string, string][], extra: Partial<ATask> = {}): ATask => {
    const c = t();
    return { gid, name, notes, completed: false, completed_at: null, assignee: null, created_by: '501', due_on: null, memberships, tags: [], created_at: c, modified_at: c, stories: [], ...extra };
  };
  const project = (gid: string, name: string, privacy: AProject['privacy_setting'], extra: Partial<AProject> = {}): AProject => {
    const c = t();
    return { gid, workspace: '1001', name, notes: '', archived: false, privacy_setting: privacy, team: null, owner: '501', created_at: c, modified_at: c, ...extra };
  };
  return {
    me: '501',
    users: [
      { gid: '501', name: 'Ada Lovelace', email: 'Ada@acme.test' },
      { gid: '502', name: 'Grace Hopper', email: 'grace@acme.test' },
    ],
    workspaces: [{ gid: '1001', name: 'Acme' }],
    projects: [
      project('2001', 'Website relaunch', 'public_to_workspace', { notes: 'Relaunch the marketing site before the spring campaign.' }),
      project('2002', 'Hiring', 'private_to_team', { team: { gid: '3001', name: 'People' }, owner: '502', notes: 'Open roles and interview loops.' }),
      project('2003', 'Old intranet', 'private', { archived: true }),
    ],
    tasks: [
      task('4001', 'Draft the landing page copy', 'Focus on the pricing calculator and the customer quotes.', [['2001', 'Design']], {
        assignee: '502',
        due_on: '2026-02-01',
        tags: ['copy'],
        stories: [story('9001', 'system', 'added to Design', '501'), story('9002', 'comment', 'The quotes from Globex are approved by legal.', '502')],
      }),
      task('4002', 'Move DNS to the new CDN', 'Lower the TTL a day before.', [['2001', 'Launch']], { completed: true, completed_at: t() }),
      task('4003', 'Hire a staff engineer', 'Loop: coding, system design, values.', [['2002', 'Open roles']], { assignee: '502', stories: [story('9003', 'comment', 'Shortlist ready for review.', '501')] }),
      task('4004', 'Careers page refresh', 'Shared between the site and hiring.', [['2001', 'Design'], ['2002', 'Employer brand']]),
      task('4005', 'Archive old wiki', 'Nobody reads it.', [['2003', 'Backlog']]),
      task('4006', 'Accessibility audit', 'WCAG 2.2 AA for every template.', [['2001', 'Launch']]),
    ],
  };
}

const errors = (status: number, message: string, extra: Record<string, unknown> = {}): FakeReply => ({
  status,
  json: { errors: [{ message, help: 'For more information on API status codes and how to handle them, read the docs on errors: https://developers.asana.com/docs/errors', ...extra }] },
});

export async function startFakeAsana(data: AsanaData = seedAsana(), opts: { maxPage?: number } = {}): Promise<FakeAsana> {
  const token = '2/1201234567890/1209876543210:0f1e2d3c4b5a69788796a5b4c3d2e1f0';
  let clock = BASE + 1000 * STEP;
  const fake = new VendorFake({
    name: 'Asana',
    // A second user's token keeps the token check on after the first is revoked.
    tokens: [token, '2/1201234567890/1200000000000:grace'],
    publicPath: (path) => path === '/-/oauth_token',
    unauthorized: () => errors(401, 'Not Authorized'),
    rateLimited: () => errors(429, 'You have made too many requests recently. Please, be chill.'),
    serverError: (status) => errors(status, 'Server Error', { phrase: '6 sad squid snuggle softly' }),
  });
  const user = (gid: string | null) => {
    const u = data.users.find((x) => x.gid === gid);
    return u ? { gid: u.gid, resource_type: 'user', name: u.name, email: u.email } : null;
  };
  const projectName = (gid: string) => data.projects.find((p) => p.gid === gid)?.name ?? '';
  const list = (req: FakeRequest, items: unknown[]): FakeReply => {
    const limit = Number(req.query.get('limit') ?? 100);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return errors(400, 'limit: Must be between 1 and 100');
    let pg: ReturnType<typeof cursorPage<unknown>>;
    try {
      pg = cursorPage(items, req.query.get('offset'), Math.min(limit, opts.maxPage ?? 100));
    } catch {
      return errors(400, 'offset: Your pagination token is invalid.');
    }
    const next = pg.next === null ? null : (() => {
      const q = new URLSearchParams(req.query);
      q.set('offset', pg.next ?? '');
      return { offset: pg.next, path: `${req.path}?${q}`, uri: `https://app.asana.com/api/1.0${req.path}?${q}` };
    })();
    return { json: { data: pg.items, next_page: next } };
  };

  fake.route('GET', '/users/me', () => ({ json: { data: { ...user(data.me), workspaces: data.workspaces.map((w) => ({ ...w, resource_type: 'workspace' })) } } }));
  fake.route('GET', '/workspaces', (req) => list(req, data.workspaces.map((w) => ({ ...w, resource_type: 'workspace' }))));
  fake.route('GET', '/projects', (req) => {
    const ws = req.query.get('workspace');
    const archived = req.query.get('archived');
    const rows = data.projects.filter((p) => (!ws || p.workspace === ws) && (archived === null || String(p.archived) === archived));
    return list(
      req,
      rows.map((p) => ({
        gid: p.gid,
        resource_type: 'project',
        name: p.name,
        notes: p.notes,
        archived: p.archived,
        privacy_setting: p.privacy_setting,
        public: p.privacy_setting === 'public_to_workspace',
        team: p.team ? { ...p.team, resource_type: 'team' } : null,
        owner: user(p.owner),
        workspace: { gid: p.workspace, name: data.workspaces.find((w) => w.gid === p.workspace)?.name, resource_type: 'workspace' },
        created_at: p.created_at,
        modified_at: p.modified_at,
        permalink_url: `https://app.asana.com/0/${p.gid}/${p.gid}`,
      })),
    );
  });
  fake.route('GET', '/tasks', (req) => {
    const project = req.query.get('project');
    if (!project) return errors(400, 'Must specify exactly one of project, tag, section, user task list, or assignee + workspace');
    const since = req.query.get('modified_since');
    if (since !== null && Number.isNaN(Date.parse(since))) return errors(400, `modified_since: Not a valid date-time: ${since}`);
    const rows = data.tasks.filter((t) => t.memberships.some(([p]) => p === project) && (since === null || Date.parse(t.modified_at) >= Date.parse(since)));
    return list(
      req,
      rows.map((t) => ({
        gid: t.gid,
        resource_type: 'task',
        resource_subtype: 'default_task',
        name: t.name,
        notes: t.notes,
        completed: t.completed,
        completed_at: t.completed_at,
        assignee: user(t.assignee),
        created_by: user(t.created_by),
        due_on: t.due_on,
        due_at: null,
        memberships: t.memberships.map(([p, s]) => ({ project: { gid: p, name: projectName(p), resource_type: 'project' }, section: { gid: `${p}-${s}`, name: s, resource_type: 'section' } })),
        tags: t.tags.map((name, i) => ({ gid: `70${i}`, name, resource_type: 'tag' })),
        created_at: t.created_at,
        modified_at: t.modified_at,
        permalink_url: `https://app.asana.com/0/${t.memberships[0]?.[0] ?? '0'}/${t.gid}`,
      })),
    );
  });
  fake.route('GET', '/tasks/:gid/stories', (req) => {
    const t = data.tasks.find((x) => x.gid === req.params.gid);
    if (!t) return errors(404, 'task: Unknown object: ' + req.params.gid);
    return list(
      req,
      t.stories.map((s) => ({ gid: s.gid, resource_type: 'story', type: s.type, resource_subtype: s.type === 'comment' ? 'comment_added' : 'section_changed', text: s.text, created_at: s.created_at, created_by: user(s.created_by) })),
    );
  });
  let issued = 0;
  fake.route(
    'POST',
    '/-/oauth_token',
    oauthTokenEndpoint(fake, { code: 'asana-code', issue: () => ({ access_token: `asana-oauth-${++issued}`, refresh_token: `asana-rt-${issued}`, expires_in: 3600, data: { id: 501, gid: '501', name: 'Ada Lovelace', email: 'Ada@acme.test' } }) }),
  );

  await fake.start();
  return {
    get url() {
      return fake.url;
    },
    token,
    data,
    fake,
    tick: () => {
      clock += STEP;
      return new Date(clock).toISOString();
    },
    close: () => fake.close(),
  };
}
