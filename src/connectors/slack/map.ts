import type { SourceAcl, SourceDocument } from '../kit/index.ts';

export interface SlackAttachment {
  readonly fallback?: string;
  readonly pretext?: string;
  readonly title?: string;
  readonly text?: string;
}
export interface SlackMessage {
  readonly ts: string;
  readonly text?: string;
  readonly user?: string;
  readonly subtype?: string;
  readonly thread_ts?: string;
  readonly reply_count?: number;
  /** On a thread's root: the ts of its newest reply. */
  readonly latest_reply?: string;
  readonly edited?: { ts: string };
  /** Bot messages: the name the bot posted as, and its profile. */
  readonly username?: string;
  readonly bot_id?: string;
  readonly bot_profile?: { name?: string };
  /** Legacy attachments: integrations (GitHub, CI, alerting) often post all their content here, with empty `text`. */
  readonly attachments?: readonly SlackAttachment[];
}
export interface SlackChannelRef {
  readonly id: string;
  readonly name: string;
  readonly is_private: boolean;
}

/**
 * Messages that carry knowledge: joins, leaves and other housekeeping subtypes are skipped, and so is the
 * `tombstone` Slack leaves in place of a deleted thread root that still has replies.
 */
const SKIPPED_SUBTYPES = new Set(['channel_join', 'channel_leave', 'channel_topic', 'channel_purpose', 'channel_name', 'bot_add', 'bot_remove', 'tombstone']);
export const isContentMessage = (m: SlackMessage) => !(m.subtype && SKIPPED_SUBTYPES.has(m.subtype)) && messageText(m).trim() !== '';

/** The message's text and, after it, each attachment's pretext, title and text (its fallback when it has neither). */
export function messageText(m: SlackMessage): string {
  const parts = [m.text ?? ''];
  for (const a of m.attachments ?? []) {
    const body = [a.title, a.text].filter((x) => x?.trim());
    parts.push(...[a.pretext, ...(body.length ? body : [a.fallback])].filter((x): x is string => Boolean(x?.trim())));
  }
  return parts.filter((x) => x.trim()).join('\n');
}

export function tsToIso(ts: string): string {
  return new Date(Math.round(Number(ts) * 1000)).toISOString();
}

/** `https://<team>.slack.com/archives/<channel>/p<ts without dot>` (+ thread_ts for replies), Slack's permalink shape. */
export function permalink(teamUrl: string, channel: string, ts: string, threadTs?: string): string {
  const base = `${teamUrl.replace(/\/$/, '')}/archives/${channel}/p${ts.replace('.', '')}`;
  return threadTs && threadTs !== ts ? `${base}?thread_ts=${threadTs}&cid=${channel}` : base;
}

/**
 * Slack's message markup as plain text: `<@U123>` mentions become names, `<#C123|general>` `#general`,
 * `<!here>` `@here`, `<url|label>` links `label (url)`; then the three escapes Slack applies to text
 * (`&amp;`, `&lt;`, `&gt;`) are decoded.
 */
export function renderSlackText(text: string, users: Record<string, string>): string {
  return text
    .replace(/<@([A-Z0-9]+)(?:\|[^>]*)?>/g, (_m, id: string) => `@${users[id] ?? id}`)
    .replace(/<#[A-Z0-9]+\|([^>]+)>/g, '#$1')
    .replace(/<!subteam\^[A-Z0-9]+\|([^>]+)>/g, '$1')
    .replace(/<!(here|channel|everyone)(?:\|[^>]*)?>/g, '@$1')
    .replace(/<((?:https?|mailto):[^|>]+)\|([^>]+)>/g, '$2 ($1)')
    .replace(/<((?:https?|mailto):[^>]+)>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Who posted: the user's name, else the name a bot or integration posted as. */
function authorOf(m: SlackMessage, users: Record<string, string>): string | undefined {
  if (m.user) return users[m.user] ?? m.user;
  return m.username || m.bot_profile?.name || undefined;
}

/** Who reads a channel's messages: a private channel's members (synced from conversations.members), else everyone. */
export const channelGroup = (channelId: string) => `slack:${channelId}`;
export function channelAcl(channel: { id: string; is_private: boolean }): SourceAcl {
  return channel.is_private ? { groups: [channelGroup(channel.id)] } : { public: true };
}

export function messageToDocument(teamUrl: string, channel: SlackChannelRef, m: SlackMessage, users: Record<string, string>): SourceDocument {
  const author = authorOf(m, users);
  const isReply = m.thread_ts !== undefined && m.thread_ts !== m.ts;
  return {
    external_id: `msg:${channel.id}:${m.ts}`,
    title: `#${channel.name}${author ? ` — ${author}` : ''}`,
    content: renderSlackText(messageText(m), users),
    url: permalink(teamUrl, channel.id, m.ts, m.thread_ts),
    author,
    document_type: isReply ? 'thread_reply' : 'message',
    created_at: tsToIso(m.ts),
    updated_at: tsToIso(m.edited?.ts ?? m.ts),
    // thread_ts only on replies (a thread's root is the message whose ts it names): a root's document must not
    // depend on whether replies exist yet, so the Events API (which sends no update for the root) maps it like the sync.
    metadata: { channel: channel.name, channel_id: channel.id, ts: m.ts, ...(isReply ? { thread_ts: m.thread_ts } : {}) },
    acl: channelAcl(channel),
  };
}
