import { z } from 'zod';
import type { SourceAcl, SourceDocument } from '../kit/index.ts';

export const zulipStream = z.object({
  stream_id: z.number(),
  name: z.string(),
  description: z.string().optional(),
  invite_only: z.boolean(),
  is_web_public: z.boolean().optional(),
  is_archived: z.boolean().optional(),
});
export type ZulipStream = z.infer<typeof zulipStream>;

export const zulipMessage = z.object({
  id: z.number(),
  sender_id: z.number(),
  sender_full_name: z.string(),
  sender_email: z.string(),
  timestamp: z.number(),
  content: z.string(),
  subject: z.string(),
  stream_id: z.number().optional(),
  type: z.string(),
  last_edit_timestamp: z.number().optional(),
});
export type ZulipMessage = z.infer<typeof zulipMessage>;

export interface StreamRef {
  readonly id: number;
  readonly name: string;
  readonly private: boolean;
}

export const topicExternalId = (streamId: number, topic: string) => `topic:${streamId}:${topic}`;
export const streamGroup = (streamId: number) => `zulip:stream:${streamId}`;
export const zulipAccount = (userId: number) => `zulip:${userId}`;

/** Private (invite-only) channels → their subscribers' group; public ones → anyone in the tenant. */
export function streamAcl(s: Pick<StreamRef, 'id' | 'private'>): SourceAcl {
  return s.private ? { groups: [streamGroup(s.id)] } : { public: true };
}

/**
 * Zulip's URL-fragment encoding of a narrow's parts (its web app's `encodeHashComponent`): percent-encoding with `%`
 * written as `.`, and `(`, `)`, `.` escaped so the fragment survives chat clients' link detection.
 */
export function encodeHashComponent(s: string): string {
  return encodeURIComponent(s).replace(/[%().]/g, (c) => ({ '%': '.', '(': '.28', ')': '.29', '.': '.2E' })[c] ?? c);
}

/** `<site>/#narrow/stream/<id>-<name>/topic/<topic>`: the topic's conversation in the web app (`stream`, which every server version reads; 9.0+ also writes `channel`). */
export function topicUrl(site: string, stream: Pick<StreamRef, 'id' | 'name'>, topic: string): string {
  return `${site.replace(/\/+$/, '')}/#narrow/stream/${encodeHashComponent(`${stream.id}-${stream.name.replace(/ /g, '-')}`)}/topic/${encodeHashComponent(topic)}`;
}

/**
 * Zulip Markdown as text where it hides names: user mentions `@**Name**` / `@**Name|12**` / silent `@_**Name**` →
 * `@Name`, group mentions `@*group*` → `@group`, channel links `#**channel>topic**` → `#channel > topic`.
 */
export function renderZulipText(text: string): string {
  return text
    .replace(/@_?\*\*([^*|]+)(?:\|\d+)?\*\*/g, '@$1')
    .replace(/@_?\*([^*]+)\*/g, '@$1')
    .replace(/#\*\*([^*>]+)>([^*]+)\*\*/g, '#$1 > $2')
    .replace(/#\*\*([^*]+)\*\*/g, '#$1');
}

const when = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * A topic with its messages, oldest first, each under its sender's name and time: Zulip's unit of conversation, so a
 * search hit carries the question and its answers together.
 */
export function topicToDocument(site: string, stream: StreamRef, topic: string, messages: readonly ZulipMessage[]): SourceDocument {
  const sorted = [...messages].sort((a, b) => a.id - b.id);
  const first = sorted[0];
  const lastEdit = Math.max(...sorted.map((m) => Math.max(m.timestamp, m.last_edit_timestamp ?? 0)));
  const participants = [...new Set(sorted.map((m) => m.sender_full_name))];
  return {
    external_id: topicExternalId(stream.id, topic),
    title: `#${stream.name} > ${topic}`,
    content: sorted.map((m) => `${m.sender_full_name} — ${when(m.timestamp)}\n${renderZulipText(m.content).trim()}`).join('\n\n'),
    url: topicUrl(site, stream, topic),
    author: first?.sender_full_name,
    document_type: 'topic',
    created_at: first ? new Date(first.timestamp * 1000).toISOString() : undefined,
    updated_at: Number.isFinite(lastEdit) ? new Date(lastEdit * 1000).toISOString() : undefined,
    metadata: {
      stream: stream.name,
      stream_id: stream.id,
      topic,
      message_count: sorted.length,
      first_message_id: first?.id ?? null,
      last_message_id: sorted.at(-1)?.id ?? null,
      participants,
      author_email: first?.sender_email.toLowerCase() ?? null,
    },
    acl: streamAcl(stream),
  };
}
