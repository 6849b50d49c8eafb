import { z } from 'zod';
import { type Page, type SourceContext, type SourceDocument, SourceSettingsError, type SyncCapability, type SyncMode, VendorHttpError } from '../kit/index.ts';
import { graphGet, graphQuery, isExpiredDelta, isNotFound, seg } from './client.ts';
import { type FolderRef, folderPrefix, messageExternalId, messageToDocument } from './map.ts';
import { collection, graphMessage, graphUser, mailFolder, type MailFolder, type OutlookCredentials, type OutlookSettings } from './schemas.ts';

type Ctx = SourceContext<OutlookCredentials, OutlookSettings>;

/** Messages per delta page (`Prefer: odata.maxpagesize`): each page commits on its own. */
const PAGE_SIZE = 50;
/** Folders per listing page (`$top`; mailFolders default to 10). */
const FOLDER_PAGE = 100;
/** A mailbox with more folders than this is cut here (logged): each folder costs at least one request per sync. */
const MAX_FOLDERS = 1000;
const DAY_MS = 86_400_000;
/** The message properties indexed; `id` always comes back. */
export const MESSAGE_SELECT = 'subject,body,from,toRecipients,ccRecipients,receivedDateTime,lastModifiedDateTime,webLink,conversationId';
/** Bodies as plain text (Outlook converts HTML server-side), and delta pages of PAGE_SIZE messages. */
export const PREFER = ['outlook.body-content-type="text"', `odata.maxpagesize=${PAGE_SIZE}`] as const;

const folderRef = z.object({ id: z.string(), name: z.string(), path: z.string() });

/** The stored incremental cursor: each synced folder's `@odata.deltaLink` from the last completed sync. */
export const outlookCursor = z.object({ delta_links: z.record(z.string(), z.string()) });
export type OutlookCursor = z.infer<typeof outlookCursor>;

export const outlookPage = z.object({
  mode: z.enum(['incremental', 'full']),
  /** `setup`: GET /me and the folders to sync; `messages`: the current folder's delta round. */
  phase: z.enum(['setup', 'messages']),
  /** The mailbox owner's address (every message's ACL names it). */
  owner: z.string().nullable(),
  folders: z.array(folderRef),
  index: z.number().int(),
  /** The current folder's next request (an `@odata.nextLink` or the stored deltaLink); null = a new round. */
  link: z.string().nullable(),
  /** deltaLinks of the previous sync (incremental start points) and the ones this run reached. */
  previous: z.record(z.string(), z.string()),
  reached: z.record(z.string(), z.string()),
});
export type OutlookPage = z.infer<typeof outlookPage>;

function cursorOf(p: OutlookPage): OutlookCursor {
  const links: Record<string, string> = {};
  for (const f of p.folders) {
    const link = p.reached[f.id] ?? p.previous[f.id];
    if (link) links[f.id] = link;
  }
  return { delta_links: links };
}

/** The folder at `index`, continuing from its stored deltaLink in an incremental sync, else a new round (everything). */
function enter(p: OutlookPage, index: number): OutlookPage | null {
  const f = p.folders[index];
  if (!f) return null;
  return { ...p, phase: 'messages', index, link: p.mode === 'incremental' ? (p.previous[f.id] ?? null) : null };
}

/** GET /me's address: `mail`, else the sign-in name (`userPrincipalName`). */
export async function mailboxOwner(ctx: Ctx): Promise<string | null> {
  const me = await graphGet(ctx, '/me', graphUser);
  return me.mail ?? me.userPrincipalName ?? null;
}

/** A folder by well-known name or id; null when Graph has none (404, or 400 for a name or id it cannot read). */
async function folderByRef(ctx: Ctx, ref: string): Promise<MailFolder | null> {
  try {
    return await graphGet(ctx, `/me/mailFolders/${seg(ref)}`, mailFolder);
  } catch (err) {
    if (err instanceof VendorHttpError && (err.status === 404 || err.status === 400)) return null;
    throw err;
  }
}

/** Top-level folders (parent null) or a folder's child folders, through every `@odata.nextLink`. */
async function childFolders(ctx: Ctx, parentId: string | null): Promise<MailFolder[]> {
  const out: MailFolder[] = [];
  let link: string | undefined = `${parentId ? `/me/mailFolders/${seg(parentId)}/childFolders` : '/me/mailFolders'}${graphQuery({ $top: FOLDER_PAGE })}`;
  while (link) {
    const page: { value: MailFolder[]; '@odata.nextLink'?: string } = await graphGet(ctx, link, collection(mailFolder));
    out.push(...page.value);
    link = page['@odata.nextLink'];
  }
  return out;
}

/** The configured `folders`, resolved; one Graph does not know is a settings error naming it. */
export async function configuredFolders(ctx: Ctx): Promise<MailFolder[] | null> {
  const wanted = ctx.settings.folders;
  if (!wanted) return null;
  const found: MailFolder[] = [];
  const missing: string[] = [];
  for (const ref of wanted) {
    const f = await folderByRef(ctx, ref);
    if (f) found.push(f);
    else missing.push(ref);
  }
  if (missing.length > 0) {
    throw new SourceSettingsError(`folders: the mailbox has no folder ${missing.map((m) => `'${m}'`).join(', ')} (use well-known names such as inbox, sentitems, archive, or mailFolder ids)`);
  }
  return found;
}

/**
 * The folders to sync: the configured ones, or every top-level folder; with their child folders (depth first) unless
 * `include_child_folders` is false; never an excluded folder or anything below it (unless named in `folders`); each
 * folder once.
 */
export async function resolveFolders(ctx: Ctx): Promise<FolderRef[]> {
  const excluded = new Set<string>();
  for (const ref of ctx.settings.exclude_folders) {
    excluded.add(ref);
    const f = await folderByRef(ctx, ref);
    if (f) excluded.add(f.id);
  }
  const roots = (await configuredFolders(ctx)) ?? (await childFolders(ctx, null));
  const out: FolderRef[] = [];
  const seen = new Set<string>();
  const named = ctx.settings.folders !== undefined;
  const walk = async (f: MailFolder, parentPath: string | null): Promise<void> => {
    // A folder named in `folders` is synced even when excluded by default (`folders: ["deleteditems"]`).
    if ((excluded.has(f.id) && !(named && parentPath === null)) || seen.has(f.id)) return;
    if (out.length >= MAX_FOLDERS) {
      ctx.log.warn({ connectorId: ctx.connectorId, max: MAX_FOLDERS }, 'mailbox has more folders than synced; the rest are left out');
      return;
    }
    seen.add(f.id);
    const name = f.displayName ?? f.id;
    const path = parentPath ? `${parentPath}/${name}` : name;
    out.push({ id: f.id, name, path });
    if (!ctx.settings.include_child_folders || !f.childFolderCount) return;
    for (const c of await childFolders(ctx, f.id)) await walk(c, path);
  };
  for (const r of roots) await walk(r, null);
  return out;
}

async function storedIds(ctx: Ctx, prefix: string): Promise<string[]> {
  return (await ctx.stored(prefix)).map((r) => r.external_id);
}

/** A new delta round of a folder: every message (received in the last `lookback_days`), with our `$select`. */
function roundStart(ctx: Ctx, f: FolderRef): string {
  const lookback = ctx.settings.lookback_days;
  const filter = lookback ? `receivedDateTime ge ${new Date(ctx.now.getTime() - lookback * DAY_MS).toISOString().replace(/\.\d{3}Z$/, 'Z')}` : undefined;
  return `/me/mailFolders/${seg(f.id)}/messages/delta${graphQuery({ $select: MESSAGE_SELECT, $filter: filter })}`;
}

async function readSetup(ctx: Ctx, p: OutlookPage): Promise<Page<OutlookPage, OutlookCursor>> {
  const owner = await mailboxOwner(ctx);
  const folders = await resolveFolders(ctx);
  // Incremental: folders no longer synced (deleted, excluded, dropped from the settings) take their messages along.
  const deleted: string[] = [];
  if (p.mode === 'incremental') {
    for (const id of Object.keys(p.previous).filter((id) => !folders.some((f) => f.id === id))) deleted.push(...(await storedIds(ctx, folderPrefix(id))));
  }
  const set = { ...p, owner, folders };
  return { documents: [], deleted, next: enter(set, 0), cursor: cursorOf(set) };
}

async function readMessages(ctx: Ctx, p: OutlookPage): Promise<Page<OutlookPage, OutlookCursor>> {
  const f = p.folders[p.index];
  if (!f) return { documents: [], next: null, cursor: cursorOf(p) };
  let answer: z.infer<ReturnType<typeof collection<typeof graphMessage>>>;
  try {
    answer = await graphGet(ctx, p.link ?? roundStart(ctx, f), collection(graphMessage), PREFER);
  } catch (err) {
    if (p.link !== null && isExpiredDelta(err)) {
      // Exchange dropped the sync state (410 Gone, syncStateNotFound): a new round for this folder re-reads every
      // message in it. Messages deleted while the state was lost go at the next full sync.
      ctx.log.info({ connectorId: ctx.connectorId, folder: f.path }, 'Graph delta state expired; restarting the folder');
      return { documents: [], next: { ...p, link: null }, cursor: cursorOf(p) };
    }
    if (!isNotFound(err)) throw err;
    // The folder was deleted (or moved out of reach) during the sync: its documents go, the other folders carry on.
    const deleted = p.mode === 'incremental' ? await storedIds(ctx, folderPrefix(f.id)) : [];
    const { [f.id]: _dropped, ...previous } = p.previous;
    const after = { ...p, previous, folders: p.folders.filter((x) => x.id !== f.id) };
    return { documents: [], deleted, next: enter(after, p.index), cursor: cursorOf(after) };
  }
  // The same message may appear more than once in a round: the last occurrence is its state.
  const items = [...new Map(answer.value.map((m) => [m.id, m])).values()];
  const documents: SourceDocument[] = [];
  const deleted: string[] = [];
  for (const m of items) {
    if (m['@removed']) deleted.push(messageExternalId(f.id, m.id));
    else documents.push(messageToDocument(f, m, p.owner));
  }
  const nextLink = answer['@odata.nextLink'];
  let next: OutlookPage | null;
  let reached = p.reached;
  if (nextLink) next = { ...p, link: nextLink };
  else {
    const deltaLink = answer['@odata.deltaLink'];
    if (deltaLink) reached = { ...p.reached, [f.id]: deltaLink };
    next = enter({ ...p, reached }, p.index + 1);
  }
  return { documents, deleted, next, cursor: cursorOf({ ...p, reached }) };
}

export const outlookSync: SyncCapability<OutlookCredentials, OutlookSettings, OutlookCursor, OutlookPage> = {
  cursorSchema: outlookCursor,
  pageSchema: outlookPage,
  start(mode: SyncMode, since: OutlookCursor | null): OutlookPage {
    return { mode, phase: 'setup', owner: null, folders: [], index: 0, link: null, previous: mode === 'incremental' ? (since?.delta_links ?? {}) : {}, reached: {} };
  },
  readPage: (ctx, p) => (p.phase === 'setup' ? readSetup(ctx, p) : readMessages(ctx, p)),
};
