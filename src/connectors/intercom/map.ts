import { z } from 'zod';
import { parseHtml, type SourceAcl, type SourceDocument } from '../kit/index.ts';
import { INTERCOM_REGIONS, type IntercomRegion } from './schemas.ts';

/** The Intercom REST 2.x shapes the connector reads (only the fields it uses), and their pure mapping to documents. */
const author = z
  .object({
    /** `admin`, `user`, `lead`, `bot`, `team`, `contact`. */
    type: z.string().nullable().optional(),
    id: z.union([z.string(), z.number()]).nullable().optional(),
    name: z.string().nullable().optional(),
    email: z.string().nullable().optional(),
  })
  .nullable()
  .optional();
export type IntercomAuthor = z.infer<typeof author>;

const attachment = z.object({ name: z.string().nullable().optional(), url: z.string().nullable().optional() });

export const conversationPart = z.object({
  id: z.union([z.string(), z.number()]).transform(String),
  /** `comment`, `note`, `assignment`, `open`, `close`, `snoozed`, `away_mode_assignment`, … */
  part_type: z.string(),
  body: z.string().nullable().optional(),
  created_at: z.number(),
  updated_at: z.number().nullable().optional(),
  author,
  attachments: z.array(attachment).nullable().optional(),
  redacted: z.boolean().nullable().optional(),
});
export type IntercomPart = z.infer<typeof conversationPart>;

export const conversation = z.object({
  id: z.union([z.string(), z.number()]).transform(String),
  title: z.string().nullable().optional(),
  created_at: z.number(),
  updated_at: z.number(),
  state: z.string().nullable().optional(),
  open: z.boolean().nullable().optional(),
  admin_assignee_id: z.union([z.string(), z.number()]).nullable().optional(),
  team_assignee_id: z.union([z.string(), z.number()]).nullable().optional(),
  source: z
    .object({
      type: z.string().nullable().optional(),
      delivered_as: z.string().nullable().optional(),
      subject: z.string().nullable().optional(),
      body: z.string().nullable().optional(),
      author,
      attachments: z.array(attachment).nullable().optional(),
      url: z.string().nullable().optional(),
    })
    .nullable()
    .optional(),
  contacts: z
    .object({ contacts: z.array(z.object({ id: z.string(), external_id: z.string().nullable().optional() })).default([]) })
    .nullable()
    .optional(),
  tags: z.object({ tags: z.array(z.object({ id: z.union([z.string(), z.number()]).optional(), name: z.string() })).default([]) }).nullable().optional(),
  /** Only in `GET /conversations/{id}` (at most 500 parts), not in search results. */
  conversation_parts: z.object({ conversation_parts: z.array(conversationPart).default([]), total_count: z.number().optional() }).nullable().optional(),
});
export type IntercomConversation = z.infer<typeof conversation>;

export const article = z.object({
  id: z.union([z.string(), z.number()]).transform(String),
  title: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  body: z.string().nullable().optional(),
  author_id: z.union([z.string(), z.number()]).nullable().optional(),
  /** `published` or `draft`. */
  state: z.string(),
  created_at: z.number(),
  updated_at: z.number(),
  url: z.string().nullable().optional(),
  parent_id: z.union([z.string(), z.number()]).nullable().optional(),
  parent_type: z.string().nullable().optional(),
  default_locale: z.string().nullable().optional(),
});
export type IntercomArticle = z.infer<typeof article>;

export const contact = z.object({ id: z.string(), name: z.string().nullable().optional(), email: z.string().nullable().optional(), role: z.string().nullable().optional() });
export type IntercomContact = z.infer<typeof contact>;

/** Every teammate of the workspace (conversations are read in the inbox, by teammates only). */
export const TEAMMATES_GROUP = 'intercom:teammates';

export const conversationExternalId = (id: string) => `conversation:${id}`;
export const articleExternalId = (id: string) => `article:${id}`;

/** Intercom's Unix seconds as ISO 8601 UTC. */
export const unixIso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** HTML (Intercom's message and article bodies) as readable text; plain text passes through. */
export function htmlText(html: string | null | undefined): string {
  if (!html?.trim()) return '';
  if (!/<[a-z!/]/i.test(html)) return html.trim();
  return parseHtml(html).content;
}

/** A person as the ACL/author shape wants them: lower-cased email where Intercom gives one, else `intercom:<id>`. */
export function intercomPerson(a: IntercomAuthor): string | undefined {
  if (a?.email) return a.email.toLowerCase();
  return a?.id !== undefined && a.id !== null ? `intercom:${a.id}` : undefined;
}

/** Contact types whose name Intercom's author objects may leave out (looked up with GET /contacts/{id}). */
export const isContactAuthor = (a: IntercomAuthor) => a?.type === 'user' || a?.type === 'lead' || a?.type === 'contact';

/** How a part's author is named in the text: their name, else a looked-up contact name, else email, else the type. */
export function authorName(a: IntercomAuthor, contactNames: ReadonlyMap<string, string>): string {
  if (a?.name?.trim()) return a.name.trim();
  const looked = a?.id !== undefined && a.id !== null ? contactNames.get(String(a.id)) : undefined;
  if (looked) return looked;
  if (a?.email) return a.email;
  return a?.type === 'bot' ? 'Operator' : (a?.type ?? 'Unknown');
}

function firstWords(text: string, max = 80): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

const PART_LABEL: Record<string, string> = { note: 'note', assignment: 'assigned', close: 'closed', open: 'reopened', snoozed: 'snoozed' };

export interface ConversationContext {
  readonly appId: string;
  readonly region: IntercomRegion;
  /** Contact id → name, from the conversation's author objects and GET /contacts/{id}. */
  readonly contactNames: ReadonlyMap<string, string>;
  readonly includeNotes: boolean;
}

/** The inbox URL of a conversation (the web app of the workspace's region). */
export const conversationUrl = (region: IntercomRegion, appId: string, id: string) => `${INTERCOM_REGIONS[region].app}/a/inbox/${encodeURIComponent(appId)}/inbox/conversation/${encodeURIComponent(id)}`;

/** The contact a conversation is with: its first contact's name (or email, or id). */
export function conversationContact(c: IntercomConversation, contactNames: ReadonlyMap<string, string>): string {
  const first = c.contacts?.contacts[0];
  if (!first) return c.source?.author?.name ?? 'unknown contact';
  const name = contactNames.get(first.id);
  if (name) return name;
  if (c.source?.author && String(c.source.author.id) === first.id) return c.source.author.name ?? c.source.author.email ?? first.id;
  return first.external_id ?? first.id;
}

function attachmentLine(list: readonly { name?: string | null }[] | null | undefined): string {
  const names = (list ?? []).map((a) => a.name?.trim() ?? '').filter(Boolean);
  return names.length > 0 ? `Attachments: ${names.join(', ')}` : '';
}

/**
 * A conversation as one document: "Conversation with <contact>: <title or first message>", then the opening message
 * and every part with a body, in order, each headed by its author's name and time ("Ada (2026-01-05 09:00 UTC):").
 * Parts without text (assignments, state changes without a comment) are left out; notes are marked.
 */
export function conversationToDocument(c: IntercomConversation, x: ConversationContext): SourceDocument {
  const opening = htmlText(c.source?.body);
  const subject = htmlText(c.source?.subject);
  const headline = c.title?.trim() || subject || firstWords(opening) || `#${c.id}`;
  const stamp = (s: number) => `${unixIso(s).slice(0, 16).replace('T', ' ')} UTC`;
  const blocks: string[] = [];
  if (opening || c.source) {
    const text = [opening, attachmentLine(c.source?.attachments)].filter(Boolean).join('\n');
    if (text) blocks.push(`${authorName(c.source?.author, x.contactNames)} (${stamp(c.created_at)}):\n${text}`);
  }
  const parts = [...(c.conversation_parts?.conversation_parts ?? [])].sort((a, b) => a.created_at - b.created_at || Number(a.id) - Number(b.id));
  let notes = 0;
  for (const p of parts) {
    if (p.part_type === 'note' && !x.includeNotes) continue;
    const text = [htmlText(p.body), attachmentLine(p.attachments)].filter(Boolean).join('\n');
    if (!text) continue;
    if (p.part_type === 'note') notes++;
    const label = p.part_type !== 'comment' && PART_LABEL[p.part_type] ? ` [${PART_LABEL[p.part_type]}]` : '';
    blocks.push(`${authorName(p.author, x.contactNames)}${label} (${stamp(p.created_at)}):\n${text}`);
  }
  const contactName = conversationContact(c, x.contactNames);
  return {
    external_id: conversationExternalId(c.id),
    title: `Conversation with ${contactName}: ${headline}`,
    content: [subject && subject !== headline ? `Subject: ${subject}` : '', ...blocks].filter(Boolean).join('\n\n'),
    url: conversationUrl(x.region, x.appId, c.id),
    author: intercomPerson(c.source?.author),
    document_type: 'conversation',
    created_at: unixIso(c.created_at),
    updated_at: unixIso(c.updated_at),
    metadata: {
      intercom_id: c.id,
      app_id: x.appId,
      state: c.state ?? (c.open === false ? 'closed' : c.open ? 'open' : null),
      source_type: c.source?.type ?? null,
      delivered_as: c.source?.delivered_as ?? null,
      contact: contactName,
      contact_ids: (c.contacts?.contacts ?? []).map((k) => k.id),
      admin_assignee_id: c.admin_assignee_id === undefined || c.admin_assignee_id === null ? null : String(c.admin_assignee_id),
      team_assignee_id: c.team_assignee_id === undefined || c.team_assignee_id === null ? null : String(c.team_assignee_id),
      tags: (c.tags?.tags ?? []).map((t) => t.name),
      parts: c.conversation_parts?.total_count ?? parts.length,
      notes,
    },
    acl: { groups: [TEAMMATES_GROUP] },
  };
}

/** Published articles are public (the Help Center); drafts are readable by teammates only. */
export function articleAcl(a: Pick<IntercomArticle, 'state'>): SourceAcl {
  return a.state === 'published' ? { public: true } : { groups: [TEAMMATES_GROUP] };
}

export function articleToDocument(a: IntercomArticle, x: { appId: string; region: IntercomRegion }): SourceDocument {
  const description = a.description?.trim() ?? '';
  return {
    external_id: articleExternalId(a.id),
    title: a.title?.trim() || `Article ${a.id}`,
    content: [description, htmlText(a.body)].filter(Boolean).join('\n\n'),
    // A draft has no public URL: the article's page in the web app.
    url: a.url || `${INTERCOM_REGIONS[x.region].app}/a/apps/${encodeURIComponent(x.appId)}/articles/articles/${encodeURIComponent(a.id)}/show`,
    author: a.author_id === undefined || a.author_id === null ? undefined : `intercom:${a.author_id}`,
    document_type: 'article',
    created_at: unixIso(a.created_at),
    updated_at: unixIso(a.updated_at),
    metadata: {
      intercom_id: a.id,
      state: a.state,
      parent_id: a.parent_id === undefined || a.parent_id === null ? null : String(a.parent_id),
      parent_type: a.parent_type ?? null,
      locale: a.default_locale ?? null,
    },
    acl: articleAcl(a),
  };
}
