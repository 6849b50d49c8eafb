import { z } from 'zod';
import { parseHtml, type SourceAcl, type SourceDocument } from '../kit/index.ts';
import { FRONT_APP } from './schemas.ts';

export const frontTeammate = z.object({
  id: z.string(),
  email: z.string().nullable().optional(),
  username: z.string().nullable().optional(),
  first_name: z.string().nullable().optional(),
  last_name: z.string().nullable().optional(),
});
export type FrontTeammate = z.infer<typeof frontTeammate>;

const recipient = z.object({ name: z.string().nullable().optional(), handle: z.string(), role: z.string() });

export const frontConversation = z.object({
  id: z.string(),
  subject: z.string().nullable().optional(),
  status: z.string(),
  assignee: frontTeammate.nullable().optional(),
  recipient: recipient.nullable().optional(),
  tags: z.array(z.object({ id: z.string().optional(), name: z.string() })).default([]),
  created_at: z.number().optional(),
  updated_at: z.number().optional(),
  is_private: z.boolean().optional(),
});
export type FrontConversation = z.infer<typeof frontConversation>;

export const frontMessage = z.object({
  id: z.string(),
  type: z.string().optional(),
  is_inbound: z.boolean().optional(),
  draft_mode: z.string().nullable().optional(),
  created_at: z.number(),
  subject: z.string().nullable().optional(),
  author: frontTeammate.nullable().optional(),
  recipients: z.array(recipient).default([]),
  body: z.string().nullable().optional(),
  text: z.string().nullable().optional(),
  attachments: z.array(z.object({ filename: z.string().nullable().optional() })).default([]),
});
export type FrontMessage = z.infer<typeof frontMessage>;

export const frontComment = z.object({
  id: z.string(),
  author: frontTeammate.nullable().optional(),
  body: z.string().nullable().optional(),
  posted_at: z.number(),
  attachments: z.array(z.object({ filename: z.string().nullable().optional() })).default([]),
});
export type FrontComment = z.infer<typeof frontComment>;

export const frontInbox = z.object({ id: z.string(), name: z.string().nullable().optional(), is_private: z.boolean().optional() });
export type FrontInbox = z.infer<typeof frontInbox>;

export const conversationExternalId = (id: string): string => `conversation:${id}`;
/** The ACL group of an inbox: whoever has access to it in Front reads its conversations. */
export const inboxGroup = (id: string): string => `front:inbox:${id}`;

/** Front timestamps are Unix seconds with up to 3 decimals. */
const iso = (seconds: number): string => new Date(Math.round(seconds * 1000)).toISOString();
const when = (seconds: number): string => `${iso(seconds).slice(0, 16).replace('T', ' ')} UTC`;

export function teammateName(t: FrontTeammate | null | undefined): string | null {
  if (!t) return null;
  const full = [t.first_name, t.last_name].filter(Boolean).join(' ').trim();
  return full || t.username || t.email || t.id;
}

/** A teammate as the shared ACL/author shape wants it: lower-cased email, else `front:<teammate id>`. */
export const teammateRef = (t: FrontTeammate): string => (t.email ? t.email.toLowerCase() : `front:${t.id}`);

function sender(m: FrontMessage): { name: string; ref: string | null } {
  if (m.author) return { name: teammateName(m.author) ?? 'Teammate', ref: teammateRef(m.author) };
  const from = m.recipients.find((r) => r.role === 'from');
  if (!from) return { name: 'Unknown', ref: null };
  return { name: from.name?.trim() || from.handle, ref: from.handle.includes('@') ? from.handle.toLowerCase() : null };
}

function files(list: readonly { filename?: string | null }[]): string {
  const names = list.map((a) => a.filename).filter((n): n is string => Boolean(n));
  return names.length ? `Attachments: ${names.join(', ')}` : '';
}

function messageText(m: FrontMessage): string {
  const text = m.text?.trim() || (m.body ? parseHtml(m.body).content : '');
  return [text, files(m.attachments)].filter(Boolean).join('\n');
}

export interface ConversationParts {
  readonly messages: readonly FrontMessage[];
  readonly comments: readonly FrontComment[];
  readonly inboxes: readonly FrontInbox[];
}

/** Readable by whoever can open one of its inboxes; a conversation in no inbox (a discussion) by its assignee only. */
export function conversationAcl(c: FrontConversation, inboxes: readonly FrontInbox[]): SourceAcl {
  if (inboxes.length) return { groups: inboxes.map((i) => inboxGroup(i.id)) };
  return c.assignee ? { users: [teammateRef(c.assignee)] } : {};
}

/**
 * A conversation with its messages and internal comments, in time order: a header (status, assignee, tags, inboxes),
 * then each entry under its author and time; comments are teammate-only and marked `(internal comment)`.
 */
export function conversationToDocument(c: FrontConversation, parts: ConversationParts, opts: { includeComments: boolean }): SourceDocument {
  // Drafts are not sent: left out of the text.
  const messages = parts.messages.filter((m) => !m.draft_mode);
  const entries = [
    ...messages.map((m) => {
      const s = sender(m);
      return { at: m.created_at, text: `${s.name} — ${when(m.created_at)}${m.is_inbound === false ? ' (reply)' : ''}\n${messageText(m)}` };
    }),
    ...(opts.includeComments
      ? parts.comments.map((k) => ({
          at: k.posted_at,
          text: `${teammateName(k.author) ?? 'Teammate'} — ${when(k.posted_at)} (internal comment)\n${[k.body?.trim() ?? '', files(k.attachments)].filter(Boolean).join('\n')}`,
        }))
      : []),
  ].sort((a, b) => a.at - b.at);
  const header = [
    `Status: ${c.status}`,
    `Assignee: ${teammateName(c.assignee) ?? 'Unassigned'}`,
    c.tags.length ? `Tags: ${c.tags.map((t) => t.name).join(', ')}` : '',
    parts.inboxes.length ? `Inboxes: ${parts.inboxes.map((i) => i.name ?? i.id).join(', ')}` : '',
  ].filter(Boolean);
  const first = [...messages].sort((a, b) => a.created_at - b.created_at)[0];
  const author = first ? sender(first).ref : c.recipient?.handle?.includes('@') ? c.recipient.handle.toLowerCase() : null;
  const times = [c.created_at, c.updated_at, ...messages.map((m) => m.created_at), ...parts.comments.map((k) => k.posted_at)].filter((t): t is number => typeof t === 'number');
  const created = c.created_at ?? (times.length ? Math.min(...times) : undefined);
  const updated = times.length ? Math.max(...times) : undefined;
  return {
    external_id: conversationExternalId(c.id),
    title: c.subject?.trim() || first?.subject?.trim() || `Conversation ${c.id}`,
    content: [header.join('\n'), ...entries.map((e) => e.text)].join('\n\n'),
    url: `${FRONT_APP}/open/${c.id}`,
    ...(author ? { author } : {}),
    document_type: 'conversation',
    ...(created !== undefined ? { created_at: iso(created) } : {}),
    ...(updated !== undefined ? { updated_at: iso(updated) } : {}),
    metadata: {
      front_id: c.id,
      status: c.status,
      assignee: teammateName(c.assignee),
      assignee_id: c.assignee?.id ?? null,
      tags: c.tags.map((t) => t.name),
      inbox_ids: parts.inboxes.map((i) => i.id),
      is_private: c.is_private ?? false,
      message_count: messages.length,
      // Comments are internal (teammates only): counted, and whether the text keeps them.
      comment_count: parts.comments.length,
      comments_in_content: opts.includeComments && parts.comments.length > 0,
    },
    acl: conversationAcl(c, parts.inboxes),
  };
}
