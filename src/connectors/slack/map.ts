import type { SourceDocument } from '../contract.ts';

export interface SlackMessage {
  readonly ts: string;
  readonly text?: string;
  readonly user?: string;
  readonly subtype?: string;
  readonly thread_ts?: string;
  readonly reply_count?: number;
  readonly edited?: { ts: string };
}
export interface SlackChannelRef {
  readonly id: string;
  readonly name: string;
  readonly is_private: boolean;
}

/** Messages that carry knowledge: joins, leaves and other housekeeping subtypes are skipped. */
const SKIPPED_SUBTYPES = new Set(['channel_join', 'channel_leave', 'channel_topic', 'channel_purpose', 'channel_name', 'bot_add', 'bot_remove']);
export const isContentMessage = (m: SlackMessage) => !(m.subtype && SKIPPED_SUBTYPES.has(m.subtype)) && Boolean(m.text?.trim());

export function tsToIso(ts: string): string {
  return new Date(Math.round(Number(ts) * 1000)).toISOString();
}

/** `https://<team>.slack.com/archives/<channel>/p<ts without dot>` (+ thread_ts for replies), Slack's permalink shape. */
export function permalink(teamUrl: string, channel: string, ts: string, threadTs?: string): string {
  const base = `${teamUrl.replace(/\/$/, '')}/archives/${channel}/p${ts.replace('.', '')}`;
  return threadTs && threadTs !== ts ? `${base}?thread_ts=${threadTs}&cid=${channel}` : base;
}

/** Replaces `<@U123>` mentions with names and unwraps `<url|label>` links. */
export function renderSlackText(text: string, users: Record<string, string>): string {
  return text
    .replace(/<@([A-Z0-9]+)>/g, (_m, id: string) => `@${users[id] ?? id}`)
    .replace(/<(https?:[^|>]+)\|([^>]+)>/g, '$2 ($1)')
    .replace(/<(https?:[^>]+)>/g, '$1');
}

export function messageToDocument(teamUrl: string, channel: SlackChannelRef, m: SlackMessage, users: Record<string, string>): SourceDocument {
  const author = m.user ? (users[m.user] ?? m.user) : undefined;
  const isReply = m.thread_ts !== undefined && m.thread_ts !== m.ts;
  return {
    external_id: `msg:${channel.id}:${m.ts}`,
    title: `#${channel.name}${author ? ` — ${author}` : ''}`,
    content: renderSlackText(m.text ?? '', users),
    url: permalink(teamUrl, channel.id, m.ts, m.thread_ts),
    author,
    document_type: isReply ? 'thread_reply' : 'message',
    created_at: tsToIso(m.ts),
    updated_at: tsToIso(m.edited?.ts ?? m.ts),
    // thread_ts only on replies (a thread's root is the message whose ts it names): a root's document must not
    // depend on whether replies exist yet, so the Events API (which sends no update for the root) maps it like the sync.
    metadata: { channel: channel.name, channel_id: channel.id, ts: m.ts, ...(isReply ? { thread_ts: m.thread_ts } : {}) },
    acl: channel.is_private ? { visibility: 'private', channel: channel.id } : { visibility: 'workspace' },
  };
}
