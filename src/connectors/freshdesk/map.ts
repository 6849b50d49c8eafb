import { z } from 'zod';
import { parseHtml, type SourceAcl, type SourceDocument } from '../kit/index.ts';

export const freshdeskTicket = z.object({
  id: z.number(),
  subject: z.string().nullable().optional(),
  description_text: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  status: z.number(),
  priority: z.number().nullable().optional(),
  source: z.number().nullable().optional(),
  type: z.string().nullable().optional(),
  requester_id: z.number().nullable().optional(),
  responder_id: z.number().nullable().optional(),
  group_id: z.number().nullable().optional(),
  company_id: z.number().nullable().optional(),
  tags: z.array(z.string()).nullable().optional(),
  requester: z.object({ id: z.number().optional(), name: z.string().nullable().optional(), email: z.string().nullable().optional() }).nullable().optional(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type FreshdeskTicket = z.infer<typeof freshdeskTicket>;

export const freshdeskConversation = z.object({
  id: z.number(),
  body_text: z.string().nullable().optional(),
  body: z.string().nullable().optional(),
  incoming: z.boolean().optional(),
  private: z.boolean().optional(),
  user_id: z.number().nullable().optional(),
  from_email: z.string().nullable().optional(),
  source: z.number().optional(),
  created_at: z.string(),
  attachments: z.array(z.object({ name: z.string().optional() })).nullable().optional(),
});
export type FreshdeskConversation = z.infer<typeof freshdeskConversation>;

export const freshdeskArticle = z.object({
  id: z.number(),
  title: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  description_text: z.string().nullable().optional(),
  status: z.number(),
  agent_id: z.number().nullable().optional(),
  folder_id: z.number().nullable().optional(),
  category_id: z.number().nullable().optional(),
  tags: z.array(z.string()).nullable().optional(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type FreshdeskArticle = z.infer<typeof freshdeskArticle>;

/** A solution folder as the sync keeps it: who may see its articles. */
export const folderRef = z.object({
  id: z.number(),
  name: z.string(),
  category: z.string(),
  visibility: z.number(),
  company_ids: z.array(z.number()).default([]),
});
export type FolderRef = z.infer<typeof folderRef>;

export const ticketExternalId = (id: number | string) => `ticket:${id}`;
export const articleExternalId = (id: number | string) => `article:${id}`;
export const AGENTS_GROUP = 'freshdesk:agents';

const STATUS: Record<number, string> = { 2: 'Open', 3: 'Pending', 4: 'Resolved', 5: 'Closed', 6: 'Waiting on Customer', 7: 'Waiting on Third Party' };
const PRIORITY: Record<number, string> = { 1: 'Low', 2: 'Medium', 3: 'High', 4: 'Urgent' };
const SOURCE: Record<number, string> = { 1: 'Email', 2: 'Portal', 3: 'Phone', 7: 'Chat', 9: 'Feedback Widget', 10: 'Outbound Email' };
/** Article status: 1 draft, 2 published. */
export const PUBLISHED = 2;

/** Agent id → name and email, as the sync collects them once (`GET /api/v2/agents`). */
export const agentDirectory = z.record(z.string(), z.object({ name: z.string(), email: z.string().nullable() }));
export type AgentNames = Readonly<z.infer<typeof agentDirectory>>;

const when = (iso: string): string => {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
};
const isoTime = (s: string): string => {
  const t = Date.parse(s);
  return Number.isNaN(t) ? s : new Date(t).toISOString();
};

function speaker(userId: number | null | undefined, t: FreshdeskTicket, agents: AgentNames, fromEmail?: string | null): string {
  if (userId !== null && userId !== undefined) {
    if (userId === t.requester_id && t.requester?.name) return t.requester.name;
    const agent = agents[String(userId)];
    if (agent) return agent.name;
  }
  return fromEmail || (userId ? `user ${userId}` : 'Unknown');
}

const text = (plain: string | null | undefined, html: string | null | undefined): string => (plain ?? (html ? parseHtml(html).content : '')).trim();

/**
 * A ticket with its conversation: status lines, the description under the requester's name, then every reply and
 * note in order under its author's name and time; private notes are marked `(private note)` or left out.
 */
export function ticketToDocument(
  t: FreshdeskTicket,
  conversations: readonly FreshdeskConversation[],
  agents: AgentNames,
  opts: { host: string; includePrivateNotes: boolean },
): SourceDocument {
  const requester = t.requester?.name || t.requester?.email || (t.requester_id ? `user ${t.requester_id}` : 'Unknown');
  const header = [
    `Status: ${STATUS[t.status] ?? t.status}`,
    t.priority ? `Priority: ${PRIORITY[t.priority] ?? t.priority}` : '',
    t.type ? `Type: ${t.type}` : '',
    t.source ? `Source: ${SOURCE[t.source] ?? t.source}` : '',
    `Requester: ${requester}`,
    `Agent: ${t.responder_id ? speaker(t.responder_id, t, agents) : 'Unassigned'}`,
    t.tags?.length ? `Tags: ${t.tags.join(', ')}` : '',
  ].filter(Boolean);
  const description = text(t.description_text, t.description);
  const kept = conversations.filter((c) => !c.private || opts.includePrivateNotes);
  const parts = [
    header.join('\n'),
    description ? `${requester} — ${when(t.created_at)}\n${description}` : '',
    ...kept.map((c) => {
      const files = (c.attachments ?? []).map((a) => a.name).filter(Boolean);
      const body = [text(c.body_text, c.body), files.length ? `Attachments: ${files.join(', ')}` : ''].filter(Boolean).join('\n');
      return `${speaker(c.user_id, t, agents, c.from_email)} — ${when(c.created_at)}${c.private ? ' (private note)' : ''}\n${body}`;
    }),
  ];
  const notes = conversations.filter((c) => c.private);
  const email = t.requester?.email;
  return {
    external_id: ticketExternalId(t.id),
    title: `#${t.id} ${t.subject ?? ''}`.trim(),
    content: parts.filter((s) => s.trim()).join('\n\n'),
    url: `${opts.host}/a/tickets/${t.id}`,
    author: email ? email.toLowerCase() : t.requester_id ? `freshdesk:${t.requester_id}` : undefined,
    document_type: 'ticket',
    created_at: isoTime(t.created_at),
    updated_at: isoTime(t.updated_at),
    metadata: {
      freshdesk_id: t.id,
      status: STATUS[t.status] ?? String(t.status),
      priority: t.priority ? (PRIORITY[t.priority] ?? String(t.priority)) : null,
      ticket_type: t.type ?? null,
      source: t.source ? (SOURCE[t.source] ?? String(t.source)) : null,
      requester: requester,
      requester_id: t.requester_id ?? null,
      responder_id: t.responder_id ?? null,
      group_id: t.group_id ?? null,
      company_id: t.company_id ?? null,
      tags: t.tags ?? [],
      conversation_count: conversations.length,
      private_note_count: notes.length,
      private_note_ids: notes.map((c) => c.id),
      private_notes_in_content: opts.includePrivateNotes && notes.length > 0,
    },
    acl: { groups: [AGENTS_GROUP] },
  };
}

/**
 * Who may read a published article: its folder's visibility (1 all users, 2 logged-in users → public; 3 agents;
 * 4 selected companies → their groups; segments and bots → agents, the visibility kept in metadata).
 */
export function folderAcl(f: Pick<FolderRef, 'visibility' | 'company_ids'>): SourceAcl {
  if (f.visibility === 1 || f.visibility === 2) return { public: true };
  if (f.visibility === 4 && f.company_ids.length > 0) return { groups: [AGENTS_GROUP, ...f.company_ids.map((id) => `freshdesk:company:${id}`)] };
  return { groups: [AGENTS_GROUP] };
}

export function articleToDocument(a: FreshdeskArticle, folder: FolderRef, agents: AgentNames, host: string): SourceDocument {
  return {
    external_id: articleExternalId(a.id),
    title: a.title?.trim() || `Article ${a.id}`,
    content: a.description ? parseHtml(a.description).content : (a.description_text ?? '').trim(),
    url: `${host}/support/solutions/articles/${a.id}`,
    author: a.agent_id ? (agents[String(a.agent_id)]?.email?.toLowerCase() ?? `freshdesk:${a.agent_id}`) : undefined,
    document_type: 'article',
    created_at: isoTime(a.created_at),
    updated_at: isoTime(a.updated_at),
    metadata: {
      freshdesk_id: a.id,
      folder_id: folder.id,
      folder: folder.name,
      category: folder.category,
      folder_visibility: folder.visibility,
      tags: a.tags ?? [],
      author: a.agent_id ? (agents[String(a.agent_id)]?.name ?? null) : null,
    },
    acl: folderAcl(folder),
  };
}
