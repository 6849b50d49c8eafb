import { type FakeReply, type FakeRequest, VendorFake } from './kit/index.ts';

/**
 * A local Discourse fake speaking the wire format of docs.discourse.org (the discourse/discourse_api_docs OpenAPI
 * description): `Api-Key` + `Api-Username` headers (a bad key or user answers 403 `invalid_access`, as Discourse does);
 * `GET /categories.json?include_subcategories=true` (`category_list.categories[].subcategory_list`, `read_restricted`);
 * topic lists `GET /c/{slug}/{id}.json` and `GET /latest.json?order=activity` (`topic_list.topics`, `more_topics_url`
 * as a path without `.json` — `/c/{slug}/{id}?page=1`, `/latest?order=activity&page=1` — answered as JSON for
 * `Accept: application/json`); `GET /t/{id}.json` (the first `chunk` posts in `post_stream.posts`, every id in
 * `post_stream.stream`; a deleted topic is 404, or shown to admins with `deleted_at`); `GET /t/{id}/posts.json?post_ids[]=`;
 * `GET /posts.json?before=` (`latest_posts`, newest id first); `GET /u/{username}.json`. 429 answers carry
 * `Retry-After` and `{errors, error_type: 'rate_limit', extras: {wait_seconds, time_left}}`.
 */
export interface DPost {
  id: number;
  username: string;
  name: string;
  cooked: string;
  created_at: string;
  updated_at: string;
  post_type?: number;
}
export interface DTopic {
  id: number;
  title: string;
  slug: string;
  category_id: number;
  created_at: string;
  bumped_at: string;
  tags: string[];
  posts: DPost[];
  pinned?: boolean;
  deleted_at?: string | null;
  archetype?: 'regular' | 'private_message';
}
export interface DCategory {
  id: number;
  name: string;
  slug: string;
  description_text: string;
  read_restricted: boolean;
  parent_category_id?: number;
  group_permissions: { group_name: string; group_id: number; permission_type: number }[];
}
export interface DiscourseData {
  users: { id: number; username: string; name: string; admin: boolean; email?: string }[];
  /** Group name → member usernames (`/groups/{name}/members.json`); `admins` is Discourse's automatic group. */
  groups: Record<string, string[]>;
  categories: DCategory[];
  topics: DTopic[];
}

export interface FakeDiscourse {
  readonly url: string;
  readonly apiKey: string;
  readonly username: string;
  readonly data: DiscourseData;
  readonly fake: VendorFake;
  /** Whether 429 answers carry `Retry-After` (default true); without it only the body's `extras.wait_seconds` says how long. */
  retryAfterHeader: boolean;
  /** The key is refused on topic reads only (revoked after the lists were read): Discourse's 403 `invalid_access`. */
  revokeForTopics: boolean;
  topic(id: number): DTopic;
  /** A new topic (and its first post), bumped now. */
  addTopic(categoryId: number, title: string, text: string): DTopic;
  /** A reply: a new post id, the topic bumped now. */
  reply(topicId: number, username: string, text: string): DPost;
  close(): Promise<void>;
}

const at = (minutes: number) => new Date(Date.UTC(2025, 2, 3, 9, 0, 0) + minutes * 60_000).toISOString();

export function seedDiscourse(): DiscourseData {
  const post = (id: number, username: string, name: string, cooked: string, minutes: number, extra: Partial<DPost> = {}): DPost => ({
    id,
    username,
    name,
    cooked,
    created_at: at(minutes),
    updated_at: at(minutes),
    ...extra,
  });
  const replies = Array.from({ length: 23 }, (_, i) => post(110 + i, i % 2 ? 'grace' : 'linus', i % 2 ? 'Grace Hopper' : 'Linus', `<p>Reply number ${i + 1}: it works for me too.</p>`, 40 + i));
  return {
    users: [
      { id: -1, username: 'system', name: 'system', admin: true },
      { id: 1, username: 'ada', name: 'Ada Lovelace', admin: true, email: 'Ada@acme.test' },
      { id: 2, username: 'grace', name: 'Grace Hopper', admin: false, email: 'grace@acme.test' },
      { id: 3, username: 'linus', name: 'Linus', admin: false, email: 'linus@acme.test' },
    ],
    groups: { admins: ['system', 'ada'], staff: ['ada', 'grace'] },
    categories: [
      { id: 1, name: 'Uncategorized', slug: 'uncategorized', description_text: '', read_restricted: false, group_permissions: [{ group_name: 'everyone', group_id: 0, permission_type: 1 }] },
      { id: 5, name: 'Support', slug: 'support', description_text: 'Ask the community for help.', read_restricted: false, group_permissions: [{ group_name: 'everyone', group_id: 0, permission_type: 1 }] },
      { id: 6, name: 'Billing', slug: 'billing', description_text: 'Invoices and payments.', read_restricted: false, parent_category_id: 5, group_permissions: [{ group_name: 'everyone', group_id: 0, permission_type: 1 }] },
      { id: 9, name: 'Staff', slug: 'staff', description_text: 'Private staff discussion.', read_restricted: true, group_permissions: [{ group_name: 'staff', group_id: 3, permission_type: 1 }] },
    ],
    topics: [
      {
        id: 11,
        title: 'Welcome to the forum',
        slug: 'welcome-to-the-forum',
        category_id: 1,
        created_at: at(0),
        bumped_at: at(1),
        tags: [],
        pinned: true,
        posts: [post(101, 'system', 'system', '<p>Welcome! Read the <a href="/faq">FAQ</a> first.</p>', 0), post(102, 'system', 'system', '', 1, { post_type: 3, cooked: '' })],
      },
      {
        id: 12,
        title: 'Cannot log in after upgrade',
        slug: 'cannot-log-in-after-upgrade',
        category_id: 5,
        created_at: at(10),
        bumped_at: at(62),
        tags: ['login', 'upgrade'],
        posts: [
          post(103, 'grace', 'Grace Hopper', '<p>After upgrading to <strong>3.2</strong> the login page loops.</p>\n<pre><code>redirect loop detected</code></pre>', 10),
          post(104, 'ada', 'Ada Lovelace', '<p>Clear the <code>_forum_session</code> cookie and try again.</p>', 20),
          post(105, 'ada', 'Ada Lovelace', '<p>Staff-only whisper: this is bug #4411.</p>', 21, { post_type: 4 }),
          ...replies,
        ],
      },
      {
        id: 13,
        title: 'Duplicate invoice in March',
        slug: 'duplicate-invoice-in-march',
        category_id: 6,
        created_at: at(70),
        bumped_at: at(71),
        tags: ['invoices'],
        posts: [post(140, 'linus', 'Linus', '<p>I was charged twice for March.</p>', 70), post(141, 'ada', 'Ada Lovelace', '<p>Refunded, sorry about that.</p>', 71)],
      },
      {
        id: 14,
        title: 'Q3 hiring plan',
        slug: 'q3-hiring-plan',
        category_id: 9,
        created_at: at(80),
        bumped_at: at(80),
        tags: [],
        posts: [post(150, 'ada', 'Ada Lovelace', '<p>We hire two support engineers in Q3.</p>', 80)],
      },
      {
        id: 15,
        title: 'A private message',
        slug: 'a-private-message',
        category_id: 1,
        created_at: at(85),
        bumped_at: at(85),
        tags: [],
        archetype: 'private_message',
        posts: [post(160, 'grace', 'Grace Hopper', '<p>Just between us.</p>', 85)],
      },
    ],
  };
}

const SITE = 'https://forum.acme.test';

export async function startFakeDiscourse(data: DiscourseData = seedDiscourse(), opts: { perPage?: number; chunk?: number; postsPerPage?: number } = {}): Promise<FakeDiscourse> {
  const apiKey = '714552c6148e1617aeab526d0606184b94a80ec048fc09894ff1a72b740c5f19';
  const username = 'system';
  const perPage = opts.perPage ?? 30;
  const state = { retryAfterHeader: true, revokeForTopics: false };
  const chunk = opts.chunk ?? 20;
  const invalidAccess: FakeReply = {
    status: 403,
    json: { errors: ['You are not permitted to view the requested resource. The API username or key is invalid.'], error_type: 'invalid_access' },
  };
  const fake = new VendorFake({
    name: 'Discourse',
    tokens: [apiKey],
    // The fake checks the key; the username must name a user too (Discourse refuses a key with an unknown user).
    tokenOf: ({ headers }) => {
      const key = typeof headers['api-key'] === 'string' ? headers['api-key'] : null;
      const user = headers['api-username'];
      return key && typeof user === 'string' && data.users.some((u) => u.username === user) ? key : null;
    },
    unauthorized: () => invalidAccess,
    rateLimited: (s) => ({
      status: 429,
      ...(state.retryAfterHeader ? {} : { headers: { 'retry-after': '' } }),
      json: { errors: [`You’ve performed this action too many times. Please wait ${s} seconds before trying again.`], error_type: 'rate_limit', extras: { wait_seconds: s, time_left: `${s} seconds` } },
    }),
    serverError: (status) => ({ status, body: '<html><body><h1>Oops</h1><p>The software powering this discussion forum encountered an unexpected problem.</p></body></html>' }),
  });
  let last = Date.now();
  const tick = () => {
    last = Math.max(Date.now(), last + 1000);
    return new Date(last).toISOString();
  };
  const notFound: FakeReply = { status: 404, json: { errors: ['The requested URL or resource could not be found.'], error_type: 'not_found' } };
  const isAdmin = (req: FakeRequest) => data.users.find((u) => u.username === req.headers['api-username'])?.admin ?? false;
  const visible = (t: DTopic) => !t.deleted_at && t.archetype !== 'private_message';
  const categoryJson = (c: DCategory) => ({
    id: c.id,
    name: c.name,
    color: '0088CC',
    text_color: 'FFFFFF',
    slug: c.slug,
    topic_count: data.topics.filter((t) => t.category_id === c.id && visible(t)).length,
    post_count: 0,
    position: c.id,
    description: c.description_text ? `<p>${c.description_text}</p>` : null,
    description_text: c.description_text || null,
    description_excerpt: c.description_text || null,
    topic_url: `/t/about-the-${c.slug}-category/${c.id * 100}`,
    read_restricted: c.read_restricted,
    permission: 1,
    notification_level: 1,
    has_children: data.categories.some((x) => x.parent_category_id === c.id),
    subcategory_ids: data.categories.filter((x) => x.parent_category_id === c.id).map((x) => x.id),
    ...(c.parent_category_id ? { parent_category_id: c.parent_category_id } : {}),
  });
  const listed = (t: DTopic) => ({
    id: t.id,
    title: t.title,
    fancy_title: t.title,
    slug: t.slug,
    posts_count: t.posts.length,
    reply_count: Math.max(0, t.posts.length - 1),
    highest_post_number: t.posts.length,
    created_at: t.created_at,
    last_posted_at: t.posts.at(-1)?.created_at ?? t.created_at,
    bumped: true,
    bumped_at: t.bumped_at,
    archetype: t.archetype ?? 'regular',
    pinned: t.pinned ?? false,
    visible: true,
    closed: false,
    archived: false,
    category_id: t.category_id,
    tags: t.tags,
    posters: [],
  });
  const postJson = (t: DTopic, p: DPost, i: number) => ({
    id: p.id,
    name: p.name,
    username: p.username,
    avatar_template: `/user_avatar/forum.acme.test/${p.username}/{size}/1_2.png`,
    created_at: p.created_at,
    cooked: p.cooked,
    post_number: i + 1,
    post_type: p.post_type ?? 1,
    updated_at: p.updated_at,
    topic_id: t.id,
    topic_slug: t.slug,
    user_id: data.users.find((u) => u.username === p.username)?.id ?? 0,
    hidden: false,
    deleted_at: null,
    wiki: false,
  });
  // Discourse's lists: newest bump first, pinned topics on top; `page` from 0.
  const topicListReply = (req: FakeRequest, topics: DTopic[], more: (page: number) => string): FakeReply => {
    const sorted = [...topics].sort((a, b) => Number(Boolean(b.pinned)) - Number(Boolean(a.pinned)) || b.bumped_at.localeCompare(a.bumped_at));
    const page = Number(req.query.get('page') ?? 0);
    const items = sorted.slice(page * perPage, (page + 1) * perPage);
    const hasMore = (page + 1) * perPage < sorted.length;
    const users = data.users.map((u) => ({ id: u.id, username: u.username, name: u.name, avatar_template: '' }));
    return { json: { users, primary_groups: [], topic_list: { can_create_topic: true, per_page: perPage, topics: items.map(listed), ...(hasMore ? { more_topics_url: more(page + 1) } : {}) } } };
  };
  const readable = (req: FakeRequest, t: DTopic) => {
    const c = data.categories.find((x) => x.id === t.category_id);
    return !c?.read_restricted || isAdmin(req);
  };
  const stripJson = (s: string | undefined) => (s ?? '').replace(/\.json$/, '');

  fake.route('GET', '/u/:file', (req) => {
    const u = data.users.find((x) => x.username === stripJson(req.params.file));
    if (!u) return notFound;
    return { json: { user_badges: [], user: { id: u.id, username: u.username, name: u.name, admin: u.admin, moderator: false, trust_level: 4 } } };
  });
  fake.route('GET', '/categories.json', (req) => {
    const sub = req.query.get('include_subcategories') === 'true';
    const top = data.categories.filter((c) => !c.parent_category_id && (!c.read_restricted || isAdmin(req)));
    const categories = top.map((c) => ({
      ...categoryJson(c),
      ...(sub ? { subcategory_list: data.categories.filter((x) => x.parent_category_id === c.id).map(categoryJson) } : {}),
    }));
    return { json: { category_list: { can_create_category: true, can_create_topic: true, categories } } };
  });
  const categoryList: (req: FakeRequest) => FakeReply = (req) => {
    // `/c/{id}/show.json`: one category with its group_permissions (what the category settings' Security tab shows).
    if (req.params.file === 'show.json') {
      const c = data.categories.find((x) => x.id === Number(req.params.slug));
      if (!c || (c.read_restricted && !isAdmin(req))) return notFound;
      return { json: { category: { ...categoryJson(c), group_permissions: c.group_permissions.map((g) => ({ permission_type: g.permission_type, permission: g.permission_type, group_name: g.group_name, group_id: g.group_id })) } } };
    }
    const id = Number(stripJson(req.params.file));
    const c = data.categories.find((x) => x.id === id && x.slug === req.params.slug);
    if (!c || (c.read_restricted && !isAdmin(req))) return notFound;
    // A parent's list holds its subcategories' topics too, as Discourse's does.
    const ids = new Set([c.id, ...data.categories.filter((x) => x.parent_category_id === c.id).map((x) => x.id)]);
    return topicListReply(req, data.topics.filter((t) => ids.has(t.category_id) && visible(t)), (page) => `/c/${c.slug}/${c.id}?page=${page}`);
  };
  fake.route('GET', '/c/:slug/:file', categoryList);
  // groups#members: `limit` / `offset`, members and owners, `meta.total`.
  fake.route('GET', '/groups/:name/members.json', (req) => {
    const names = data.groups[req.params.name ?? ''];
    if (!names) return notFound;
    const limit = Math.min(Number(req.query.get('limit') ?? 50), 1000);
    const offset = Number(req.query.get('offset') ?? 0);
    const all = names.map((n) => data.users.find((u) => u.username === n)!).map((u) => ({ id: u.id, username: u.username, name: u.name, avatar_template: '', title: null, added_at: at(0) }));
    return { json: { members: all.slice(offset, offset + limit), owners: [], meta: { total: all.length, limit, offset } } };
  });
  // admin/users#index: `show_emails=true` (admins only), 100 a page from page 1.
  fake.route('GET', '/admin/users/list/:file', (req) => {
    if (!isAdmin(req)) return { status: 403, json: { errors: ['You are not permitted to view the requested resource.'], error_type: 'invalid_access' } };
    const page = Number(req.query.get('page') ?? 1);
    const emails = req.query.get('show_emails') === 'true';
    const list = data.users.filter((u) => u.id > 0).slice((page - 1) * 100, page * 100);
    return { json: list.map((u) => ({ id: u.id, username: u.username, name: u.name, admin: u.admin, active: true, ...(emails ? { email: u.email ?? null } : {}) })) };
  });
  const latest: (req: FakeRequest) => FakeReply = (req) =>
    topicListReply(
      req,
      data.topics.filter((t) => visible(t) && readable(req, t)),
      (page) => `/latest?${req.query.get('order') ? `order=${req.query.get('order')}&` : ''}page=${page}`,
    );
  fake.route('GET', '/latest.json', latest);
  fake.route('GET', '/latest', (req) => (String(req.headers.accept).includes('application/json') ? latest(req) : { status: 200, body: '<html>latest</html>' }));
  fake.route('GET', '/t/:file', (req) => {
    if (state.revokeForTopics) return invalidAccess;
    const t = data.topics.find((x) => x.id === Number(stripJson(req.params.file)));
    // Deleted topics are 404 for everyone but staff, who see them with `deleted_at`.
    if (!t || !readable(req, t) || (t.deleted_at && !isAdmin(req))) return notFound;
    const posts = t.posts.map((p, i) => postJson(t, p, i));
    const creator = data.users.find((u) => u.username === t.posts[0]?.username);
    return {
      json: {
        post_stream: { posts: posts.slice(0, chunk), stream: posts.map((p) => p.id) },
        timeline_lookup: [],
        suggested_topics: [],
        tags: t.tags,
        id: t.id,
        title: t.title,
        fancy_title: t.title,
        posts_count: posts.length,
        created_at: t.created_at,
        last_posted_at: t.posts.at(-1)?.created_at ?? null,
        bumped_at: t.bumped_at,
        archetype: t.archetype ?? 'regular',
        slug: t.slug,
        category_id: t.category_id,
        deleted_at: t.deleted_at ?? null,
        closed: false,
        archived: false,
        chunk_size: chunk,
        details: creator ? { created_by: { id: creator.id, username: creator.username, name: creator.name, avatar_template: '' } } : {},
      },
    };
  });
  fake.route('GET', '/t/:id/posts.json', (req) => {
    const t = data.topics.find((x) => x.id === Number(req.params.id));
    if (!t || !readable(req, t) || t.deleted_at) return notFound;
    const ids = new Set(req.query.getAll('post_ids[]').map(Number));
    return { json: { id: t.id, post_stream: { posts: t.posts.map((p, i) => postJson(t, p, i)).filter((p) => ids.has(p.id)) } } };
  });
  fake.route('GET', '/posts.json', (req) => {
    const before = req.query.get('before') ? Number(req.query.get('before')) : Number.POSITIVE_INFINITY;
    const all = data.topics
      .filter((t) => visible(t) && readable(req, t))
      .flatMap((t) => t.posts.map((p, i) => ({ ...postJson(t, p, i), category_id: t.category_id, topic_title: t.title, post_url: `/t/${t.slug}/${t.id}/${i + 1}` })))
      .filter((p) => p.id < before)
      .sort((a, b) => b.id - a.id);
    return { json: { latest_posts: all.slice(0, opts.postsPerPage ?? 50) } };
  });
  await fake.start();

  let nextTopic = 100;
  const nextPost = () => Math.max(0, ...data.topics.flatMap((t) => t.posts.map((p) => p.id))) + 1;
  const topic = (id: number) => {
    const t = data.topics.find((x) => x.id === id);
    if (!t) throw new Error(`no topic ${id}`);
    return t;
  };
  return {
    get url() {
      return fake.url;
    },
    apiKey,
    username,
    data,
    fake,
    get retryAfterHeader() {
      return state.retryAfterHeader;
    },
    set retryAfterHeader(v: boolean) {
      state.retryAfterHeader = v;
    },
    get revokeForTopics() {
      return state.revokeForTopics;
    },
    set revokeForTopics(v: boolean) {
      state.revokeForTopics = v;
    },
    topic,
    addTopic(categoryId, title, text) {
      const now = tick();
      const t: DTopic = {
        id: ++nextTopic,
        title,
        slug: title.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
        category_id: categoryId,
        created_at: now,
        bumped_at: now,
        tags: [],
        posts: [{ id: nextPost(), username: 'grace', name: 'Grace Hopper', cooked: `<p>${text}</p>`, created_at: now, updated_at: now }],
      };
      data.topics.push(t);
      return t;
    },
    reply(topicId, user, text) {
      const t = topic(topicId);
      const now = tick();
      const p: DPost = { id: nextPost(), username: user, name: data.users.find((u) => u.username === user)?.name ?? user, cooked: `<p>${text}</p>`, created_at: now, updated_at: now };
      t.posts.push(p);
      t.bumped_at = now;
      return p;
    },
    close: () => fake.close(),
  };
}

export { SITE as DISCOURSE_SITE };
