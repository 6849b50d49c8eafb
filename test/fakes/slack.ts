import fs from 'node:fs/promises';
import JSZip from 'jszip';
import { bearerToken, VendorFake } from './kit/index.ts';

/**
 * A local Slack Web API fake (api.slack.com/web): `POST /api/<method>` with form or JSON bodies, bearer
 * token auth, `{ok:false,error:"invalid_auth"}` on HTTP 200, cursor pagination through
 * `response_metadata.next_cursor`, and HTTP 429 with `Retry-After` for rate limits. Seeded from the real
 * Slack export in /work/shared/data/slack-export (channels.json, users.json, per-day message files).
 */
export interface FakeSlackMessage {
  ts: string;
  user?: string;
  text: string;
  subtype?: string;
  thread_ts?: string;
  edited?: { user: string; ts: string };
  /** Integration (bot) messages: the posting name, the bot, and legacy attachments. */
  username?: string;
  bot_id?: string;
  attachments?: { fallback?: string; pretext?: string; title?: string; text?: string }[];
}
export interface FakeSlackChannel {
  id: string;
  name: string;
  is_private: boolean;
  messages: FakeSlackMessage[];
  /** Member user ids (conversations.members); absent = every seeded user. Mutable: tests remove members between syncs. */
  members?: string[];
}
export interface FakeSlack {
  readonly url: string;
  readonly token: string;
  readonly channels: FakeSlackChannel[];
  readonly users: { id: string; name: string; real_name: string; email?: string }[];
  readonly calls: { method: string; args: Record<string, string> }[];
  readonly posted: { channel: string; text: string }[];
  rateLimitNext(count: number, retryAfterSeconds: number): void;
  /** The next `count` answers are held back `ms` milliseconds (a slow or distant Slack). */
  slowNext(count: number, ms: number): void;
  close(): Promise<void>;
}

export const SLACK_EXPORT = '/work/shared/data/slack-export/testarchive.zip';

export async function loadSlackExport(file = SLACK_EXPORT): Promise<{ channels: FakeSlackChannel[]; users: FakeSlack['users'] }> {
  const zip = await JSZip.loadAsync(await fs.readFile(file));
  const read = async <T>(name: string): Promise<T> => JSON.parse((await zip.file(name)?.async('string')) ?? 'null') as T;
  const rawChannels = await read<{ id: string; name: string }[]>('channels.json');
  const rawUsers = await read<{ id: string; name: string; real_name?: string; profile?: { real_name?: string } }[]>('users.json');
  const channels: FakeSlackChannel[] = [];
  for (const c of rawChannels) {
    const messages: FakeSlackMessage[] = [];
    for (const day of Object.keys(zip.files).filter((f) => f.startsWith(`${c.name}/`) && f.endsWith('.json')).sort()) {
      for (const m of await read<(FakeSlackMessage & { text?: string })[]>(day)) {
        messages.push({
          ts: m.ts,
          user: m.user,
          text: m.text ?? '',
          subtype: m.subtype,
          thread_ts: m.thread_ts,
          ...(m.username ? { username: m.username } : {}),
          ...(m.bot_id ? { bot_id: m.bot_id } : {}),
          ...(m.attachments ? { attachments: m.attachments } : {}),
        });
      }
    }
    channels.push({ id: c.id, name: c.name, is_private: false, messages: messages.sort((a, b) => Number(a.ts) - Number(b.ts)) });
  }
  return { channels, users: rawUsers.map((u) => ({ id: u.id, name: u.name, real_name: u.profile?.real_name || u.real_name || u.name })) };
}

export async function startFakeSlack(seed: { channels: FakeSlackChannel[]; users: FakeSlack['users'] }, opts: { pageSize?: number } = {}): Promise<FakeSlack> {
  const token = 'xoxb-fake-0123456789';
  const pageSize = opts.pageSize ?? 20;
  const calls: FakeSlack['calls'] = [];
  const posted: FakeSlack['posted'] = [];
  /** `oldest` / `latest` bounds, exclusive unless `inclusive` (Slack's conversations.history / replies semantics). */
  const inBounds = (m: FakeSlackMessage, args: Record<string, string>) => {
    const inclusive = args.inclusive === 'true' || args.inclusive === '1';
    const ts = Number(m.ts);
    if (args.oldest && (inclusive ? ts < Number(args.oldest) : ts <= Number(args.oldest))) return false;
    if (args.latest && (inclusive ? ts > Number(args.latest) : ts >= Number(args.latest))) return false;
    return true;
  };

  function page<T>(items: T[], args: Record<string, string>) {
    const limit = Math.min(Number(args.limit ?? pageSize), pageSize);
    const start = args.cursor ? Number(Buffer.from(args.cursor, 'base64').toString().replace('next:', '')) : 0;
    const slice = items.slice(start, start + limit);
    const end = start + slice.length;
    return { slice, meta: { response_metadata: { next_cursor: end < items.length ? Buffer.from(`next:${end}`).toString('base64') : '' } } };
  }

  const methods: Record<string, (args: Record<string, string>) => Record<string, unknown>> = {
    'auth.test': () => ({ url: 'https://atrium-test.slack.com/', team: 'Atrium Test', user: 'atrium-bot', team_id: 'T0BMHLSRH', user_id: 'UBOT' }),
    'users.list': (args) => {
      const p = page(seed.users.map((u) => ({ id: u.id, name: u.name, real_name: u.real_name, profile: { real_name: u.real_name, ...(u.email ? { email: u.email } : {}) } })), args);
      return { members: p.slice, ...p.meta };
    },
    'conversations.list': (args) => {
      const types = (args.types ?? 'public_channel').split(',');
      const list = seed.channels.filter((c) => types.includes(c.is_private ? 'private_channel' : 'public_channel'));
      const p = page(list.map((c) => ({ id: c.id, name: c.name, is_channel: true, is_private: c.is_private, is_member: true, is_archived: false })), args);
      return { channels: p.slice, ...p.meta };
    },
    'conversations.history': (args) => {
      const c = seed.channels.find((x) => x.id === args.channel);
      if (!c) return { ok: false, error: 'channel_not_found' };
      // Newest first, top-level messages only (replies live in conversations.replies), oldest exclusive.
      const top = c.messages.filter((m) => !m.thread_ts || m.thread_ts === m.ts).filter((m) => inBounds(m, args));
      // A thread's root carries reply_count and latest_reply (the newest reply's ts), as Slack sends them.
      const withCounts = top
        .map((m) => {
          const replies = c.messages.filter((r) => r.thread_ts === m.ts && r.ts !== m.ts);
          const latestReply = replies.reduce((a, r) => (Number(r.ts) > Number(a) ? r.ts : a), '0');
          return { type: 'message', ...m, ...(replies.length ? { reply_count: replies.length, latest_reply: latestReply } : {}) };
        })
        .reverse();
      const p = page(withCounts, args);
      return { messages: p.slice, has_more: p.meta.response_metadata.next_cursor !== '', ...p.meta };
    },
    'conversations.replies': (args) => {
      const c = seed.channels.find((x) => x.id === args.channel);
      if (!c) return { ok: false, error: 'channel_not_found' };
      // The parent first, then replies within the bounds.
      const thread = c.messages.filter((m) => m.ts === args.ts || (m.thread_ts === args.ts && inBounds(m, args))).map((m) => ({ type: 'message', ...m }));
      const p = page(thread, args);
      return { messages: p.slice, has_more: p.meta.response_metadata.next_cursor !== '', ...p.meta };
    },
    'conversations.members': (args) => {
      const c = seed.channels.find((x) => x.id === args.channel);
      if (!c) return { ok: false, error: 'channel_not_found' };
      const p = page(c.members ?? seed.users.map((u) => u.id), args);
      return { members: p.slice, ...p.meta };
    },
    'conversations.info': (args) => {
      const c = seed.channels.find((x) => x.id === args.channel);
      if (!c) return { ok: false, error: 'channel_not_found' };
      return { channel: { id: c.id, name: c.name, is_channel: true, is_private: c.is_private, is_member: true, is_archived: false } };
    },
    'users.info': (args) => {
      const u = seed.users.find((x) => x.id === args.user);
      if (!u) return { ok: false, error: 'user_not_found' };
      return { user: { id: u.id, name: u.name, real_name: u.real_name, profile: { real_name: u.real_name, ...(u.email ? { email: u.email } : {}) } } };
    },
    'chat.postMessage': (args) => {
      const c = seed.channels.find((x) => x.id === args.channel || x.name === args.channel);
      if (!c) return { ok: false, error: 'channel_not_found' };
      const ts = `${Math.floor(Date.now() / 1000)}.${String(posted.length).padStart(6, '0')}`;
      posted.push({ channel: c.id, text: args.text ?? '' });
      return { channel: c.id, ts, message: { type: 'message', text: args.text, ts } };
    },
  };

  // The shared vendor fake: token check, request log, injected 429 / slow answers; Slack's own shapes below.
  const fake = new VendorFake({
    name: 'Slack',
    tokens: [token],
    // Web API clients send the token as a Bearer header, or as a `token` argument in the body.
    tokenOf: ({ headers, body }) => bearerToken({ headers }) ?? ((body as Record<string, string> | undefined)?.token || null),
    // Slack answers a bad token with HTTP 200 and ok:false (api.slack.com/web#responses).
    unauthorized: () => ({ json: { ok: false, error: 'invalid_auth' } }),
    rateLimited: () => ({ status: 429, json: { ok: false, error: 'ratelimited' } }),
  });
  fake.route('POST', '/api/:method', (req) => {
    const args = (typeof req.body === 'object' && req.body ? req.body : {}) as Record<string, string>;
    calls.push({ method: req.params.method ?? '', args });
    const fn = methods[req.params.method ?? ''];
    if (!fn) return { json: { ok: false, error: 'unknown_method' } };
    return { json: { ok: true, ...fn(args) } };
  });
  await fake.start();
  return {
    url: fake.url,
    token,
    channels: seed.channels,
    users: seed.users,
    calls,
    posted,
    rateLimitNext(count, seconds) {
      fake.rateLimitNext(count, seconds);
    },
    slowNext(count, ms) {
      fake.slowNext(count, ms);
    },
    close: () => fake.close(),
  };
}
