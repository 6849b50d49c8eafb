import { parseHtml, type SourceAcl, type SourceDocument } from '../kit/index.ts';
import type { GmailMessage, MessagePart } from './schemas.ts';

/** Labels whose messages are not documents: unsent drafts, spam and the trash (listings leave spam and trash out too). */
export const EXCLUDED_LABELS: readonly string[] = ['DRAFT', 'SPAM', 'TRASH'];

export const externalId = (messageId: string) => `message:${messageId}`;

const MAX_CONTENT = 1_000_000;

export function header(part: MessagePart | undefined, name: string): string | undefined {
  const lower = name.toLowerCase();
  return part?.headers?.find((h) => h.name.toLowerCase() === lower)?.value;
}

/** RFC 2047 encoded words (`=?utf-8?B?…?=`, `=?iso-8859-1?Q?…?=`) in a header value, decoded; Gmail usually decodes them itself. */
export function decodeEncodedWords(value: string): string {
  return value
    .replace(/(=\?[^?\s]+\?[BbQq]\?[^?\s]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?\s]+)\?([BbQq])\?([^?\s]*)\?=/g, (whole, charset: string, enc: string, text: string) => {
      try {
        const bytes =
          enc.toUpperCase() === 'B'
            ? Buffer.from(text, 'base64')
            : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1');
        return new TextDecoder(charset.replace(/\*.*$/, '')).decode(bytes);
      } catch {
        return whole;
      }
    });
}

export interface Address {
  readonly name: string | null;
  readonly email: string;
}

/** Splits on commas outside quotes, angle brackets and comments. */
function splitTop(value: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  let angle = 0;
  let comment = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i] ?? '';
    if (c === '\\' && quoted) {
      cur += c + (value[++i] ?? '');
      continue;
    }
    if (c === '"' && comment === 0) quoted = !quoted;
    else if (!quoted && c === '<') angle++;
    else if (!quoted && c === '>') angle = Math.max(0, angle - 1);
    else if (!quoted && c === '(') comment++;
    else if (!quoted && c === ')') comment = Math.max(0, comment - 1);
    if ((c === ',' || c === ';') && !quoted && angle === 0 && comment === 0) {
      out.push(cur);
      cur = '';
      continue;
    }
    cur += c;
  }
  out.push(cur);
  return out;
}

/**
 * The mailboxes of an address header (From, To, Cc): `Name <a@b>`, `"Last, First" <a@b>`, bare `a@b`, groups
 * (`Team: a@b, c@d;`). Emails are lower-cased; entries without an `@` (an empty group, `undisclosed-recipients:;`) are dropped.
 */
export function parseAddresses(value: string | undefined): Address[] {
  if (!value) return [];
  const out: Address[] = [];
  for (let part of splitTop(decodeEncodedWords(value))) {
    // A group's display name: `Team: first@x` (a colon outside quotes and brackets, before any `<` or `@`).
    const g = /^\s*(?:"[^"]*"|[^"<>@:])*:/.exec(part);
    if (g) part = part.slice(g[0].length);
    const angle = /<([^<>]*)>/.exec(part);
    const email = (angle ? angle[1] : part.replace(/\([^)]*\)/g, ''))?.trim().toLowerCase() ?? '';
    if (!/^[^\s@]+@[^\s@]+$/.test(email)) continue;
    const rawName = angle ? part.slice(0, angle.index).trim() : (/\(([^)]*)\)/.exec(part)?.[1]?.trim() ?? '');
    const name = rawName.replace(/^"(.*)"$/s, '$1').replace(/\\(.)/g, '$1').trim();
    out.push({ name: name || null, email });
  }
  return out;
}

const decoderFor = (charset: string | undefined): TextDecoder => {
  try {
    return new TextDecoder(charset ?? 'utf-8');
  } catch {
    return new TextDecoder('utf-8');
  }
};

/** A part's text: `body.data` is base64url of the part's bytes (transfer encoding removed) in its declared charset. */
export function partText(part: MessagePart): string {
  const data = part.body?.data;
  if (!data) return '';
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(header(part, 'Content-Type') ?? '')?.[1];
  return decoderFor(charset).decode(Buffer.from(data, 'base64url'));
}

const isAttachment = (p: MessagePart) => Boolean(p.filename) || /^\s*attachment/i.test(header(p, 'Content-Disposition') ?? '');

function leaves(part: MessagePart | undefined, out: MessagePart[] = []): MessagePart[] {
  if (!part) return out;
  if (part.parts && part.parts.length > 0) for (const p of part.parts) leaves(p, out);
  else out.push(part);
  return out;
}

/**
 * The readable body: the text/plain parts that are not attachments, else the text/html ones through the kit's HTML
 * parser (HTML-only mail). Parts of a multipart/mixed message (a forwarded note, a signature block) are joined in order.
 */
export function messageBody(payload: MessagePart | undefined): string {
  const inline = leaves(payload).filter((p) => !isAttachment(p));
  const plain = inline.filter((p) => p.mimeType?.toLowerCase() === 'text/plain').map(partText).filter((t) => t.trim());
  if (plain.length > 0) return plain.join('\n\n');
  const html = inline.filter((p) => p.mimeType?.toLowerCase() === 'text/html').map((p) => parseHtml(partText(p)).content).filter((t) => t.trim());
  return html.join('\n\n');
}

/** File names of the message's attachments (their bytes are not read). */
export function attachmentNames(payload: MessagePart | undefined): string[] {
  return leaves(payload)
    .filter((p) => p.filename)
    .map((p) => p.filename ?? '');
}

const uniq = (xs: readonly string[]) => [...new Set(xs)].sort();

/**
 * Who can read a message: the mailbox owner (whose mail it is) and the people it was exchanged with — the From, To,
 * Cc and (on the sender's own copy) Bcc addresses, lower-cased.
 */
export function messageAcl(msg: GmailMessage, account: string | null): SourceAcl {
  const users = ['From', 'To', 'Cc', 'Bcc'].flatMap((h) => parseAddresses(header(msg.payload, h)).map((a) => a.email));
  if (account) users.push(account.toLowerCase());
  return { users: uniq(users) };
}

const oneLine = (s: string) => decodeEncodedWords(s).replace(/\s+/g, ' ').trim();

/** A Gmail message (format=full) as a document: title = subject; content = the From/To/Cc/Date lines, then the body. */
export function messageToDocument(msg: GmailMessage, account: string | null): SourceDocument {
  const p = msg.payload;
  const subject = oneLine(header(p, 'Subject') ?? '');
  const from = header(p, 'From');
  const sender = parseAddresses(from)[0];
  const received = msg.internalDate && /^\d+$/.test(msg.internalDate) ? new Date(Number(msg.internalDate)).toISOString() : undefined;
  const date = header(p, 'Date');
  const attachments = attachmentNames(p);
  const lines = [
    from ? `From: ${oneLine(from)}` : null,
    header(p, 'To') ? `To: ${oneLine(header(p, 'To') ?? '')}` : null,
    header(p, 'Cc') ? `Cc: ${oneLine(header(p, 'Cc') ?? '')}` : null,
    date || received ? `Date: ${date ? oneLine(date) : received}` : null,
    attachments.length > 0 ? `Attachments: ${attachments.join(', ')}` : null,
  ].filter((l): l is string => l !== null);
  const body = messageBody(p).replace(/\r\n?/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
  const messageIdHeader = header(p, 'Message-ID') ?? header(p, 'Message-Id');
  return {
    external_id: externalId(msg.id),
    title: (subject || '(no subject)').slice(0, 2000),
    content: `${lines.join('\n')}\n\n${body || msg.snippet || ''}`.trim().slice(0, MAX_CONTENT),
    url: `https://mail.google.com/mail/u/0/#all/${encodeURIComponent(msg.threadId)}`,
    ...(sender ? { author: sender.email } : {}),
    document_type: 'email',
    ...(received ? { created_at: received, updated_at: received } : {}),
    metadata: {
      gmail_message_id: msg.id,
      thread_id: msg.threadId,
      label_ids: [...msg.labelIds].sort(),
      ...(messageIdHeader ? { message_id: messageIdHeader.trim() } : {}),
      ...(sender?.name ? { from_name: sender.name } : {}),
      ...(attachments.length > 0 ? { attachments } : {}),
    },
    acl: messageAcl(msg, account),
  };
}
