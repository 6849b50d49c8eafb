import { z } from 'zod';
import { parseHtml, type SourceAcl, type SourceDocument } from '../kit/index.ts';
import { HELPSCOUT_APP } from './schemas.ts';

const person = z.object({
  id: z.number().nullable().optional(),
  type: z.string().nullable().optional(),
  first: z.string().nullable().optional(),
  last: z.string().nullable().optional(),
  email: z.string().nullable().optional(),
});
type Person = z.infer<typeof person>;

export const helpscoutThread = z.object({
  id: z.number(),
  type: z.string(),
  state: z.string().nullable().optional(),
  body: z.string().nullable().optional(),
  createdBy: person.nullable().optional(),
  createdAt: z.string(),
  _embedded: z.object({ attachments: z.array(z.object({ filename: z.string().nullable().optional() })).default([]) }).partial().optional(),
});
export type HelpscoutThread = z.infer<typeof helpscoutThread>;

export const helpscoutConversation = z.object({
  id: z.number(),
  number: z.number().optional(),
  type: z.string().optional(),
  status: z.string(),
  state: z.string().optional(),
  subject: z.string().nullable().optional(),
  mailboxId: z.number(),
  assignee: person.nullable().optional(),
  createdBy: person.nullable().optional(),
  primaryCustomer: person.nullable().optional(),
  createdAt: z.string(),
  userUpdatedAt: z.string().nullable().optional(),
  closedAt: z.string().nullable().optional(),
  tags: z.array(z.object({ id: z.number().optional(), tag: z.string() })).default([]),
  _embedded: z.object({ threads: z.array(helpscoutThread).default([]) }).partial().optional(),
  _links: z.object({ web: z.object({ href: z.string() }).optional() }).partial().optional(),
});
export type HelpscoutConversation = z.infer<typeof helpscoutConversation>;

export const docsArticle = z.object({
  id: z.string(),
  number: z.number().optional(),
  collectionId: z.string(),
  status: z.string(),
  name: z.string(),
  text: z.string().nullable().optional(),
  publicUrl: z.string().nullable().optional(),
  keywords: z.array(z.string()).nullable().optional(),
  createdBy: z.number().nullable().optional(),
  createdAt: z.string(),
  updatedAt: z.string().nullable().optional(),
});
export type DocsArticle = z.infer<typeof docsArticle>;

export const docsCollection = z.object({ id: z.string(), name: z.string().nullable().optional(), visibility: z.string().optional() });
export type DocsCollection = z.infer<typeof docsCollection>;

export const conversationExternalId = (id: number | string): string => `conversation:${id}`;
export const articleExternalId = (id: string): string => `article:${id}`;
/** Whoever has access to a mailbox in Help Scout reads its conversations. */
export const mailboxGroup = (id: number): string => `helpscout:mailbox:${id}`;
/** Every Help Scout user: private Docs collections are viewable only in the admin. */
export const USERS_GROUP = 'helpscout:users';

const iso = (s: string): string => {
  const t = Date.parse(s);
  return Number.isNaN(t) ? s : new Date(t).toISOString();
};
const when = (s: string): string => `${iso(s).slice(0, 16).replace('T', ' ')} UTC`;

export const personName = (p: Person | null | undefined): string | null =>
  p ? [p.first, p.last].filter(Boolean).join(' ').trim() || p.email || (p.id !== null && p.id !== undefined ? `${p.type ?? 'user'} ${p.id}` : null) : null;
/** A person as the shared author shape wants it: lower-cased email, else `helpscout:<type>:<id>`. */
export const personRef = (p: Person | null | undefined): string | undefined =>
  p?.email ? p.email.toLowerCase() : p?.id !== null && p?.id !== undefined ? `helpscout:${p.type ?? 'user'}:${p.id}` : undefined;

/** Threads that carry text a reader wants: customer messages, replies, notes, chats, phone notes, forwards. */
const SKIPPED_THREAD_TYPES = new Set(['lineitem']);

function threadText(t: HelpscoutThread): string {
  const text = t.body ? parseHtml(t.body).content.trim() : '';
  const files = (t._embedded?.attachments ?? []).map((a) => a.filename).filter(Boolean);
  return [text, files.length ? `Attachments: ${files.join(', ')}` : ''].filter(Boolean).join('\n');
}

/**
 * A conversation with its threads in time order: a header (status, mailbox, assignee, customer, tags), then each thread
 * under its author and time; notes are teammate-only and marked `(internal note)` or left out; drafts and line items
 * (status changes, assignments) are left out.
 */
export function conversationToDocument(c: HelpscoutConversation, opts: { includeNotes: boolean; mailboxName?: string }): SourceDocument {
  const threads = (c._embedded?.threads ?? [])
    .filter((t) => !SKIPPED_THREAD_TYPES.has(t.type) && t.state !== 'draft' && t.state !== 'hidden')
    .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id - b.id);
  const notes = threads.filter((t) => t.type === 'note');
  const kept = threads.filter((t) => t.type !== 'note' || opts.includeNotes);
  const header = [
    `Status: ${c.status}`,
    `Mailbox: ${opts.mailboxName ?? c.mailboxId}`,
    `Assignee: ${personName(c.assignee) ?? 'Unassigned'}`,
    c.primaryCustomer ? `Customer: ${personName(c.primaryCustomer)}` : '',
    c.tags.length ? `Tags: ${c.tags.map((t) => t.tag).join(', ')}` : '',
  ].filter(Boolean);
  const body = kept.map((t) => `${personName(t.createdBy) ?? 'Unknown'} — ${when(t.createdAt)}${t.type === 'note' ? ' (internal note)' : ''}\n${threadText(t)}`);
  const latest = [c.userUpdatedAt, ...threads.map((t) => t.createdAt)].filter((s): s is string => Boolean(s)).sort((a, b) => Date.parse(b) - Date.parse(a))[0];
  const author = personRef(c.primaryCustomer) ?? personRef(c.createdBy);
  return {
    external_id: conversationExternalId(c.id),
    title: `#${c.number ?? c.id} ${c.subject ?? ''}`.trim(),
    content: [header.join('\n'), ...body].join('\n\n'),
    url: c._links?.web?.href ?? `${HELPSCOUT_APP}/conversation/${c.id}/${c.number ?? ''}`.replace(/\/$/, ''),
    ...(author ? { author } : {}),
    document_type: 'conversation',
    created_at: iso(c.createdAt),
    updated_at: iso(latest ?? c.createdAt),
    metadata: {
      helpscout_id: c.id,
      number: c.number ?? null,
      status: c.status,
      channel: c.type ?? null,
      mailbox_id: c.mailboxId,
      assignee: personName(c.assignee),
      customer: personName(c.primaryCustomer),
      tags: c.tags.map((t) => t.tag),
      thread_count: threads.length,
      // Notes are teammate-only (so is the whole conversation here): counted, and whether the text keeps them.
      note_count: notes.length,
      notes_in_content: opts.includeNotes && notes.length > 0,
    },
    acl: { groups: [mailboxGroup(c.mailboxId)] },
  };
}

/** Docs visibility: a public collection's published articles are public; a private collection's are users-only. */
export function articleAcl(collection: DocsCollection | undefined): SourceAcl {
  return collection?.visibility === 'private' ? { groups: [USERS_GROUP] } : { public: true };
}

export function articleToDocument(a: DocsArticle, collection: DocsCollection | undefined): SourceDocument {
  return {
    external_id: articleExternalId(a.id),
    title: a.name.trim() || `Article ${a.id}`,
    content: a.text ? parseHtml(a.text).content : '',
    ...(a.publicUrl ? { url: a.publicUrl } : {}),
    ...(a.createdBy ? { author: `helpscout:user:${a.createdBy}` } : {}),
    document_type: 'article',
    created_at: iso(a.createdAt),
    updated_at: iso(a.updatedAt ?? a.createdAt),
    metadata: {
      helpscout_id: a.id,
      number: a.number ?? null,
      collection_id: a.collectionId,
      collection: collection?.name ?? null,
      collection_visibility: collection?.visibility ?? null,
      keywords: a.keywords ?? [],
    },
    acl: articleAcl(collection),
  };
}
