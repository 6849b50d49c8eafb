import { cursorPage, type FakeReply, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local ClickUp API fake, speaking the wire format of developer.clickup.com/reference: API v2 `GET /api/v2/user`,
 * `/team` (Workspaces with members), `/team/{id}/space`, `/space/{id}/folder` (folders with their lists),
 * `/space/{id}/list` (folderless lists), `/list/{id}/task` (`page` from 0, 100 a page, `last_page`, `date_updated_gt`
 * in Unix ms, `include_closed`, `subtasks`, `archived`; times as ms strings), `/task/{id}/comment` (newest first, 25 a
 * call, older pages by `start` + `start_id`); Docs v3 `GET /api/v3/workspaces/{id}/docs` (`cursor`/`next_cursor`,
 * `limit`, `deleted`, `archived`) and `/docs/{id}/pages` (`content_format`, `max_page_depth`); `POST
 * /api/v2/oauth/token`. A personal token (`pk_…`) comes bare in `Authorization`, an OAuth token as `Bearer`; errors are
 * `{err, ECODE}`; a 429 carries `X-RateLimit-Limit/Remaining/Reset` (Reset a Unix time in seconds), no Retry-After.
 */
export interface CUser {
  id: number;
  username: string;
  email: string;
}
export interface CSpace {
  id: string;
  name: string;
  private: boolean;
  members: CUser[];
}
export interface CFolder {
  id: string;
  name: string;
  spaceId: string;
}
export interface CList {
  id: string;
  name: string;
  spaceId: string;
  folderId: string | null;
  content: string;
  private?: boolean;
}
export interface CTask {
  id: string;
  custom_id: string | null;
  listId: string;
  name: string;
  text: string;
  status: string;
  statusType: 'open' | 'custom' | 'closed';
  priority: 'urgent' | 'high' | 'normal' | 'low' | null;
  assignees: CUser[];
  tags: string[];
  parent: string | null;
  creator: CUser;
  created: number;
  updated: number;
  archived?: boolean;
  checklists: { name: string; items: { name: string; resolved: boolean }[] }[];
}
export interface CComment {
  id: string;
  taskId: string;
  text: string;
  user: CUser;
  date: number;
}
export interface CPage {
  id: string;
  name: string;
  content: string;
  pages?: CPage[];
}
export interface CDoc {
  id: string;
  name: string;
  parent: { id: string; type: number };
  public: boolean;
  creator: number;
  created: number;
  updated: number;
  deleted?: boolean;
  pages: CPage[];
}
export interface ClickUpData {
  me: CUser;
  team: { id: string; name: string; members: CUser[] };
  spaces: CSpace[];
  folders: CFolder[];
  lists: CList[];
  tasks: CTask[];
  comments: CComment[];
  docs: CDoc[];
}

export interface FakeClickUp {
  readonly url: string;
  readonly token: string;
  readonly data: ClickUpData;
  readonly fake: VendorFake;
  /** A time (Unix ms) later than every earlier one, for edits after a sync. */
  tick(): number;
  /** The next `count` requests answer ClickUp's 429 (reset `seconds` from now). */
  rateLimitNext(count: number, seconds?: number): void;
  close(): Promise<void>;
}

export const CU_BASE = Date.UTC(2026, 0, 5, 9, 0, 0);

export function seedClickUp(): ClickUpData {
  let at = CU_BASE;
  const t = () => (at += 60_000);
  const ada: CUser = { id: 81, username: 'Ada Lovelace', email: 'Ada@acme.test' };
  const grace: CUser = { id: 82, username: 'Grace Hopper', email: 'grace@acme.test' };
  const task = (over: Partial<CTask> & Pick<CTask, 'id' | 'listId' | 'name'>): CTask => {
    const c = t();
    return { custom_id: null, text: '', status: 'to do', statusType: 'open', priority: null, assignees: [], tags: [], parent: null, creator: ada, created: c, updated: c, checklists: [], ...over };
  };
  return {
    me: ada,
    team: { id: '9001', name: 'Acme', members: [ada, grace] },
    spaces: [
      { id: '700', name: 'Engineering', private: false, members: [] },
      { id: '701', name: 'Leadership', private: true, members: [ada] },
    ],
    folders: [{ id: '800', name: 'Backend', spaceId: '700' }],
    lists: [
      { id: '900', name: 'Sprint 12', spaceId: '700', folderId: '800', content: 'Work planned for the sprint.' },
      { id: '901', name: 'Bugs', spaceId: '700', folderId: '800', content: '', private: true },
      { id: '902', name: 'Plans', spaceId: '701', folderId: null, content: 'Board-level plans.' },
    ],
    tasks: [
      task({
        id: '86a1',
        custom_id: 'ENG-1',
        listId: '900',
        name: 'Rotate the signing keys',
        text: 'Rotate the JWT signing keys before the audit.\nKeep the old key for a day.',
        status: 'in progress',
        statusType: 'custom',
        priority: 'high',
        assignees: [grace],
        tags: ['security'],
        checklists: [{ name: 'Steps', items: [{ name: 'generate key', resolved: true }, { name: 'deploy', resolved: false }] }],
      }),
      task({ id: '86a2', listId: '900', name: 'Write the runbook', parent: '86a1', text: 'Document the rotation.' }),
      task({ id: '86a3', listId: '900', name: 'Ship release 4.2', status: 'complete', statusType: 'closed', text: 'Released on Tuesday.' }),
      task({ id: '86b1', listId: '901', name: 'Login loop on Safari', text: 'Users on Safari 17 loop on the login page.', creator: grace }),
      task({ id: '86c1', listId: '902', name: 'Acquisition shortlist', text: 'Three candidates for the acquisition budget.' }),
    ],
    comments: [
      { id: '501', taskId: '86a1', text: 'Key generated with the HSM.', user: grace, date: t() },
      { id: '502', taskId: '86a1', text: 'Waiting for the auditors to confirm the window.', user: ada, date: t() },
      { id: '503', taskId: '86a1', text: 'Auditors confirmed Thursday.', user: grace, date: t() },
      { id: '504', taskId: '86b1', text: 'Reproduced with third-party cookies blocked.', user: ada, date: t() },
    ],
    docs: [
      {
        id: '8cjx1-1',
        name: 'Engineering handbook',
        parent: { id: '700', type: 4 },
        public: false,
        creator: 81,
        created: t(),
        updated: t(),
        pages: [{ id: 'p1', name: 'Onboarding', content: 'Read the **security** guide first.', pages: [{ id: 'p2', name: 'Laptops', content: 'Laptops use full-disk encryption.' }] }],
      },
      { id: '8cjx1-2', name: 'Board minutes', parent: { id: '701', type: 4 }, public: false, creator: 81, created: t(), updated: t(), pages: [{ id: 'p3', name: 'March', content: 'The board approved the hiring plan.' }] },
    ],
  };
}

const err = (status: number, message: string, code: string): FakeReply => ({ status, json: { err: message, ECODE: code } });
const user = (u: CUser) => ({ id: u.id, username: u.username, email: u.email, color: '#7b68ee', initials: u.username.slice(0, 2).toUpperCase(), profilePicture: null });

/** `maxTasks`: the most tasks one page holds (ClickUp: 100). */
export async function startFakeClickUp(data: ClickUpData = seedClickUp(), opts: { maxTasks?: number } = {}): Promise<FakeClickUp> {
  const token = 'pk_81_3F9KQ2ZC7Y4R0XJ8M1N6B5V2T7L0PWA';
  let clock = CU_BASE + 1000 * 60_000;
  let resetIn = 1;
  const fake = new VendorFake({
    name: 'ClickUp',
    // A second user's token keeps the token check on after the first is revoked.
    tokens: [token, 'pk_82_GRACE0000000000000000000000000'],
    tokenOf: ({ headers }) => {
      const h = headers.authorization;
      if (!h) return null;
      // Personal tokens go bare, OAuth tokens as Bearer: a personal token sent as Bearer is refused like ClickUp does.
      if (h.startsWith('Bearer ')) return h.slice(7).startsWith('pk_') ? null : h.slice(7);
      return h.startsWith('pk_') ? h : null;
    },
    publicPath: (path) => path === '/api/v2/oauth/token',
    unauthorized: () => err(401, 'Token invalid', 'OAUTH_025'),
    rateLimited: () => ({
      ...err(429, 'Rate limit reached', 'APP_002'),
      headers: { 'retry-after': '', 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + resetIn) },
    }),
    serverError: (status) => err(status, 'Internal Server Error', 'SHARD_001'),
  });
  const bool = (q: URLSearchParams, name: string) => q.get(name) === 'true';
  const listJson = (l: CList) => {
    const s = data.spaces.find((x) => x.id === l.spaceId);
    const f = data.folders.find((x) => x.id === l.folderId);
    return {
      id: l.id,
      name: l.name,
      orderindex: 0,
      content: l.content,
      status: null,
      priority: null,
      assignee: null,
      task_count: data.tasks.filter((x) => x.listId === l.id).length,
      due_date: null,
      start_date: null,
      folder: f ? { id: f.id, name: f.name, hidden: false, access: true } : { id: '0', name: 'hidden', hidden: true, access: true },
      space: { id: l.spaceId, name: s?.name ?? '', access: true },
      archived: false,
      override_statuses: false,
      permission_level: 'create',
      ...(l.private !== undefined ? { private: l.private } : {}),
    };
  };
  const taskJson = (t: CTask) => {
    const l = data.lists.find((x) => x.id === t.listId);
    return {
      id: t.id,
      custom_id: t.custom_id,
      custom_item_id: null,
      name: t.name,
      text_content: t.text,
      description: t.text,
      status: { status: t.status, color: '#d3d3d3', type: t.statusType, orderindex: 1 },
      orderindex: '1.0000',
      date_created: String(t.created),
      date_updated: String(t.updated),
      date_closed: t.statusType === 'closed' ? String(t.updated) : null,
      date_done: t.statusType === 'closed' ? String(t.updated) : null,
      archived: Boolean(t.archived),
      creator: { id: t.creator.id, username: t.creator.username, color: '#7b68ee', email: t.creator.email, profilePicture: null },
      assignees: t.assignees.map(user),
      watchers: [],
      checklists: t.checklists.map((c, i) => ({ id: `cl-${t.id}-${i}`, task_id: t.id, name: c.name, orderindex: i, resolved: c.items.filter((x) => x.resolved).length, unresolved: c.items.filter((x) => !x.resolved).length, items: c.items.map((it, j) => ({ id: `it-${j}`, name: it.name, orderindex: j, assignee: null, resolved: it.resolved, parent: null, children: [] })) })),
      tags: t.tags.map((name) => ({ name, tag_fg: '#fff', tag_bg: '#000', creator: t.creator.id })),
      parent: t.parent,
      priority: t.priority ? { id: '2', priority: t.priority, color: '#ffcc00', orderindex: '2' } : null,
      due_date: null,
      start_date: null,
      points: null,
      time_estimate: null,
      custom_fields: [],
      dependencies: [],
      linked_tasks: [],
      team_id: data.team.id,
      url: `https://app.clickup.com/t/${t.id}`,
      permission_level: 'create',
      list: { id: t.listId, name: l?.name ?? '', access: true },
      project: { id: l?.folderId ?? '0', name: 'hidden', hidden: !l?.folderId, access: true },
      folder: { id: l?.folderId ?? '0', name: 'hidden', hidden: !l?.folderId, access: true },
      space: { id: l?.spaceId ?? '' },
    };
  };
  const spaceOf = (id: string) => data.spaces.find((s) => s.id === id);

  fake.route('GET', '/api/v2/user', () => ({ json: { user: { ...user(data.me), week_start_day: 1, global_font_support: true, timezone: 'Europe/Berlin' } } }));
  fake.route('GET', '/api/v2/team', () => ({
    json: { teams: [{ id: data.team.id, name: data.team.name, color: '#000', avatar: null, members: data.team.members.map((m) => ({ user: { ...user(m), role: 3 } })) }] },
  }));
  fake.route('GET', '/api/v2/team/:team/space', (req) => {
    if (req.params.team !== data.team.id) return err(401, 'Team not authorized', 'OAUTH_027');
    return {
      json: {
        spaces: data.spaces.map((s) => ({
          id: s.id,
          name: s.name,
          private: s.private,
          color: null,
          avatar: null,
          admin_can_manage: true,
          archived: false,
          members: s.members.map((m) => ({ user: user(m) })),
          statuses: [],
          multiple_assignees: true,
          features: {},
        })),
      },
    };
  });
  fake.route('GET', '/api/v2/space/:space/folder', (req) => {
    const s = spaceOf(req.params.space ?? '');
    if (!s) return err(404, 'Space not found', 'PROJ_001');
    const folders = data.folders.filter((f) => f.spaceId === s.id);
    return {
      json: {
        folders: folders.map((f) => ({
          id: f.id,
          name: f.name,
          orderindex: 0,
          override_statuses: false,
          hidden: false,
          space: { id: s.id, name: s.name },
          task_count: String(data.tasks.filter((t) => data.lists.some((l) => l.id === t.listId && l.folderId === f.id)).length),
          archived: false,
          statuses: [],
          lists: data.lists.filter((l) => l.folderId === f.id).map(listJson),
          permission_level: 'create',
        })),
      },
    };
  });
  fake.route('GET', '/api/v2/space/:space/list', (req) => {
    const s = spaceOf(req.params.space ?? '');
    if (!s) return err(404, 'Space not found', 'PROJ_001');
    return { json: { lists: data.lists.filter((l) => l.spaceId === s.id && !l.folderId).map(listJson) } };
  });
  fake.route('GET', '/api/v2/list/:list/task', (req) => {
    const q = req.query;
    if (!data.lists.some((l) => l.id === req.params.list)) return err(404, 'List not found', 'SUBCAT_016');
    const gt = q.get('date_updated_gt');
    if (gt !== null && !/^\d+$/.test(gt)) return err(400, 'date_updated_gt must be a Unix time in milliseconds', 'INPUT_003');
    const page = Number(q.get('page') ?? 0);
    const size = opts.maxTasks ?? 100;
    const hits = data.tasks
      .filter((t) => t.listId === req.params.list)
      .filter((t) => Boolean(t.archived) === bool(q, 'archived'))
      // Closed tasks only with include_closed, subtasks only with subtasks=true.
      .filter((t) => bool(q, 'include_closed') || t.statusType !== 'closed')
      .filter((t) => bool(q, 'subtasks') || !t.parent)
      .filter((t) => gt === null || t.updated > Number(gt))
      .sort((a, b) => (q.get('order_by') === 'updated' ? b.updated - a.updated : b.created - a.created) || a.id.localeCompare(b.id));
    const items = hits.slice(page * size, page * size + size);
    return { json: { tasks: items.map(taskJson), last_page: (page + 1) * size >= hits.length } };
  });
  fake.route('GET', '/api/v2/task/:task/comment', (req) => {
    if (!data.tasks.some((t) => t.id === req.params.task)) return err(404, 'Task not found', 'ITEM_013');
    const newestFirst = data.comments.filter((c) => c.taskId === req.params.task).sort((a, b) => b.date - a.date);
    const start = req.query.get('start');
    const startId = req.query.get('start_id');
    if ((start === null) !== (startId === null)) return err(400, 'start and start_id go together', 'INPUT_005');
    const from = start === null ? 0 : newestFirst.findIndex((c) => c.id === startId) + 1;
    const page = newestFirst.slice(from, from + 25);
    return {
      json: {
        comments: page.map((c) => ({
          id: c.id,
          comment: [{ text: c.text }],
          comment_text: c.text,
          user: user(c.user),
          resolved: false,
          assignee: null,
          assigned_by: null,
          reactions: [],
          date: String(c.date),
          reply_count: '0',
        })),
      },
    };
  });
  fake.route('GET', '/api/v3/workspaces/:team/docs', (req) => {
    if (req.params.team !== data.team.id) return err(401, 'Team not authorized', 'OAUTH_027');
    const q = req.query;
    const limit = Math.min(100, Math.max(10, Number(q.get('limit') ?? 50)));
    const hits = data.docs.filter((d) => Boolean(d.deleted) === bool(q, 'deleted'));
    const pg = cursorPage(hits, q.get('cursor'), Math.min(limit, 1));
    return {
      json: {
        docs: pg.items.map((d) => ({ id: d.id, name: d.name, type: 1, date_created: d.created, date_updated: d.updated, parent: d.parent, public: d.public, workspace_id: Number(data.team.id), creator: d.creator, deleted: Boolean(d.deleted), archived: false })),
        ...(pg.next ? { next_cursor: pg.next } : {}),
      },
    };
  });
  fake.route('GET', '/api/v3/workspaces/:team/docs/:doc/pages', (req) => {
    const d = data.docs.find((x) => x.id === req.params.doc && !x.deleted);
    if (!d) return err(404, 'Doc not found', 'DOCS_404');
    if (req.query.get('content_format') !== 'text/md') return { json: d.pages.map((p) => ({ ...p, content: `[plain] ${p.content}` })) };
    const withMeta = (p: CPage): unknown => ({ id: p.id, doc_id: d.id, workspace_id: Number(data.team.id), name: p.name, content: p.content, date_created: d.created, archived: false, deleted: false, protected: false, pages: (p.pages ?? []).map(withMeta) });
    return { json: d.pages.map(withMeta) };
  });
  let issued = 0;
  fake.route('POST', '/api/v2/oauth/token', oauthTokenEndpoint(fake, { code: 'clickup-code', issue: () => ({ access_token: `81_oauth${++issued}ABCDEF` }) }));

  await fake.start();
  return {
    get url() {
      return fake.url;
    },
    token,
    data,
    fake,
    tick: () => (clock += 60_000),
    rateLimitNext(count, seconds = 1) {
      resetIn = seconds;
      fake.rateLimitNext(count, seconds);
    },
    close: () => fake.close(),
  };
}
