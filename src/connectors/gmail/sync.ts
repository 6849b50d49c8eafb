import { z } from 'zod';
import { type Page, type SourceContext, type SourceDocument, SourceSettingsError, type SyncCapability, type SyncMode, VendorHttpError } from '../kit/index.ts';
import { gmailJson } from './client.ts';
import { EXCLUDED_LABELS, externalId, header, messageToDocument } from './map.ts';
import { type GmailCredentials, type GmailMessage, type GmailSettings, type HistoryList, historyList, labelList, message, messageList, profile } from './schemas.ts';

type Ctx = SourceContext<GmailCredentials, GmailSettings>;

const ME = '/gmail/v1/users/me';
/** Each listed message costs a messages.get (5 quota units), so listing pages stay small. */
const LIST_PAGE_SIZE = 50;
const HISTORY_PAGE_SIZE = 100;
const HISTORY_TYPES = ['messageAdded', 'messageDeleted', 'labelAdded', 'labelRemoved'] as const;

export const gmailPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'list', 'history']),
  /** The mailbox owner's email (lower-cased): a reader of every message. */
  account: z.string().nullable(),
  /** The `labels` setting resolved to label ids (null: every label). */
  labelIds: z.array(z.string()).nullable(),
  /** The profile's historyId taken before a listing began: the next incremental sync reads history from there. */
  startHistoryId: z.string().nullable(),
  /** What a listing walks: one messages.list per label of `labels` (any of them), or `[null]` for all mail. */
  units: z.array(z.string().nullable()),
  /** messages.list or history.list `pageToken`. */
  pageToken: z.string().nullable(),
  /** history phase: the stored cursor's historyId the history is read after. */
  historyId: z.string().nullable(),
});
export type GmailPage = z.infer<typeof gmailPage>;

export const gmailCursor = z.object({
  history_id: z.string(),
  /** The `labels` and `query` settings the history id was taken for: another filter lists again. */
  labels: z.array(z.string()).nullable(),
  query: z.string().nullable(),
});
export type GmailCursor = z.infer<typeof gmailCursor>;

const filterOf = (s: GmailSettings) => ({ labels: s.labels ? [...s.labels].sort() : null, query: s.query ?? null });
const cursorOf = (s: GmailSettings, historyId: string): GmailCursor => ({ history_id: historyId, ...filterOf(s) });
const sameFilter = (c: GmailCursor, s: GmailSettings) => JSON.stringify([c.labels, c.query]) === JSON.stringify([filterOf(s).labels, filterOf(s).query]);

/** `labels` as label ids: an entry is a label id or a label name (names compared case-insensitively, as Gmail does). */
async function resolveLabels(ctx: Ctx): Promise<string[] | null> {
  const wanted = ctx.settings.labels;
  if (!wanted) return null;
  const { labels } = await gmailJson(ctx, `${ME}/labels`, {}, labelList);
  const ids: string[] = [];
  for (const w of wanted) {
    const hit = labels.find((l) => l.id === w) ?? labels.find((l) => l.name.toLowerCase() === w.toLowerCase());
    if (!hit) throw new SourceSettingsError(`labels: the mailbox has no label '${w}' (use a label id such as INBOX or Label_12, or a label name as Gmail shows it)`);
    if (!ids.includes(hit.id)) ids.push(hit.id);
  }
  return ids;
}

type Read = { doc: SourceDocument } | { gone: true };

/** Whether a read message belongs in this connector (the Gmail query is checked separately, by Gmail). */
function labelsInScope(msg: GmailMessage, labelIds: readonly string[] | null): boolean {
  if (msg.labelIds.some((l) => EXCLUDED_LABELS.includes(l))) return false;
  return !labelIds || msg.labelIds.some((l) => labelIds.includes(l));
}

/**
 * Whether Gmail's own search still matches a changed message for `query`: a messages.list restricted to the message's
 * RFC 822 Message-ID (the only search operator naming one message). A message without a Message-ID header is kept.
 */
async function matchesQuery(ctx: Ctx, msg: GmailMessage, query: string): Promise<boolean> {
  const mid = header(msg.payload, 'Message-ID')?.trim().replace(/^<|>$/g, '');
  if (!mid) return true;
  const r = await gmailJson(ctx, `${ME}/messages`, { q: `(${query}) rfc822msgid:${mid}`, maxResults: 10 }, messageList);
  return r.messages.some((m) => m.id === msg.id);
}

async function readMessage(ctx: Ctx, id: string, p: GmailPage, checkQuery: boolean): Promise<Read> {
  let msg: GmailMessage;
  try {
    msg = await gmailJson(ctx, `${ME}/messages/${encodeURIComponent(id)}`, { format: 'full' }, message);
  } catch (err) {
    // Deleted since it was listed or logged.
    if (err instanceof VendorHttpError && err.status === 404) return { gone: true };
    throw err;
  }
  if (!labelsInScope(msg, p.labelIds)) return { gone: true };
  if (checkQuery && ctx.settings.query && !(await matchesQuery(ctx, msg, ctx.settings.query))) return { gone: true };
  return { doc: messageToDocument(msg, p.account) };
}

async function readMessages(ctx: Ctx, ids: readonly string[], p: GmailPage, checkQuery: boolean) {
  const documents: SourceDocument[] = [];
  const gone: string[] = [];
  for (const id of ids) {
    const r = await readMessage(ctx, id, p, checkQuery);
    if ('doc' in r) documents.push(r.doc);
    else gone.push(externalId(id));
  }
  return { documents, gone };
}

async function setup(ctx: Ctx, p: GmailPage): Promise<Page<GmailPage, GmailCursor>> {
  const me = await gmailJson(ctx, `${ME}/profile`, {}, profile);
  const account = me.emailAddress.toLowerCase();
  const labelIds = await resolveLabels(ctx);
  const base = { ...p, account, labelIds, startHistoryId: me.historyId };
  if (p.mode === 'incremental' && p.historyId) {
    return { documents: [], next: { ...base, phase: 'history' }, cursor: cursorOf(ctx.settings, p.historyId) };
  }
  return listFrom(ctx, base);
}

/** A listing from the top, whose cursor is the history id taken before it: what changes meanwhile is read next time. */
function listFrom(ctx: Ctx, p: GmailPage): Page<GmailPage, GmailCursor> {
  const next: GmailPage = { ...p, phase: 'list', units: p.labelIds ? [...p.labelIds] : [null], pageToken: null, historyId: null };
  return { documents: [], next, cursor: p.startHistoryId ? cursorOf(ctx.settings, p.startHistoryId) : null };
}

async function list(ctx: Ctx, p: GmailPage): Promise<Page<GmailPage, GmailCursor>> {
  const cursor = p.startHistoryId ? cursorOf(ctx.settings, p.startHistoryId) : null;
  const [unit, ...rest] = p.units;
  if (unit === undefined) return { documents: [], next: null, cursor };
  const r = await gmailJson(
    ctx,
    `${ME}/messages`,
    { maxResults: LIST_PAGE_SIZE, pageToken: p.pageToken ?? undefined, q: ctx.settings.query, labelIds: unit === null ? undefined : [unit] },
    messageList,
  );
  // The listing applied the query itself; a message gone or out of scope since it was listed is not a document.
  const { documents, gone } = await readMessages(
    ctx,
    r.messages.map((m) => m.id),
    p,
    false,
  );
  const units = r.nextPageToken ? p.units : rest;
  const next: GmailPage = { ...p, units, pageToken: r.nextPageToken ?? null };
  return { documents, deleted: gone, next: units.length > 0 ? next : null, cursor };
}

async function history(ctx: Ctx, p: GmailPage): Promise<Page<GmailPage, GmailCursor>> {
  if (!p.historyId) throw new Error('Gmail history phase without a history id');
  let r: HistoryList;
  try {
    r = await gmailJson(
      ctx,
      `${ME}/history`,
      { startHistoryId: p.historyId, historyTypes: HISTORY_TYPES, maxResults: HISTORY_PAGE_SIZE, pageToken: p.pageToken ?? undefined },
      historyList,
    );
  } catch (err) {
    // Gmail keeps history for about a week (sometimes hours): an expired startHistoryId answers 404 → list again.
    if (err instanceof VendorHttpError && err.status === 404 && !p.pageToken) {
      ctx.log.info({ connectorId: ctx.connectorId, historyId: p.historyId }, 'Gmail history id expired; listing the mailbox again');
      return listFrom(ctx, p);
    }
    throw err;
  }
  // Per message, in log order: a deletion is final (ids are never reused); any other change means read it again.
  const deletedIds = new Set<string>();
  const touched = new Set<string>();
  for (const h of r.history) {
    for (const x of h.messagesDeleted ?? []) deletedIds.add(x.message.id);
    for (const x of [...(h.messagesAdded ?? []), ...(h.labelsAdded ?? []), ...(h.labelsRemoved ?? [])]) touched.add(x.message.id);
  }
  const toRead = [...touched].filter((id) => !deletedIds.has(id));
  const { documents, gone } = await readMessages(ctx, toRead, p, true);
  const next: GmailPage = { ...p, pageToken: r.nextPageToken ?? null };
  return {
    documents,
    deleted: [...[...deletedIds].map(externalId), ...gone],
    next: r.nextPageToken ? next : null,
    // The last page's historyId is the mailbox's current one: the next incremental sync starts there.
    cursor: cursorOf(ctx.settings, r.nextPageToken ? p.historyId : r.historyId),
  };
}

export const gmailSync: SyncCapability<GmailCredentials, GmailSettings, GmailCursor, GmailPage> = {
  cursorSchema: gmailCursor,
  pageSchema: gmailPage,
  start(mode: SyncMode, since: GmailCursor | null, settings: GmailSettings): GmailPage {
    // A history id taken for another label or query filter says nothing about messages that now match: list again.
    const usable = mode === 'incremental' && since && sameFilter(since, settings) ? since : null;
    return { mode, phase: 'setup', account: null, labelIds: null, startHistoryId: null, units: [], pageToken: null, historyId: usable?.history_id ?? null };
  },
  async readPage(ctx, p) {
    if (p.phase === 'setup') return setup(ctx, p);
    if (p.phase === 'list') return list(ctx, p);
    return history(ctx, p);
  },
};
