import { parseHtml, type SourceAcl, type SourceDocument } from '../kit/index.ts';
import type { GraphMessage, Recipient } from './schemas.ts';

/** A mail folder as the sync carries it between pages. */
export interface FolderRef {
  readonly id: string;
  readonly name: string;
  /** Display names from the top-level folder down, `/`-joined (`Inbox/Projects`). */
  readonly path: string;
}

export const messageExternalId = (folderId: string, messageId: string): string => `message:${folderId}:${messageId}`;
/**
 * Every document of a folder. The folder is part of the id because Outlook reports a move as a removal in the source
 * folder and an addition in the target one: with immutable ids the message keeps its id, and the removal must not
 * delete the copy the target folder just stored.
 */
export const folderPrefix = (folderId: string): string => `message:${folderId}:`;

/** A body as text: `text` (what `Prefer: outlook.body-content-type="text"` asks for) as is, HTML through the kit's renderer. */
export function bodyText(body: GraphMessage['body']): string {
  const content = body?.content ?? '';
  if (!content.trim()) return '';
  if ((body?.contentType ?? '').toLowerCase() === 'html') return parseHtml(content).content;
  return content.replace(/\r\n?/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
}

const addressOf = (r: Recipient | null | undefined): string | null => {
  const a = r?.emailAddress?.address?.trim();
  return a ? a.toLowerCase() : null;
};

/** `Name <address>`, or whichever of the two there is. */
export function formatRecipient(r: Recipient | null | undefined): string {
  const name = r?.emailAddress?.name?.trim() ?? '';
  const address = r?.emailAddress?.address?.trim() ?? '';
  if (name && address && name.toLowerCase() !== address.toLowerCase()) return `${name} <${address}>`;
  return address || name;
}

const list = (rs: readonly Recipient[] | null | undefined): string[] => (rs ?? []).map(formatRecipient).filter((s) => s !== '');

/**
 * Who may read a message at the source: the mailbox owner and everyone it was from or addressed to (To and Cc),
 * lower-cased emails (the shared ACL shape).
 */
export function messageAcl(m: GraphMessage, owner: string | null): SourceAcl {
  const users = new Set<string>();
  if (owner) users.add(owner.toLowerCase());
  for (const r of [m.from, ...(m.toRecipients ?? []), ...(m.ccRecipients ?? [])]) {
    const a = addressOf(r);
    if (a) users.add(a);
  }
  return { users: [...users] };
}

/**
 * One message as a document: title = subject, content = `From:`/`To:`/`Cc:`/`Date:` lines, a blank line and the body
 * as text; url = Outlook on the web's `webLink`; author = the sender's lower-cased address.
 */
export function messageToDocument(folder: FolderRef, m: GraphMessage, owner: string | null): SourceDocument {
  const subject = m.subject?.trim() ?? '';
  const from = formatRecipient(m.from);
  const to = list(m.toRecipients);
  const cc = list(m.ccRecipients);
  const received = m.receivedDateTime ?? undefined;
  const head = [from && `From: ${from}`, to.length > 0 && `To: ${to.join(', ')}`, cc.length > 0 && `Cc: ${cc.join(', ')}`, received && `Date: ${received}`].filter(
    (l): l is string => typeof l === 'string' && l !== '',
  );
  const body = bodyText(m.body);
  const content = [head.join('\n'), body].filter((s) => s !== '').join('\n\n');
  const author = addressOf(m.from);
  return {
    external_id: messageExternalId(folder.id, m.id),
    title: subject || '(no subject)',
    content,
    ...(m.webLink ? { url: m.webLink } : {}),
    ...(author ? { author } : {}),
    document_type: 'email',
    ...(received ? { created_at: received } : {}),
    ...(m.lastModifiedDateTime || received ? { updated_at: m.lastModifiedDateTime ?? received } : {}),
    acl: messageAcl(m, owner),
    metadata: {
      message_id: m.id,
      folder: folder.path,
      folder_id: folder.id,
      ...(m.conversationId ? { conversation_id: m.conversationId } : {}),
      ...(m.from?.emailAddress?.name ? { from_name: m.from.emailAddress.name } : {}),
      to: (m.toRecipients ?? []).map(addressOf).filter((a): a is string => a !== null),
      cc: (m.ccRecipients ?? []).map(addressOf).filter((a): a is string => a !== null),
    },
  };
}
