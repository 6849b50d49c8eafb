import { parseHtml, type SourceAcl, type SourceDocument } from '../kit/index.ts';

/** The parts of Graph's identitySet / teamworkUserIdentity the mapping reads. */
export interface GraphIdentity {
  readonly id: string;
  readonly displayName?: string | null;
  /** Not in Graph's teamworkUserIdentity today; used when a tenant's payload carries it. */
  readonly email?: string | null;
}
export interface GraphMessage {
  readonly id: string;
  readonly replyToId?: string | null;
  /** `message`, `systemEventMessage`, `chatEvent`, `typing`, `unknownFutureValue`. */
  readonly messageType?: string;
  readonly createdDateTime?: string | null;
  readonly lastModifiedDateTime?: string | null;
  readonly deletedDateTime?: string | null;
  readonly subject?: string | null;
  readonly importance?: string | null;
  readonly webUrl?: string | null;
  readonly body?: { readonly contentType?: string; readonly content?: string | null } | null;
  readonly from?: { readonly user?: GraphIdentity | null; readonly application?: GraphIdentity | null } | null;
  readonly attachments?: readonly { readonly id?: string; readonly contentType?: string | null; readonly name?: string | null; readonly contentUrl?: string | null }[];
  readonly mentions?: readonly { readonly id?: number; readonly mentionText?: string | null }[];
  /** With `$expand=replies`: the first 1,000 replies, and a link to the rest. */
  readonly replies?: readonly GraphMessage[];
  readonly 'replies@odata.nextLink'?: string;
}
/** A channel as the sync carries it between pages. */
export interface ChannelRef {
  readonly teamId: string;
  readonly teamName: string;
  readonly id: string;
  readonly name: string;
  /** `standard`, `private`, `shared` (channel.membershipType). */
  readonly membershipType: string;
}

export const messageId = (channelId: string, id: string) => `message:${channelId}:${id}`;
export const replyId = (channelId: string, rootId: string, id: string) => `reply:${channelId}:${rootId}:${id}`;
/** Prefixes of every document of a channel, and of a thread's replies. */
export const channelPrefixes = (channelId: string) => [`message:${channelId}:`, `reply:${channelId}:`];
export const repliesPrefix = (channelId: string, rootId: string) => `reply:${channelId}:${rootId}:`;

/**
 * A message body as text: HTML (`contentType: html`, Teams' default) through the kit's HTML renderer, with
 * `<at>` mentions kept as `@Name`; plain text as is.
 */
export function bodyText(body: GraphMessage['body']): string {
  const content = body?.content ?? '';
  if (!content.trim()) return '';
  if (body?.contentType !== 'html') return content.trim();
  return parseHtml(content.replace(/<at\b[^>]*>/gi, '@').replace(/<\/at>/gi, '')).content;
}

/** Names of the files and cards attached (quoted-message references carry no name and are left out). */
export function attachmentNames(m: GraphMessage): string[] {
  return (m.attachments ?? []).map((a) => a.name?.trim() ?? '').filter((n) => n !== '');
}

/** Messages people wrote: not system events (member added, channel renamed…), not deleted, with text or attachments. */
export function isContentMessage(m: GraphMessage): boolean {
  if (m.messageType !== undefined && m.messageType !== 'message') return false;
  if (m.deletedDateTime) return false;
  return bodyText(m.body).trim() !== '' || Boolean(m.subject?.trim()) || attachmentNames(m).length > 0;
}

/** The first words of a text, up to about `max` characters, cut at a word boundary. */
export function firstWords(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The shared ACL shape: a standard channel is readable by the team's members; private and shared channels by theirs. */
export function channelAcl(c: ChannelRef): SourceAcl {
  return c.membershipType === 'standard' ? { groups: [`teams:team:${c.teamId}`] } : { groups: [`teams:channel:${c.id}`] };
}

/** Who posted: a lower-cased email where the identity carries one, else `teams:<user or application id>`. */
function authorOf(m: GraphMessage): { author?: string; name?: string } {
  const who = m.from?.user ?? m.from?.application;
  if (!who) return {};
  const author = who.email ? who.email.toLowerCase() : `teams:${who.id}`;
  return { author, ...(who.displayName ? { name: who.displayName } : {}) };
}

/**
 * One channel message (a thread's root, `rootId` undefined) or one reply as a document: title
 * `<channel> — <subject or first words>`, content = subject, text and attachment names, url = Teams' webUrl.
 */
export function messageToDocument(c: ChannelRef, m: GraphMessage, rootId?: string): SourceDocument {
  const text = bodyText(m.body);
  const subject = m.subject?.trim() ?? '';
  const files = attachmentNames(m);
  const { author, name } = authorOf(m);
  const mentions = (m.mentions ?? []).map((x) => x.mentionText?.trim() ?? '').filter(Boolean);
  const lead = subject || firstWords(text) || files[0] || '(no text)';
  const created = m.createdDateTime ?? undefined;
  return {
    external_id: rootId ? replyId(c.id, rootId, m.id) : messageId(c.id, m.id),
    title: `${c.name} — ${lead}`,
    content: [subject, text, files.length > 0 ? `Attachments: ${files.join(', ')}` : ''].filter((x) => x.trim()).join('\n\n'),
    ...(m.webUrl ? { url: m.webUrl } : {}),
    ...(author ? { author } : {}),
    document_type: rootId ? 'reply' : 'message',
    ...(created ? { created_at: created } : {}),
    ...((m.lastModifiedDateTime ?? created) ? { updated_at: m.lastModifiedDateTime ?? created } : {}),
    metadata: {
      team_id: c.teamId,
      team: c.teamName,
      channel_id: c.id,
      channel: c.name,
      channel_membership: c.membershipType,
      message_id: m.id,
      ...(rootId ? { reply_to_id: rootId } : {}),
      ...(name ? { author_name: name } : {}),
      ...(mentions.length > 0 ? { mentions } : {}),
      ...(files.length > 0 ? { attachments: files } : {}),
      ...(m.importance && m.importance !== 'normal' ? { importance: m.importance } : {}),
    },
    acl: channelAcl(c),
  };
}
