import { type FakeReply, VendorFake } from './kit/index.ts';

/**
 * A local Discord fake speaking the REST API v10 wire format (discord.com/developers/docs): `GET /users/@me`,
 * `GET /users/@me/guilds` (`limit` ≤ 200, `after`), `GET /guilds/{id}/channels` (channel objects with
 * `permission_overwrites` and `last_message_id`), `GET /guilds/{id}/threads/active` (`{threads, members}`),
 * `GET /channels/{id}/threads/archived/public` (`before` ISO timestamp, `limit`; newest archive first; `has_more`) and
 * `GET /channels/{id}/messages` (`after` / `before` snowflakes, `limit` ≤ 100, newest first). The bot token arrives as
 * `Authorization: Bot <token>`; errors are Discord's `{message, code}` bodies; every answer carries the
 * `X-RateLimit-*` bucket headers, and a 429 has `retry_after` (seconds) in its body and `Retry-After`.
 */
export interface DUser {
  id: string;
  username: string;
  global_name: string | null;
  bot?: boolean;
}
export interface DMessage {
  id: string;
  type: number;
  content: string;
  author: DUser;
  timestamp: string;
  edited_timestamp: string | null;
  mentions?: DUser[];
  embeds?: { title?: string; description?: string }[];
  attachments?: { filename: string }[];
  message_reference?: { message_id: string };
}
export interface DChannel {
  id: string;
  guild_id: string;
  name: string;
  /** 0 text, 2 voice, 4 category, 5 announcement, 15 forum. */
  type: number;
  private: boolean;
  messages: DMessage[];
  /** Role (type 0) and member (type 1) overwrites after the @everyone one, as Discord lists them. */
  overwrites?: { id: string; type: 0 | 1; allow: string; deny: string }[];
}
/** A guild member: `roles` are role ids (not @everyone). */
export interface DMember {
  user: DUser;
  roles: string[];
  nick?: string | null;
}
export interface DThread {
  id: string;
  guild_id: string;
  parent_id: string;
  name: string;
  type: 11 | 12;
  archived: boolean;
  archive_timestamp: string;
  messages: DMessage[];
}
export interface DiscordData {
  bot: DUser;
  guilds: { id: string; name: string }[];
  channels: DChannel[];
  threads: DThread[];
  /** Channels the bot has no access to (403 Missing Access). */
  noAccess: Set<string>;
  /** Per guild id: its roles (beside @everyone, whose id is the guild id), owner and members. */
  roles: Record<string, { id: string; name: string; permissions: string }[]>;
  owners: Record<string, string>;
  members: Record<string, DMember[]>;
  /** `GET /guilds/{id}/members` answers 403 Missing Access, as without the Server Members privileged intent. */
  membersIntent: boolean;
}

export interface FakeDiscord {
  readonly url: string;
  readonly token: string;
  readonly data: DiscordData;
  readonly fake: VendorFake;
  /** A new snowflake, later than every earlier one, and its time. */
  snowflake(): { id: string; at: string };
  /** Posts a message in a channel or thread; returns it. */
  post(channelId: string, author: DUser, content: string, extra?: Partial<DMessage>): DMessage;
  close(): Promise<void>;
}

const BASE = Date.UTC(2026, 2, 2, 9, 0, 0);
/** Discord's epoch (2015-01-01): a snowflake's top 42 bits are milliseconds since it. */
const DISCORD_EPOCH = 1_420_070_400_000n;
const VIEW_CHANNEL = 1 << 10;
const SEND_MESSAGES = 1 << 11;

export const ADA: DUser = { id: '80351110224678912', username: 'ada', global_name: 'Ada Lovelace' };
export const GRACE: DUser = { id: '80351110224678913', username: 'grace', global_name: null };
export const LINUS: DUser = { id: '80351110224678914', username: 'linus', global_name: 'Linus' };
export const OWNER: DUser = { id: '80351110224678915', username: 'owner', global_name: 'The Owner' };
/** Role ids of the seeded server: Staff may view #staff (role overwrite); Admins hold ADMINISTRATOR. */
export const STAFF_ROLE = '90351110224678901';
export const ADMIN_ROLE = '90351110224678902';

export function seedDiscord(): { data: DiscordData; snowflake: () => { id: string; at: string } } {
  let at = BASE;
  let seq = 0n;
  const snowflake = () => {
    at += 60_000;
    seq++;
    return { id: String(((BigInt(at) - DISCORD_EPOCH) << 22n) | seq), at: new Date(at).toISOString().replace('Z', '+00:00') };
  };
  const bot: DUser = { id: snowflake().id, username: 'atrium-bot', global_name: null, bot: true };
  const g1 = { id: snowflake().id, name: 'Narwhal Labs' };
  const g2 = { id: snowflake().id, name: 'Other Server' };
  const msg = (author: DUser, content: string, extra: Partial<DMessage> = {}): DMessage => {
    const s = snowflake();
    return { id: s.id, type: 0, content, author, timestamp: s.at, edited_timestamp: null, ...extra };
  };
  const channel = (guild: string, name: string, type: number, priv: boolean, messages: DMessage[] = []): DChannel => ({ id: snowflake().id, guild_id: guild, name, type, private: priv, messages });
  const general = channel(g1.id, 'general', 0, false);
  const releases = channel(g1.id, 'releases', 5, false);
  const staff = channel(g1.id, 'staff', 0, true);
  const help = channel(g1.id, 'help', 15, false);
  const voice = channel(g1.id, 'Lounge', 2, false);
  const category = channel(g1.id, 'Text Channels', 4, false);
  const elsewhere = channel(g2.id, 'random', 0, false);
  general.messages.push(
    msg(ADA, `Welcome! The deploy runbook lives in <#${releases.id}>, ask <@${GRACE.id}> about the staging cluster.`, { mentions: [GRACE] }),
    msg(GRACE, '', { type: 7 }), // member join: housekeeping
    msg(GRACE, 'Staging cluster is back after the certificate rotation.'),
    msg(ADA, 'Thanks! Linking the postmortem.', { embeds: [{ title: 'Postmortem: expired certificate', description: 'The wildcard certificate expired at 02:00 UTC.' }], attachments: [{ filename: 'timeline.pdf' }] }),
  );
  releases.messages.push(msg(ADA, 'Release 4.2 ships on Thursday with the new exporter.'));
  staff.messages.push(msg(ADA, 'Salary review meeting moved to Friday.'));
  elsewhere.messages.push(msg(GRACE, 'Unrelated chatter in another server.'));
  const thread = (parentId: string, name: string, archived: boolean, messages: DMessage[]): DThread => {
    const s = snowflake();
    return { id: s.id, guild_id: g1.id, parent_id: parentId, name, type: 11, archived, archive_timestamp: s.at, messages };
  };
  const threads: DThread[] = [
    thread(general.id, 'Certificate rotation', false, [msg(GRACE, 'Rotated the wildcard certificate on all ingress nodes.')]),
    thread(help.id, 'How do I reset my API key?', true, [msg(GRACE, 'How do I reset my API key?'), msg(ADA, 'Settings → API → Regenerate.')]),
    thread(staff.id, 'Hiring plan', true, [msg(ADA, 'Two backend engineers in Q3.')]),
  ];
  // #staff: @everyone denied View Channel; the Staff role allowed; Linus allowed by a member overwrite.
  staff.overwrites = [
    { id: STAFF_ROLE, type: 0, allow: String(VIEW_CHANNEL), deny: '0' },
    { id: LINUS.id, type: 1, allow: String(VIEW_CHANNEL), deny: '0' },
  ];
  const roles = {
    [g1.id]: [
      { id: g1.id, name: '@everyone', permissions: String(VIEW_CHANNEL | SEND_MESSAGES) },
      { id: STAFF_ROLE, name: 'Staff', permissions: '0' },
      { id: ADMIN_ROLE, name: 'Admins', permissions: String(1 << 3) },
    ],
    [g2.id]: [{ id: g2.id, name: '@everyone', permissions: String(VIEW_CHANNEL | SEND_MESSAGES) }],
  };
  const members = {
    [g1.id]: [
      { user: ADA, roles: [STAFF_ROLE] },
      { user: GRACE, roles: [] },
      { user: LINUS, roles: [] },
      { user: OWNER, roles: [] },
      { user: bot, roles: [] },
    ],
    [g2.id]: [{ user: GRACE, roles: [] }],
  };
  return {
    data: { bot, guilds: [g1, g2], channels: [general, releases, staff, help, voice, category, elsewhere], threads, noAccess: new Set(), roles, owners: { [g1.id]: OWNER.id, [g2.id]: GRACE.id }, members, membersIntent: true },
    snowflake,
  };
}

const err = (status: number, message: string, code: number): FakeReply => ({ status, json: { message, code } });

export async function startFakeDiscord(seed = seedDiscord()): Promise<FakeDiscord> {
  const { data, snowflake } = seed;
  const token = 'MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs';
  const fake = new VendorFake({
    name: 'Discord',
    tokens: [token],
    tokenOf: ({ headers }) => (headers.authorization?.startsWith('Bot ') ? headers.authorization.slice(4) : null),
    unauthorized: () => err(401, '401: Unauthorized', 0),
    rateLimited: (s) => ({
      status: 429,
      headers: { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': String(s), 'x-ratelimit-bucket': 'abcd1234', 'x-ratelimit-scope': 'user' },
      json: { message: 'You are being rate limited.', retry_after: s, global: false },
    }),
    serverError: (status) => ({ json: { message: `${status}: Internal Server Error`, code: 0 } }),
  });
  // Each route's bucket: 5 requests, then Remaining 0 with a short Reset-After (the client waits it out).
  const counts = new Map<string, number>();
  const ok = (path: string, json: unknown): FakeReply => {
    const n = (counts.get(path) ?? 0) + 1;
    counts.set(path, n);
    return { json, headers: { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': String(4 - ((n - 1) % 5)), 'x-ratelimit-reset-after': '0.02', 'x-ratelimit-bucket': 'f00dbeef' } };
  };
  const guildOf = (id: string) => data.guilds.find((g) => g.id === id);
  const cmp = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);
  const lastId = (ms: DMessage[]) => ms.map((m) => m.id).sort(cmp).at(-1) ?? null;
  const channelJson = (c: DChannel) => ({
    id: c.id,
    type: c.type,
    guild_id: c.guild_id,
    name: c.name,
    position: 0,
    parent_id: null,
    nsfw: false,
    // Every channel has an @everyone overwrite in this server: public ones deny only Send Messages.
    permission_overwrites: [{ id: c.guild_id, type: 0, allow: '0', deny: String(c.private ? VIEW_CHANNEL : SEND_MESSAGES) }, ...(c.overwrites ?? [])],
    last_message_id: c.type === 15 ? (data.threads.filter((t) => t.parent_id === c.id).map((t) => t.id).sort(cmp).at(-1) ?? null) : lastId(c.messages),
  });
  const threadJson = (t: DThread) => ({
    id: t.id,
    type: t.type,
    guild_id: t.guild_id,
    parent_id: t.parent_id,
    name: t.name,
    owner_id: ADA.id,
    last_message_id: lastId(t.messages),
    message_count: t.messages.length,
    member_count: 2,
    thread_metadata: { archived: t.archived, auto_archive_duration: 1440, archive_timestamp: t.archive_timestamp, locked: false },
  });
  const messageJson = (channelId: string, m: DMessage) => ({ mentions: [], embeds: [], attachments: [], pinned: false, tts: false, mention_everyone: false, ...m, channel_id: channelId });

  fake.route('GET', '/users/@me', () => ok('/users/@me', { ...data.bot, discriminator: '0', avatar: null, verified: true, flags: 0 }));

  fake.route('GET', '/users/@me/guilds', (req) => {
    const limit = Math.min(Number(req.query.get('limit') ?? 200), 200);
    const after = req.query.get('after');
    const page = [...data.guilds].sort((a, b) => cmp(a.id, b.id)).filter((g) => !after || cmp(g.id, after) > 0).slice(0, limit);
    return ok(req.path, page.map((g) => ({ ...g, icon: null, owner: false, permissions: '68608', features: [] })));
  });

  // resources/guild#get-guild: the guild object with its owner and roles (permissions as strings).
  fake.route('GET', '/guilds/:id', (req) => {
    const g = guildOf(req.params.id ?? '');
    if (!g) return err(404, 'Unknown Guild', 10004);
    return ok(req.path, { ...g, icon: null, owner_id: data.owners[g.id], roles: (data.roles[g.id] ?? []).map((r) => ({ ...r, color: 0, hoist: false, position: 0, managed: false, mentionable: false })), features: [] });
  });

  // resources/guild#list-guild-members: `limit` 1-1000 (default 1), `after` the highest user id of the previous page.
  fake.route('GET', '/guilds/:id/members', (req) => {
    const g = guildOf(req.params.id ?? '');
    if (!g) return err(404, 'Unknown Guild', 10004);
    if (!data.membersIntent) return err(403, 'Missing Access', 50001);
    const limit = Math.min(Math.max(Number(req.query.get('limit') ?? 1), 1), 1000);
    const after = req.query.get('after') ?? '0';
    const page = [...(data.members[g.id] ?? [])].sort((a, b) => cmp(a.user.id, b.user.id)).filter((m) => cmp(m.user.id, after) > 0).slice(0, limit);
    return ok(req.path, page.map((m) => ({ user: m.user, nick: m.nick ?? null, roles: m.roles, joined_at: '2026-01-01T00:00:00+00:00', deaf: false, mute: false, flags: 0 })));
  });

  fake.route('GET', '/guilds/:id/channels', (req) => {
    if (!guildOf(req.params.id ?? '')) return err(404, 'Unknown Guild', 10004);
    return ok(req.path, data.channels.filter((c) => c.guild_id === req.params.id).map(channelJson));
  });

  fake.route('GET', '/guilds/:id/threads/active', (req) => {
    if (!guildOf(req.params.id ?? '')) return err(404, 'Unknown Guild', 10004);
    return ok(req.path, { threads: data.threads.filter((t) => t.guild_id === req.params.id && !t.archived).map(threadJson), members: [] });
  });

  fake.route('GET', '/channels/:id/threads/archived/public', (req) => {
    const c = data.channels.find((x) => x.id === req.params.id);
    if (!c) return err(404, 'Unknown Channel', 10003);
    if (data.noAccess.has(c.id)) return err(403, 'Missing Access', 50001);
    const limit = Math.min(Number(req.query.get('limit') ?? 50), 100);
    const before = req.query.get('before');
    const all = data.threads
      .filter((t) => t.parent_id === c.id && t.archived && t.type === 11 && (!before || t.archive_timestamp < before))
      .sort((a, b) => b.archive_timestamp.localeCompare(a.archive_timestamp));
    return ok(req.path, { threads: all.slice(0, limit).map(threadJson), members: [], has_more: all.length > limit });
  });

  fake.route('GET', '/channels/:id/messages', (req) => {
    const id = req.params.id ?? '';
    const holder = data.channels.find((x) => x.id === id) ?? data.threads.find((x) => x.id === id);
    if (!holder) return err(404, 'Unknown Channel', 10003);
    if (data.noAccess.has(id)) return err(403, 'Missing Access', 50001);
    const limit = Number(req.query.get('limit') ?? 50);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return err(400, 'Invalid Form Body', 50035);
    const after = req.query.get('after');
    const before = req.query.get('before');
    const sorted = [...holder.messages].sort((a, b) => cmp(a.id, b.id));
    // `after`: the `limit` messages right after the id; otherwise the newest before `before`. Newest first either way.
    const page = after ? sorted.filter((m) => cmp(m.id, after) > 0).slice(0, limit) : sorted.filter((m) => !before || cmp(m.id, before) < 0).slice(-limit);
    return ok(req.path, page.reverse().map((m) => messageJson(id, m)));
  });

  await fake.start();
  return {
    url: fake.url,
    token,
    data,
    fake,
    snowflake,
    post(channelId, author, content, extra = {}) {
      const holder = data.channels.find((x) => x.id === channelId) ?? data.threads.find((x) => x.id === channelId);
      if (!holder) throw new Error(`no channel ${channelId}`);
      const s = snowflake();
      const m: DMessage = { id: s.id, type: 0, content, author, timestamp: s.at, edited_timestamp: null, ...extra };
      holder.messages.push(m);
      return m;
    },
    close: () => fake.close(),
  };
}
