import { createHmac } from 'node:crypto';
import type { ChannelRenameEvent, MessageChangedEvent, MessageDeletedEvent } from '@slack/types';
import { constantTimeEqual, type SourceContext, type SourceDocument, type WebhookCapability } from '../kit/index.ts';
import { slackCall } from './client.ts';
import { isContentMessage, messageToDocument, type SlackChannelRef, type SlackMessage } from './map.ts';
import type { SlackCredentials, SlackSettings } from './schemas.ts';
import { displayName, listUsers, type SlackPage, type SlackUser, slackSync } from './sync.ts';

type Ctx = SourceContext<SlackCredentials, SlackSettings>;

/** Slack's documented replay window: refuse requests whose X-Slack-Request-Timestamp is more than 5 minutes off. */
export const SLACK_TOLERANCE_S = 300;
/** Slack retries a delivery it has no 2xx for within 3 s; we answer by 2.5 s and hand the rest to a durable job. */
export const SLACK_ACK_MS = 2_500;

/** `v0=` + hex HMAC-SHA256(signing secret, `v0:{timestamp}:{raw body}`) ("Verifying requests from Slack"). */
export function slackSignature(secret: string, timestamp: string, rawBody: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`;
}

export function verifySlackRequest(input: { signature: string | undefined; timestamp: string | undefined; rawBody: string; secret: string; now: Date }): { ok: true } | { ok: false; reason: string } {
  if (!input.signature) return { ok: false, reason: 'missing X-Slack-Signature header' };
  if (!input.timestamp || !/^\d{1,12}$/.test(input.timestamp)) return { ok: false, reason: 'missing or malformed X-Slack-Request-Timestamp header' };
  if (Math.abs(input.now.getTime() / 1000 - Number(input.timestamp)) > SLACK_TOLERANCE_S) {
    return { ok: false, reason: 'X-Slack-Request-Timestamp is outside the 5 minute window (replayed or delayed request)' };
  }
  if (!constantTimeEqual(slackSignature(input.secret, input.timestamp, input.rawBody), input.signature)) return { ok: false, reason: 'X-Slack-Signature does not match the request' };
  return { ok: true };
}

/**
 * Per-process lookups for mapping events like the sync does (team URL, channel names, user names): an event carries
 * ids only. Ten minutes, so a renamed user shows up soon; a channel rename event drops its entry at once.
 */
const TTL_MS = 10 * 60_000;
interface Lookups {
  teamUrl?: { value: string; at: number };
  channels: Map<string, { value: SlackChannelRef | null; at: number }>;
  users: Map<string, { value: string; at: number }>;
}
const lookups = new Map<string, Lookups>();
function lookupsOf(ctx: Ctx): Lookups {
  const key = `${ctx.tenantId}/${ctx.connectorId}`;
  let l = lookups.get(key);
  if (!l || l.users.size > 50_000) {
    l = { channels: new Map(), users: new Map() };
    lookups.set(key, l);
  }
  return l;
}
const fresh = <T>(e: { value: T; at: number } | undefined): e is { value: T; at: number } => e !== undefined && Date.now() - e.at < TTL_MS;

async function teamUrl(ctx: Ctx): Promise<string> {
  const l = lookupsOf(ctx);
  if (fresh(l.teamUrl)) return l.teamUrl.value;
  const r = await slackCall<{ url: string }>(ctx, 'auth.test', {});
  l.teamUrl = { value: r.url, at: Date.now() };
  return r.url;
}

async function channelRef(ctx: Ctx, id: string): Promise<SlackChannelRef | null> {
  const l = lookupsOf(ctx);
  const hit = l.channels.get(id);
  if (fresh(hit)) return hit.value;
  let value: SlackChannelRef | null = null;
  try {
    const r = await slackCall<{ channel: { id: string; name: string; is_private?: boolean } }>(ctx, 'conversations.info', { channel: id });
    value = { id: r.channel.id, name: r.channel.name, is_private: r.channel.is_private ?? false };
  } catch (err) {
    if ((err as { data?: { error?: string } }).data?.error !== 'channel_not_found') throw err;
  }
  l.channels.set(id, { value, at: Date.now() });
  return value;
}

/** Display names of the author and every `<@U…>` mention (users.info per id not seen lately). */
async function userNames(ctx: Ctx, m: SlackMessage): Promise<Record<string, string>> {
  const l = lookupsOf(ctx);
  const ids = new Set([...(m.user ? [m.user] : []), ...[...(m.text ?? '').matchAll(/<@([A-Z0-9]+)>/g)].map((x) => x[1] as string)]);
  const out: Record<string, string> = {};
  for (const id of ids) {
    const hit = l.users.get(id);
    if (fresh(hit)) {
      out[id] = hit.value;
      continue;
    }
    try {
      const r = await slackCall<{ user: SlackUser }>(ctx, 'users.info', { user: id });
      out[id] = displayName(r.user);
      l.users.set(id, { value: out[id], at: Date.now() });
    } catch (err) {
      if ((err as { data?: { error?: string } }).data?.error !== 'user_not_found') throw err;
    }
  }
  return out;
}

/** The sync's scope: `channels` (names or ids) when set, private channels only with `sync_private`. */
export function channelInScope(settings: SlackSettings, c: SlackChannelRef): boolean {
  if (c.is_private && !settings.sync_private) return false;
  return !settings.channels || settings.channels.includes(c.id) || settings.channels.includes(c.name);
}

/** The message as Slack has it now (null when gone): history for top-level messages, replies for thread replies. */
async function currentMessage(ctx: Ctx, channel: string, ts: string, threadTs: string | undefined): Promise<SlackMessage | null> {
  const bounds = { channel, oldest: ts, latest: ts, inclusive: true };
  const r =
    threadTs && threadTs !== ts
      ? await slackCall<{ messages: SlackMessage[] }>(ctx, 'conversations.replies', { ...bounds, ts: threadTs, limit: 2 })
      : await slackCall<{ messages: SlackMessage[] }>(ctx, 'conversations.history', { ...bounds, limit: 1 });
  return r.messages.find((m) => m.ts === ts) ?? null;
}

type EventEnvelope = { type?: string; event?: { type?: string; subtype?: string; channel?: unknown; channel_type?: string } };
type Changes = { documents: SourceDocument[]; deleted: string[]; event: string };
const externalId = (channel: string, ts: string) => `msg:${channel}:${ts}`;

async function messageChanges(ctx: Ctx, ev: Record<string, unknown>, retried: boolean): Promise<Changes> {
  const subtype = typeof ev.subtype === 'string' ? ev.subtype : undefined;
  const none: Changes = { documents: [], deleted: [], event: subtype ? `message.${subtype}` : 'message' };
  const channelType = typeof ev.channel_type === 'string' ? ev.channel_type : 'channel';
  // Direct messages are never synced; private channels only with sync_private.
  if (channelType !== 'channel' && channelType !== 'group') return none;
  if (channelType === 'group' && !ctx.settings.sync_private) return none;
  const channel = await channelRef(ctx, String(ev.channel));
  if (!channel || !channelInScope(ctx.settings, channel)) return none;
  if (subtype === 'message_deleted') return { ...none, deleted: [externalId(channel.id, (ev as unknown as MessageDeletedEvent).deleted_ts)] };
  const edit = subtype === 'message_changed' || subtype === 'message_replied';
  const sent = edit ? ((ev as unknown as MessageChangedEvent).message as SlackMessage | undefined) : (ev as unknown as SlackMessage);
  if (!sent?.ts) return none;
  const gone = { ...none, deleted: [externalId(channel.id, sent.ts)] };
  // A retry may arrive after later edits or a deletion: apply Slack's current state, not the stale payload.
  const m = retried ? await currentMessage(ctx, channel.id, sent.ts, sent.thread_ts) : sent;
  if (!m || m.subtype === 'tombstone') return gone;
  // An edit that leaves no text removes the document, as the sync would not store it; housekeeping messages are ignored.
  if (!isContentMessage(m)) return edit || retried ? gone : none;
  const doc = messageToDocument(await teamUrl(ctx), channel, m, await userNames(ctx, m));
  return { ...none, documents: [doc] };
}

/** A rename re-reads that channel exactly like a full sync (history + thread replies), so titles and metadata follow. */
async function renameChanges(ctx: Ctx, ev: ChannelRenameEvent, type: string): Promise<Changes> {
  const none: Changes = { documents: [], deleted: [], event: type };
  lookupsOf(ctx).channels.delete(ev.channel.id);
  const channel = (await channelRef(ctx, ev.channel.id)) ?? { id: ev.channel.id, name: ev.channel.name, is_private: type === 'group_rename' };
  if (!channelInScope(ctx.settings, channel)) return none;
  let page: SlackPage | null = {
    mode: 'full',
    phase: 'history',
    teamUrl: await teamUrl(ctx),
    users: await listUsers(ctx),
    channels: [channel],
    index: 0,
    cursor: null,
    threads: [],
    latest: {},
    since: {},
    window: null,
    replies: [],
  };
  const documents: SourceDocument[] = [];
  while (page) {
    const r = await slackSync.readPage(ctx, page);
    documents.push(...r.documents);
    page = r.next;
  }
  return { ...none, documents };
}

/**
 * Slack Events API (`event_callback`): `message` (new, incl. thread replies), its `message_changed` /
 * `message_deleted` subtypes, and `channel_rename` / `group_rename`, for channels in the connector's scope.
 */
export const slackWebhook: WebhookCapability<SlackCredentials, SlackSettings> = {
  // The Event Subscriptions to add in the Slack app (message.groups only matters with sync_private).
  events: ['message.channels', 'message.groups', 'channel_rename', 'group_rename'],
  ackWithinMs: SLACK_ACK_MS,
  secretFromCredentials: (c) => c.signing_secret,
  handshake(payload) {
    const p = payload as { type?: string; challenge?: unknown };
    return p.type === 'url_verification' && typeof p.challenge === 'string' ? { challenge: p.challenge } : null;
  },
  eventName({ payload }) {
    const p = payload as EventEnvelope;
    if (p.type !== 'event_callback' || !p.event?.type) return p.type ?? 'unknown';
    return p.event.type === 'message' && p.event.subtype ? `message.${p.event.subtype}` : p.event.type;
  },
  async verify({ headers, rawBody, secret, now }) {
    return verifySlackRequest({ signature: headers['x-slack-signature'], timestamp: headers['x-slack-request-timestamp'], rawBody, secret, now });
  },
  async changes(ctx, { headers, payload, deferred }) {
    const p = payload as EventEnvelope;
    const ev = p.event;
    if (p.type !== 'event_callback' || !ev?.type) return { documents: [], deleted: [], event: p.type ?? 'unknown' };
    // A retry, or a delivery finished later by the durable job, may be stale: both read Slack's current state.
    const retried = deferred === true || Number(headers['x-slack-retry-num'] ?? 0) > 0;
    if (ev.type === 'message') return messageChanges(ctx, ev as Record<string, unknown>, retried);
    if (ev.type === 'channel_rename' || ev.type === 'group_rename') return renameChanges(ctx, ev as unknown as ChannelRenameEvent, ev.type);
    return { documents: [], deleted: [], event: ev.type };
  },
};
