import { type FakeReply, VendorFake } from './kit/index.ts';

/**
 * A local Notion REST API fake (developers.notion.com/reference, version 2025-09-03): bearer auth, the
 * `Notion-Version` header, `POST /v1/search` (filter by object, sort by last_edited_time, start_cursor /
 * page_size pagination), `GET /v1/blocks/{id}/children`, `PATCH /v1/blocks/{id}/children`, `GET|POST /v1/pages`,
 * `POST /v1/data_sources/{id}/query` (last_edited_time filter and sort), `GET /v1/comments?block_id=`
 * (a page's own discussions, or a block's inline ones), `GET /v1/users[/me]`; lists as `{object:"list", results, next_cursor, has_more}`, errors as
 * `{object:"error", status, code, message}`, 429 `rate_limited` with Retry-After.
 * Unlike Notion, search also returns archived pages (flagged `archived`/`in_trash`), so skipping them is testable.
 */
type Json = Record<string, unknown>;
export interface FakeNotionData {
  users: Json[];
  pages: Json[];
  dataSources: Json[];
  /** Children per parent block/page id, in order. */
  blocks: Map<string, Json[]>;
  comments: Json[];
}
export interface FakeNotion {
  readonly url: string;
  readonly token: string;
  readonly data: FakeNotionData;
  readonly calls: { method: string; path: string; query: string; body: Json | null; version: string | undefined }[];
  /** The next workspace instant (minutes apart, like Notion's rounded last_edited_time). */
  tick(): string;
  /** A fresh page under the workspace (or a parent page) with paragraph blocks. */
  addPage(title: string, paragraphs: string[], parentPageId?: string): Json;
  rateLimitNext(count: number, retryAfterSeconds: number): void;
  close(): Promise<void>;
}

let counter = 0;
export const fakeId = () => `00000000-0000-4000-8000-${String(++counter).padStart(12, '0')}`;
export const rt = (text: string, href: string | null = null) => [
  {
    type: 'text',
    text: { content: text, link: href ? { url: href } : null },
    annotations: { bold: false, italic: false, strikethrough: false, underline: false, code: false, color: 'default' },
    plain_text: text,
    href,
  },
];

export function startClock() {
  let minutes = 0;
  return () => new Date(Date.UTC(2026, 0, 1, 9, minutes++)).toISOString();
}

export function block(type: string, body: Json, children?: Json[]): Json & { _children?: Json[] } {
  return { object: 'block', id: fakeId(), type, [type]: body, ...(children ? { _children: children } : {}) };
}
const p = (text: string) => block('paragraph', { rich_text: rt(text), color: 'default' });

/** A small workspace: a handbook page using every rendered block type, a sub-page, an archived page, a database with rows, comments. */
export function seedNotion(tick: () => string): FakeNotionData & { ids: Record<string, string> } {
  const amy = { object: 'user', id: fakeId(), type: 'person', name: 'Amy Lee', avatar_url: null, person: { email: 'amy@example.com' } };
  const bob = { object: 'user', id: fakeId(), type: 'person', name: 'Bob Park', avatar_url: null, person: { email: 'bob@example.com' } };
  const bot = { object: 'user', id: fakeId(), type: 'bot', name: 'Atrium', avatar_url: null, bot: { owner: { type: 'workspace', workspace: true }, workspace_name: 'Acme' } };
  const data: FakeNotionData = { users: [amy, bob, bot], pages: [], dataSources: [], blocks: new Map(), comments: [] };
  const ref = (u: Json) => ({ object: 'user', id: u.id });
  const page = (title: string, parent: Json, extra: Json = {}, by = amy): Json => {
    const t = tick();
    const id = fakeId();
    return {
      object: 'page',
      id,
      created_time: t,
      last_edited_time: t,
      created_by: ref(by),
      last_edited_by: ref(by),
      cover: null,
      icon: null,
      parent,
      archived: false,
      in_trash: false,
      properties: { title: { id: 'title', type: 'title', title: rt(title) } },
      url: `https://www.notion.so/${title.replace(/\W+/g, '-')}-${id.replace(/-/g, '')}`,
      public_url: null,
      ...extra,
    };
  };
  const setChildren = (parentId: string, children: (Json & { _children?: Json[] })[]) => {
    const out: Json[] = [];
    for (const { _children, ...b } of children) {
      out.push({ ...b, parent: { type: 'block_id', block_id: parentId }, has_children: Boolean(_children?.length) });
      if (_children?.length) setChildren(String(b.id), _children);
    }
    data.blocks.set(parentId, out);
  };

  const handbook = page('Engineering Handbook', { type: 'workspace', workspace: true });
  const onboarding = page('Onboarding', { type: 'page_id', page_id: handbook.id }, {}, bob);
  const archived = page('Old notes', { type: 'workspace', workspace: true }, { archived: true, in_trash: true });
  const dbId = fakeId();
  const source = {
    object: 'data_source',
    id: fakeId(),
    created_time: tick(),
    last_edited_time: tick(),
    created_by: ref(amy),
    last_edited_by: ref(amy),
    title: rt('Projects'),
    description: rt('Every engineering project and its owner'),
    parent: { type: 'database_id', database_id: dbId },
    database_parent: { type: 'page_id', page_id: handbook.id },
    archived: false,
    in_trash: false,
    properties: {
      Name: { id: 'title', name: 'Name', type: 'title', title: {} },
      Status: { id: 'st', name: 'Status', type: 'status', status: {} },
      Owner: { id: 'ow', name: 'Owner', type: 'people', people: {} },
      Due: { id: 'du', name: 'Due', type: 'date', date: {} },
    },
    url: `https://www.notion.so/${dbId.replace(/-/g, '')}`,
  };
  const row = (name: string, status: string, owner: Json, due: string) =>
    page(name, { type: 'data_source_id', data_source_id: source.id, database_id: dbId }, {
      properties: {
        Name: { id: 'title', type: 'title', title: rt(name) },
        Status: { id: 'st', type: 'status', status: { id: 's1', name: status, color: 'green' } },
        Owner: { id: 'ow', type: 'people', people: [{ object: 'user', id: owner.id }] },
        Due: { id: 'du', type: 'date', date: { start: due, end: null, time_zone: null } },
      },
    });
  const search = row('Search revamp', 'In progress', amy, '2026-03-01');
  const billing = row('Billing migration', 'Done', bob, '2026-02-01');
  data.pages.push(handbook, onboarding, archived, search, billing);
  data.dataSources.push(source);

  // Blocks that carry inline discussions (comments with parent {type: "block_id"}).
  const callout = block('callout', { rich_text: rt('Deploys freeze on Fridays'), icon: { type: 'emoji', emoji: '💡' }, color: 'gray_background' });
  const codeBlock = block('code', { rich_text: rt('npm run deploy -- --prod'), language: 'bash', caption: [] });
  const secondary = p('Page the secondary after 15 minutes');
  setChildren(String(handbook.id), [
    block('heading_1', { rich_text: rt('Engineering Handbook'), is_toggleable: false }),
    p('How we build software at Acme.'),
    block('heading_2', { rich_text: rt('Principles') }),
    block('bulleted_list_item', { rich_text: rt('Ship small changes') }),
    block('bulleted_list_item', { rich_text: rt('Review everything') }, [block('bulleted_list_item', { rich_text: rt('even docs') })]),
    block('heading_3', { rich_text: rt('Release steps') }),
    block('numbered_list_item', { rich_text: rt('Open a pull request') }),
    block('numbered_list_item', { rich_text: rt('Wait for CI') }),
    block('numbered_list_item', { rich_text: rt('Merge') }),
    block('to_do', { rich_text: rt('Write the changelog'), checked: true }),
    codeBlock,
    callout,
    block('quote', { rich_text: rt('Make it work, then make it fast') }),
    block('toggle', { rich_text: rt('On-call details') }, [secondary, block('toggle', { rich_text: rt('Escalation') }, [p('Call the VP of engineering')])]),
    block('table', { table_width: 2, has_column_header: true, has_row_header: false }, [
      block('table_row', { cells: [rt('Service'), rt('Owner')] }),
      block('table_row', { cells: [rt('search'), rt('Amy')] }),
    ]),
    block('bookmark', { url: 'https://acme.dev/runbook', caption: rt('Runbook') }),
    block('embed', { url: 'https://www.figma.com/file/abc', caption: [] }),
    block('divider', {}),
    p(''),
    block('child_page', { title: 'Onboarding' }),
    block('child_database', { title: 'Projects' }),
  ]);
  setChildren(String(onboarding.id), [p('Welcome aboard!'), block('numbered_list_item', { rich_text: rt('Get a laptop') }), block('numbered_list_item', { rich_text: rt('Read the handbook') })]);
  setChildren(String(archived.id), [p('Nothing to see here')]);
  setChildren(String(search.id), [p('Hybrid search with vectors and BM25.')]);
  setChildren(String(billing.id), [p('Move invoices to the new provider.')]);

  const comment = (pageId: unknown, text: string, by: Json) => {
    const t = tick();
    return { object: 'comment', id: fakeId(), parent: { type: 'page_id', page_id: pageId }, discussion_id: fakeId(), created_time: t, last_edited_time: t, created_by: ref(by), rich_text: rt(text) };
  };
  data.comments.push(comment(handbook.id, 'Should we add a section on incidents?', bob), comment(handbook.id, 'Yes, next week.', amy), comment(search.id, 'Blocked on the embeddings work', bob));
  // Inline discussions, Notion's wire shape: parent {type: "block_id", block_id}; replies share the discussion_id.
  const onBlock = (blockId: unknown, text: string, by: Json, discussion = fakeId()) => {
    const t = tick();
    return { object: 'comment', id: fakeId(), parent: { type: 'block_id', block_id: blockId }, discussion_id: discussion, created_time: t, last_edited_time: t, created_by: ref(by), rich_text: rt(text) };
  };
  const thread = fakeId();
  data.comments.push(
    onBlock(callout.id, 'Does the freeze include hotfixes?', bob, thread),
    onBlock(callout.id, 'No, hotfixes may ship on Fridays.', amy, thread),
    onBlock(callout.id, 'Thanks, adding that to the callout.', bob, thread),
    onBlock(codeBlock.id, 'Use the make target instead', amy),
    onBlock(secondary.id, 'Fifteen minutes is too long at night', bob),
  );
  return { ...data, ids: { handbook: String(handbook.id), onboarding: String(onboarding.id), archived: String(archived.id), search: String(search.id), billing: String(billing.id), source: source.id, amy: String(amy.id), bob: String(bob.id), callout: String(callout.id), code: String(codeBlock.id), secondary: String(secondary.id) } };
}

/** Blocks as Notion stores them from a request: rich text gains `plain_text`/`href`, like Notion's answers. */
function stored(c: Json, parent: Json): Json {
  const type = String(c.type);
  const body = { ...((c[type] as Json | undefined) ?? {}) };
  if (Array.isArray(body.rich_text)) {
    body.rich_text = (body.rich_text as { text?: { content?: string; link?: { url: string } | null } }[]).flatMap((r) => rt(r.text?.content ?? '', r.text?.link?.url ?? null));
  }
  return { object: 'block', id: fakeId(), type, [type]: body, has_children: false, parent };
}

function list(items: Json[], cursor: unknown, size: unknown) {
  const pageSize = Math.min(Math.max(Number(size ?? 100) || 100, 1), 100);
  const start = cursor ? items.findIndex((x) => x.id === cursor) : 0;
  if (start < 0) return null;
  const results = items.slice(start, start + pageSize);
  const nextItem = items[start + pageSize];
  return { object: 'list', results, next_cursor: nextItem ? nextItem.id : null, has_more: Boolean(nextItem), type: 'page_or_data_source', page_or_data_source: {} };
}
const byEditedDesc = (a: Json, b: Json) => String(b.last_edited_time).localeCompare(String(a.last_edited_time)) || String(a.id).localeCompare(String(b.id));

/** `pageSize` caps every list page (Notion's cap is 100), so small workspaces still exercise pagination. */
export async function startFakeNotion(opts: { data?: FakeNotionData; tick?: () => string; pageSize?: number } = {}): Promise<FakeNotion> {
  const tick = opts.tick ?? startClock();
  const data = opts.data ?? seedNotion(tick);
  const token = 'ntn_fake_integration_secret_0123456789';
  const calls: FakeNotion['calls'] = [];
  const bot = data.users.find((u) => u.type === 'bot') ?? data.users[0];

  const findPage = (id: string) => data.pages.find((x) => x.id === id);
  /** A new live page, as Notion returns it, added to the workspace. */
  const newPage = (title: string, parent: Json, userId: unknown): Json => {
    const t = tick();
    const id = fakeId();
    const pg: Json = {
      object: 'page',
      id,
      created_time: t,
      last_edited_time: t,
      created_by: { object: 'user', id: userId },
      last_edited_by: { object: 'user', id: userId },
      parent,
      archived: false,
      in_trash: false,
      properties: { title: { id: 'title', type: 'title', title: rt(title) } },
      url: `https://www.notion.so/${id.replace(/-/g, '')}`,
    };
    data.pages.push(pg);
    return pg;
  };
  const touch = (pageId: string) => {
    const pg = findPage(pageId);
    if (pg) pg.last_edited_time = tick();
  };

  // The shared vendor fake: token check, request log, injected 429s; Notion's own error shape and routes below.
  const errorReply = (status: number, code: string, message: string): FakeReply => ({ status, json: { object: 'error', status, code, message, request_id: 'fake-request' } });
  const fake = new VendorFake({
    name: 'Notion',
    tokens: [token],
    unauthorized: () => errorReply(401, 'unauthorized', 'API token is invalid.'),
    rateLimited: () => errorReply(429, 'rate_limited', 'You have been rate limited. Please try again in a few minutes.'),
  });
  fake.route('*', '/:path*', (req) => {
    {
      const url = req.url;
      const body = (req.body ?? null) as Json | null;
      const version = req.headers['notion-version'] as string | undefined;
      calls.push({ method: req.method, path: url.pathname, query: url.search, body, version });
      const reply = (status: number, out: unknown): FakeReply => ({ status, json: out });
      const error = errorReply;
      if (!version) return error(400, 'missing_version', 'Notion-Version header failed validation: Notion-Version header should be defined.');
      const seg = url.pathname.split('/').filter(Boolean);
      const q = url.searchParams;
      const paged = (items: Json[], cursor: unknown, size: unknown) => {
        const l = list(items, cursor, Math.min(Number(size ?? 100) || 100, opts.pageSize ?? 100));
        return l ? reply(200, l) : error(400, 'validation_error', 'body.start_cursor should be a valid cursor.');
      };

      if (req.method === 'GET' && url.pathname === '/v1/users/me') return reply(200, bot);
      if (req.method === 'GET' && url.pathname === '/v1/users') return paged(data.users, q.get('start_cursor'), q.get('page_size'));
      if (req.method === 'POST' && url.pathname === '/v1/search') {
        const filter = body?.filter as { property?: string; value?: string } | undefined;
        const sort = body?.sort as { timestamp?: string; direction?: string } | undefined;
        let items = [...data.pages, ...data.dataSources];
        if (filter) items = items.filter((x) => x.object === filter.value);
        items.sort(byEditedDesc);
        if (sort?.direction === 'ascending') items.reverse();
        return paged(items, body?.start_cursor, body?.page_size);
      }
      if (seg[1] === 'blocks' && seg[3] === 'children' && seg[2]) {
        const children = data.blocks.get(seg[2]);
        if (req.method === 'GET') {
          if (!children && !findPage(seg[2])) return error(404, 'object_not_found', `Could not find block with ID: ${seg[2]}.`);
          return paged(children ?? [], q.get('start_cursor'), q.get('page_size'));
        }
        if (req.method === 'PATCH') {
          if (!findPage(seg[2])) return error(404, 'object_not_found', `Could not find block with ID: ${seg[2]}.`);
          const added = ((body?.children as Json[]) ?? []).map((c) => stored(c, { type: 'page_id', page_id: seg[2] }));
          data.blocks.set(seg[2], [...(children ?? []), ...added]);
          touch(seg[2]);
          return reply(200, { object: 'list', results: added, next_cursor: null, has_more: false, type: 'block', block: {} });
        }
      }
      if (seg[1] === 'pages' && req.method === 'GET' && seg[2]) {
        const pg = findPage(seg[2]);
        return pg ? reply(200, pg) : error(404, 'object_not_found', `Could not find page with ID: ${seg[2]}.`);
      }
      if (url.pathname === '/v1/pages' && req.method === 'POST') {
        const parent = body?.parent as { page_id?: string } | undefined;
        if (!parent?.page_id || !findPage(parent.page_id)) return error(404, 'object_not_found', 'Could not find the parent page.');
        const titleProp = (body?.properties as { title?: { title?: { text: { content: string } }[] } } | undefined)?.title?.title ?? [];
        const title = titleProp.map((t) => t.text.content).join('');
        const pg = newPage(title, { type: 'page_id', page_id: parent.page_id }, bot?.id);
        const id = String(pg.id);
        data.blocks.set(id, ((body?.children as Json[]) ?? []).map((c) => stored(c, { type: 'page_id', page_id: id })));
        return reply(200, pg);
      }
      if (seg[1] === 'data_sources' && seg[3] === 'query' && req.method === 'POST' && seg[2]) {
        const sourceId = seg[2];
        if (!data.dataSources.some((d) => d.id === sourceId)) return error(404, 'object_not_found', `Could not find data_source with ID: ${sourceId}.`);
        const filter = body?.filter as { timestamp?: string; last_edited_time?: { on_or_after?: string; after?: string } } | undefined;
        let rows = data.pages.filter((x) => (x.parent as Json).data_source_id === sourceId && (body?.in_trash === true || !x.in_trash));
        const on = filter?.last_edited_time?.on_or_after;
        const after = filter?.last_edited_time?.after;
        if (on) rows = rows.filter((r) => String(r.last_edited_time) >= on);
        if (after) rows = rows.filter((r) => String(r.last_edited_time) > after);
        rows.sort(byEditedDesc);
        return paged(rows, body?.start_cursor, body?.page_size);
      }
      if (url.pathname === '/v1/comments' && req.method === 'GET') {
        const blockId = q.get('block_id');
        if (!blockId) return error(400, 'validation_error', 'block_id should be defined.');
        const known = findPage(blockId) || [...data.blocks.values()].some((children) => children.some((b) => b.id === blockId));
        if (!known) return error(404, 'object_not_found', `Could not find block with ID: ${blockId}. Make sure the relevant pages and databases are shared with your integration.`);
        const items = data.comments.filter((c) => (c.parent as Json).page_id === blockId || (c.parent as Json).block_id === blockId);
        const l = list(items, q.get('start_cursor'), Math.min(Number(q.get('page_size') ?? 100) || 100, opts.pageSize ?? 100));
        if (!l) return error(400, 'validation_error', 'body.start_cursor should be a valid cursor.');
        const { page_or_data_source: _omit, ...rest } = l;
        return reply(200, { ...rest, type: 'comment', comment: {} });
      }
      return error(400, 'invalid_request_url', 'Invalid request URL.');
    }
  });
  await fake.start();
  return {
    url: fake.url,
    token,
    data,
    calls,
    tick,
    addPage(title, paragraphs, parentPageId) {
      const pg = newPage(title, parentPageId ? { type: 'page_id', page_id: parentPageId } : { type: 'workspace', workspace: true }, data.users[0]?.id);
      const id = String(pg.id);
      data.blocks.set(id, paragraphs.map((x) => ({ ...p(x), parent: { type: 'page_id', page_id: id }, has_children: false })));
      return pg;
    },
    rateLimitNext(count, seconds) {
      fake.rateLimitNext(count, seconds);
    },
    close: () => fake.close(),
  };
}
