import { type FakeReply, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local Mattermost fake speaking the API v4 wire format (api.mattermost.com / developers.mattermost.com/api-documentation):
 * `GET /api/v4/users/me`, `GET /api/v4/users` (`page`, `per_page`), `GET /api/v4/users/me/teams`,
 * `GET /api/v4/teams/{id}/channels` (public channels, paged), `GET /api/v4/users/me/teams/{id}/channels` (the
 * account's channels, private ones included), `GET /api/v4/channels/{id}/members` (paged) and
 * `GET /api/v4/channels/{id}/posts` (`page`/`per_page`, newest first; or `since` = ms: every post created, edited or
 * deleted after it, deleted ones with `delete_at` and an empty message, newest created first, at most 1000), as
 * `{order, posts, next_post_id, prev_post_id, has_next}` whose `posts` also holds the roots of listed replies; and the
 * server's OAuth 2.0 token endpoint `POST /oauth/access_token`. Tokens arrive as Bearer; errors are Mattermost's
 * `{id, message, status_code}` AppError bodies; a 429 is the rate limiter's text answer with `X-Ratelimit-*` and
 * `Retry-After`.
 */
export interface MUser {
  id: string;
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  nickname: string;
  is_bot?: boolean;
}
export interface MChannel {
  id: string;
  team_id: string;
  type: 'O' | 'P';
  name: string;
  display_name: string;
  delete_at: number;
  members: string[];
}
export interface MPost {
  id: string;
  channel_id: string;
  user_id: string;
  root_id: string;
  message: string;
  type: string;
  create_at: number;
  update_at: number;
  edit_at: number;
  delete_at: number;
  props?: Record<string, unknown>;
  files?: string[];
}
export interface MattermostData {
  me: string;
  users: MUser[];
  teams: { id: string; name: string; display_name: string }[];
  channels: MChannel[];
  posts: MPost[];
}

export interface FakeMattermost {
  readonly url: string;
  readonly token: string;
  readonly data: MattermostData;
  readonly fake: VendorFake;
  /** A time (ms) later than every earlier one. */
  tick(): number;
  post(channelId: string, userId: string, message: string, extra?: Partial<MPost>): MPost;
  edit(postId: string, message: string): void;
  remove(postId: string): void;
  close(): Promise<void>;
}

const BASE = Date.UTC(2026, 4, 4, 9, 0, 0);
let seq = 0;
/** Mattermost ids: 26 lowercase base32 characters. */
const mmId = (prefix: string) => `${prefix}${String(++seq).padStart(4, '0')}`.padEnd(26, 'x');

export function seedMattermost(): MattermostData {
  let at = BASE;
  const next = () => (at += 60_000);
  const user = (username: string, first: string, last: string, extra: Partial<MUser> = {}): MUser => ({ id: mmId('u'), username, email: `${username}@acme.test`, first_name: first, last_name: last, nickname: '', ...extra });
  const reader = user('atrium-reader', '', '', { is_bot: true, email: 'atrium-reader@localhost' });
  const alice = user('alice', 'Alice', 'Liddell', { email: 'Alice@Acme.TEST' });
  const bob = user('bob', '', '', { nickname: 'Bobby' });
  const carol = user('carol', 'Carol', 'Danvers');
  const acme = { id: mmId('t'), name: 'acme', display_name: 'Acme' };
  const other = { id: mmId('t'), name: 'other-team', display_name: 'Other team' };
  const channel = (team: string, type: 'O' | 'P', name: string, display: string, members: string[], deleteAt = 0): MChannel => ({ id: mmId('c'), team_id: team, type, name, display_name: display, delete_at: deleteAt, members });
  const square = channel(acme.id, 'O', 'town-square', 'Town Square', [reader.id, alice.id, bob.id, carol.id]);
  const dev = channel(acme.id, 'O', 'dev', 'Developers', [alice.id, carol.id]);
  const secret = channel(acme.id, 'P', 'secret-plans', 'Secret Plans', [reader.id, alice.id]);
  const hidden = channel(acme.id, 'P', 'hr', 'HR', [carol.id]);
  const archived = channel(acme.id, 'O', 'old-stuff', 'Old stuff', [reader.id], BASE);
  const random = channel(other.id, 'O', 'random', 'Random', [reader.id, bob.id]);
  const posts: MPost[] = [];
  const post = (c: MChannel, u: MUser, message: string, extra: Partial<MPost> = {}): MPost => {
    const t = next();
    const p: MPost = { id: mmId('p'), channel_id: c.id, user_id: u.id, root_id: '', message, type: '', create_at: t, update_at: t, edit_at: 0, delete_at: 0, ...extra };
    posts.push(p);
    return p;
  };
  const welcome = post(square, alice, 'Welcome to **Acme**! Release notes go to ~dev, questions here.');
  post(square, bob, 'bob joined the channel.', { type: 'system_join_channel' });
  post(square, bob, 'Where do I find the VPN setup guide?', { root_id: welcome.id });
  post(square, reader, '', { props: { override_username: 'ci-bot', attachments: [{ pretext: 'Build #42', title: 'main passed', text: 'All 1,204 tests green.' }] } });
  post(dev, carol, 'Postgres 16 upgrade plan attached.', { files: ['upgrade-plan.pdf'] });
  post(secret, alice, 'Acquisition talks with Globex start Monday.');
  post(hidden, carol, 'Compensation bands 2026.');
  post(archived, alice, 'Ancient history.');
  post(random, bob, 'Lunch on Friday?');
  return { me: reader.id, users: [reader, alice, bob, carol], teams: [acme, other], channels: [square, dev, secret, hidden, archived, random], posts };
}

export async function startFakeMattermost(data = seedMattermost()): Promise<FakeMattermost> {
  const token = 'xjq8d3c5a7fdp8e3u6ydxw1yrw';
  let clock = Math.max(BASE, ...data.posts.map((p) => p.update_at));
  const tick = () => (clock += 60_000);
  const appError = (status: number, id: string, message: string): FakeReply => ({ status, json: { id, message, detailed_error: '', request_id: 'rq1', status_code: status } });
  const fake = new VendorFake({
    name: 'Mattermost',
    tokens: [token],
    publicPath: (p) => p === '/oauth/access_token',
    unauthorized: () => appError(401, 'api.context.session_expired.app_error', 'Invalid or expired session, please login again.'),
    rateLimited: (s) => ({ status: 429, headers: { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(s), 'content-type': 'text/plain; charset=utf-8' }, body: 'limit exceeded\n' }),
    serverError: (status) => ({ json: appError(status, 'app.post.get_posts.app_error', 'Unable to get the posts.').json }),
  });
  const ok = (json: unknown): FakeReply => ({ json, headers: { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': '1' } });
  const paged = <T>(items: T[], q: URLSearchParams): T[] => {
    const perPage = Math.min(Number(q.get('per_page') ?? 60), 200);
    const page = Number(q.get('page') ?? 0);
    return items.slice(page * perPage, (page + 1) * perPage);
  };
  const userJson = (u: MUser) => ({ ...u, delete_at: 0, roles: 'system_user', locale: 'en', create_at: BASE, update_at: BASE });
  const channelJson = ({ members: _m, ...c }: MChannel) => ({ ...c, create_at: BASE, update_at: BASE, header: '', purpose: '', last_post_at: Math.max(0, ...data.posts.filter((p) => p.channel_id === c.id).map((p) => p.create_at)), total_msg_count: data.posts.filter((p) => p.channel_id === c.id).length, creator_id: '' });
  const postJson = ({ files, props, ...p }: MPost) => ({
    ...p,
    is_pinned: false,
    original_id: '',
    hashtags: '',
    pending_post_id: '',
    reply_count: data.posts.filter((x) => x.root_id === p.id && x.delete_at === 0).length,
    props: props ?? {},
    metadata: files ? { files: files.map((name, i) => ({ id: `f${i}`, name, extension: name.split('.').pop(), size: 1000 })) } : {},
  });
  const channelOf = (id: string | undefined) => data.channels.find((c) => c.id === id);
  const memberOf = (c: MChannel) => c.members.includes(data.me);

  fake.route('GET', '/api/v4/users/me', () => {
    const u = data.users.find((x) => x.id === data.me);
    return u ? ok(userJson(u)) : appError(404, 'app.user.missing_account.const', 'Unable to find the user.');
  });
  fake.route('GET', '/api/v4/users', (req) => ok(paged(data.users, req.query).map(userJson)));
  fake.route('GET', '/api/v4/users/me/teams', () => ok(data.teams.map((t) => ({ ...t, type: 'O', delete_at: 0 }))));
  fake.route('GET', '/api/v4/teams/:id/channels', (req) => ok(paged(data.channels.filter((c) => c.team_id === req.params.id && c.type === 'O' && c.delete_at === 0), req.query).map(channelJson)));
  fake.route('GET', '/api/v4/users/me/teams/:id/channels', (req) => ok(data.channels.filter((c) => c.team_id === req.params.id && memberOf(c)).map(channelJson)));
  fake.route('GET', '/api/v4/channels/:id/members', (req) => {
    const c = channelOf(req.params.id);
    if (!c || (c.type === 'P' && !memberOf(c))) return appError(403, 'api.context.permissions.app_error', 'You do not have the appropriate permissions.');
    return ok(paged(c.members, req.query).map((user_id) => ({ channel_id: c.id, user_id, roles: 'channel_user', msg_count: 0, mention_count: 0 })));
  });
  fake.route('GET', '/api/v4/channels/:id/posts', (req) => {
    const c = channelOf(req.params.id);
    if (!c) return appError(404, 'app.channel.get.existing.app_error', 'Unable to find the existing channel.');
    if (c.type === 'P' && !memberOf(c)) return appError(403, 'api.context.permissions.app_error', 'You do not have the appropriate permissions.');
    const since = req.query.get('since');
    if (since && (req.query.has('page') || req.query.has('per_page'))) return appError(400, 'api.context.invalid_url_param.app_error', 'since must not be used with page or per_page.');
    const all = data.posts.filter((p) => p.channel_id === c.id).sort((a, b) => b.create_at - a.create_at);
    const list = since
      ? all.filter((p) => Math.max(p.update_at, p.edit_at, p.delete_at) > Number(since)).slice(0, 1000)
      : paged(
          all.filter((p) => p.delete_at === 0),
          req.query,
        );
    const posts: Record<string, unknown> = {};
    for (const p of list) {
      posts[p.id] = postJson(p.delete_at ? { ...p, message: '' } : p);
      const root = p.root_id ? data.posts.find((x) => x.id === p.root_id) : undefined;
      if (root && !posts[root.id]) posts[root.id] = postJson(root);
    }
    return ok({ order: list.map((p) => p.id), posts, next_post_id: '', prev_post_id: '', has_next: false });
  });
  let issued = 0;
  fake.route(
    'POST',
    '/oauth/access_token',
    oauthTokenEndpoint(fake, { code: 'mattermost-code', issue: () => ({ access_token: `mm-oauth-${++issued}`, refresh_token: `mm-refresh-${issued}`, expires_in: 3600 }) }),
  );

  await fake.start();
  return {
    url: fake.url,
    token,
    data,
    fake,
    tick,
    post(channelId, userId, message, extra = {}) {
      const t = tick();
      const p: MPost = { id: mmId('p'), channel_id: channelId, user_id: userId, root_id: '', message, type: '', create_at: t, update_at: t, edit_at: 0, delete_at: 0, ...extra };
      data.posts.push(p);
      return p;
    },
    edit(postId, message) {
      const p = data.posts.find((x) => x.id === postId);
      if (!p) throw new Error(postId);
      const t = tick();
      Object.assign(p, { message, edit_at: t, update_at: t });
    },
    remove(postId) {
      const t = tick();
      // Deleting a root deletes its thread (Mattermost marks the replies too).
      for (const p of data.posts.filter((x) => x.id === postId || x.root_id === postId)) Object.assign(p, { delete_at: t, update_at: t });
    },
    close: () => fake.close(),
  };
}
