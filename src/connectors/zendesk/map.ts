import { z } from 'zod';
import { parseHtml, type SourceAcl, type SourceDocument } from '../kit/index.ts';

export const zendeskUser = z.object({ id: z.number(), name: z.string().nullable().optional(), email: z.string().nullable().optional() });
export type ZendeskUser = z.infer<typeof zendeskUser>;
export type UserDirectory = ReadonlyMap<number, ZendeskUser>;

export const zendeskTicket = z.object({
  id: z.number(),
  subject: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  status: z.string(),
  priority: z.string().nullable().optional(),
  type: z.string().nullable().optional(),
  requester_id: z.number().nullable().optional(),
  submitter_id: z.number().nullable().optional(),
  assignee_id: z.number().nullable().optional(),
  organization_id: z.number().nullable().optional(),
  group_id: z.number().nullable().optional(),
  brand_id: z.number().nullable().optional(),
  tags: z.array(z.string()).nullable().optional(),
  is_public: z.boolean().nullable().optional(),
  via: z.object({ channel: z.union([z.string(), z.number()]).nullable().optional() }).nullable().optional(),
  created_at: z.string(),
  updated_at: z.string(),
  generated_timestamp: z.number().optional(),
});
export type ZendeskTicket = z.infer<typeof zendeskTicket>;

export const zendeskComment = z.object({
  id: z.number(),
  type: z.string().optional(),
  author_id: z.number().nullable().optional(),
  body: z.string().nullable().optional(),
  plain_body: z.string().nullable().optional(),
  html_body: z.string().nullable().optional(),
  public: z.boolean(),
  created_at: z.string(),
  attachments: z.array(z.object({ file_name: z.string().optional() })).nullable().optional(),
});
export type ZendeskComment = z.infer<typeof zendeskComment>;

export const zendeskArticle = z.object({
  id: z.number(),
  title: z.string().nullable().optional(),
  body: z.string().nullable().optional(),
  html_url: z.string().nullable().optional(),
  author_id: z.number().nullable().optional(),
  section_id: z.number().nullable().optional(),
  locale: z.string().nullable().optional(),
  draft: z.boolean().optional(),
  promoted: z.boolean().optional(),
  outdated: z.boolean().optional(),
  user_segment_id: z.number().nullable().optional(),
  permission_group_id: z.number().nullable().optional(),
  label_names: z.array(z.string()).nullable().optional(),
  created_at: z.string(),
  updated_at: z.string(),
  edited_at: z.string().nullable().optional(),
});
export type ZendeskArticle = z.infer<typeof zendeskArticle>;

export const ticketExternalId = (id: number | string) => `ticket:${id}`;
export const articleExternalId = (id: number | string) => `article:${id}`;

/** Agents see tickets (custom roles may narrow them to their groups: `metadata.group_id`). */
export const AGENTS_GROUP = 'zendesk:agents';

export function directory(users: readonly ZendeskUser[] | undefined, into = new Map<number, ZendeskUser>()): Map<number, ZendeskUser> {
  for (const u of users ?? []) into.set(u.id, u);
  return into;
}

/** A person as the shared ACL/author shape wants it: lower-cased email, else `zendesk:<user id>`. */
export function zendeskPerson(id: number | null | undefined, users: UserDirectory): string | undefined {
  if (id === null || id === undefined) return undefined;
  const email = users.get(id)?.email;
  return email ? email.toLowerCase() : `zendesk:${id}`;
}

/** A readable name: the user's name, else their email, else `user <id>`. */
export function displayName(id: number | null | undefined, users: UserDirectory): string {
  if (id === null || id === undefined) return 'Unknown';
  const u = users.get(id);
  return u?.name || u?.email || `user ${id}`;
}

/** `2026-01-05T10:00:00Z` → `2026-01-05 10:00 UTC`, for the conversation's headings. */
const when = (iso: string): string => {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
};

const iso = (s: string): string => {
  const t = Date.parse(s);
  return Number.isNaN(t) ? s : new Date(t).toISOString();
};

function commentText(c: ZendeskComment): string {
  const text = c.plain_body ?? c.body ?? (c.html_body ? parseHtml(c.html_body).content : '');
  const files = (c.attachments ?? []).map((a) => a.file_name).filter(Boolean);
  return [text.trim(), files.length ? `Attachments: ${files.join(', ')}` : ''].filter(Boolean).join('\n');
}

/**
 * A ticket with its conversation: a header of status lines, then every comment in order (the first is the
 * description) under its author's name and time; internal notes are marked `(internal note)` or left out.
 */
export function ticketToDocument(
  t: ZendeskTicket,
  comments: readonly ZendeskComment[],
  users: UserDirectory,
  opts: { host: string; includeInternalNotes: boolean },
): SourceDocument {
  const header = [
    `Status: ${t.status}`,
    t.priority ? `Priority: ${t.priority}` : '',
    t.type ? `Type: ${t.type}` : '',
    `Requester: ${displayName(t.requester_id, users)}`,
    `Assignee: ${t.assignee_id ? displayName(t.assignee_id, users) : 'Unassigned'}`,
    t.tags?.length ? `Tags: ${t.tags.join(', ')}` : '',
  ].filter(Boolean);
  const kept = comments.filter((c) => c.public || opts.includeInternalNotes);
  const conversation = kept.map((c) => `${displayName(c.author_id, users)} — ${when(c.created_at)}${c.public ? '' : ' (internal note)'}\n${commentText(c)}`);
  // No comments read (none yet, or all internal and left out): the description is the ticket's first comment.
  if (comments.length === 0 && t.description) conversation.push(t.description.trim());
  const internal = comments.filter((c) => !c.public);
  return {
    external_id: ticketExternalId(t.id),
    title: `#${t.id} ${t.subject ?? ''}`.trim(),
    content: [header.join('\n'), ...conversation].filter((s) => s.trim()).join('\n\n'),
    url: `${opts.host}/agent/tickets/${t.id}`,
    author: zendeskPerson(t.requester_id ?? t.submitter_id, users),
    document_type: 'ticket',
    created_at: iso(t.created_at),
    updated_at: iso(t.updated_at),
    metadata: {
      zendesk_id: t.id,
      status: t.status,
      priority: t.priority ?? null,
      ticket_type: t.type ?? null,
      requester: t.requester_id ? displayName(t.requester_id, users) : null,
      requester_id: t.requester_id ?? null,
      submitter_id: t.submitter_id ?? null,
      assignee: t.assignee_id ? displayName(t.assignee_id, users) : null,
      assignee_id: t.assignee_id ?? null,
      group_id: t.group_id ?? null,
      organization_id: t.organization_id ?? null,
      brand_id: t.brand_id ?? null,
      tags: t.tags ?? [],
      channel: t.via?.channel ?? null,
      is_public: t.is_public ?? null,
      comment_count: comments.length,
      // Internal notes are agent-only (so is the whole ticket here): counted, and whether the text keeps them.
      internal_note_count: internal.length,
      internal_note_ids: internal.map((c) => c.id),
      internal_notes_in_content: opts.includeInternalNotes && internal.length > 0,
    },
    acl: { groups: [AGENTS_GROUP] },
  };
}

/** Help Center visibility: no user segment = everyone (anonymous visitors too); else the segment's members. */
export function articleAcl(a: Pick<ZendeskArticle, 'user_segment_id'>): SourceAcl {
  return a.user_segment_id === null || a.user_segment_id === undefined ? { public: true } : { groups: [`zendesk:segment:${a.user_segment_id}`] };
}

export function articleToDocument(a: ZendeskArticle, users: UserDirectory, host: string): SourceDocument {
  const body = a.body ? parseHtml(a.body).content : '';
  return {
    external_id: articleExternalId(a.id),
    title: a.title?.trim() || `Article ${a.id}`,
    content: body,
    url: a.html_url ?? `${host}/hc/articles/${a.id}`,
    author: zendeskPerson(a.author_id, users),
    document_type: 'article',
    created_at: iso(a.created_at),
    updated_at: iso(a.updated_at),
    metadata: {
      zendesk_id: a.id,
      section_id: a.section_id ?? null,
      locale: a.locale ?? null,
      labels: a.label_names ?? [],
      promoted: a.promoted ?? false,
      outdated: a.outdated ?? false,
      user_segment_id: a.user_segment_id ?? null,
      author: a.author_id ? displayName(a.author_id, users) : null,
    },
    acl: articleAcl(a),
  };
}
