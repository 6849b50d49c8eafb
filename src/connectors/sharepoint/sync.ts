import { z } from 'zod';
import { type Page, parseFile, type SourceContext, type SourceDocument, type SyncCapability, type SyncMode, SourceSettingsError, VendorHttpError } from '../kit/index.ts';
import { deltaRequest, downloadItem, graphBase, graphGet, onBase } from './client.ts';
import { type DriveRef, extensionOf, itemExternalId, itemPath, itemToDocument, userRef } from './map.ts';
import { readSiteMembers } from './members.ts';
import { appOnly, collection, type DriveItem, driveItem, graphDrive, type GraphDrive, graphSite, type GraphSite, type SharepointCredentials, type SharepointSettings } from './schemas.ts';

type Ctx = SourceContext<SharepointCredentials, SharepointSettings>;

/** Items per delta page: each file on a page is downloaded and parsed before the page commits. */
const DELTA_PAGE_SIZE = 50;
/** Folder paths remembered per drive in the page state; past this, paths come from Graph or the item URL. */
const MAX_FOLDERS = 5000;

const siteRef = z.object({ id: z.string(), name: z.string().nullable(), webUrl: z.string().nullable() });
type SiteRef = z.infer<typeof siteRef>;
const driveRef = z.object({
  id: z.string(),
  name: z.string(),
  webUrl: z.string().nullable(),
  driveType: z.string().nullable(),
  siteId: z.string().nullable(),
  siteName: z.string().nullable(),
  owner: z.string().nullable(),
});

/** The stored incremental cursor: each drive's `@odata.deltaLink` from the last completed sync. */
export const sharepointCursor = z.object({ delta_links: z.record(z.string(), z.string()) });
export type SharepointCursor = z.infer<typeof sharepointCursor>;

/**
 * Where a sync is: resolving sites (configured refs one per page, or pages of the site search), listing each site's
 * drives (then the OneDrive), then paging each drive's delta feed.
 */
export const sharepointPage = z.object({
  mode: z.enum(['full', 'incremental']),
  phase: z.enum(['sites', 'drives', 'items']),
  /** Configured sites still to resolve: `id:<site id>` or `url:<site URL>`. */
  pending: z.array(z.string()),
  /** Listing every site: the next search page (null = the first). */
  listing: z.boolean(),
  site_link: z.string().nullable(),
  sites: z.array(siteRef),
  site_index: z.number().int(),
  drives: z.array(driveRef),
  drive_index: z.number().int(),
  /** The current drive's next delta request (null = start it). */
  link: z.string().nullable(),
  /** deltaLinks from the previous sync (incremental start points) and the ones this run reached. */
  tokens: z.record(z.string(), z.string()),
  reached: z.record(z.string(), z.string()),
  /** The current drive's folder id → path, as its delta feed named them. */
  folders: z.record(z.string(), z.string()),
});
export type SharepointPage = z.infer<typeof sharepointPage>;

const cursorOf = (p: SharepointPage): SharepointCursor => {
  const links: Record<string, string> = {};
  for (const d of p.drives) {
    const link = p.reached[d.id] ?? p.tokens[d.id];
    if (link) links[d.id] = link;
  }
  return { delta_links: links };
};

const empty = (p: SharepointPage, next: SharepointPage | null): Page<SharepointPage, SharepointCursor> => ({ documents: [], next, cursor: cursorOf(next ?? p) });

const toSite = (s: GraphSite): SiteRef => ({ id: s.id, name: s.displayName ?? s.name ?? null, webUrl: s.webUrl ?? null });

const toDrive = (d: GraphDrive, site: SiteRef | null): DriveRef => ({
  id: d.id,
  name: d.name ?? d.id,
  webUrl: d.webUrl ?? null,
  driveType: d.driveType ?? null,
  siteId: site?.id ?? null,
  siteName: site?.name ?? null,
  owner: site ? null : (userRef(d.owner) ?? null),
});

/** A site id in a path: Graph's ids are `hostname,site-collection-id,web-id`, commas kept as its examples show. */
const siteSegment = (id: string): string => encodeURIComponent(id).replace(/%2C/gi, ',');

/** `https://contoso.sharepoint.com/sites/marketing` → `/sites/contoso.sharepoint.com:/sites/marketing` (the root site: `/sites/<host>`). */
export function sitePathFromUrl(siteUrl: string): string {
  const u = new URL(siteUrl);
  const rel = u.pathname.replace(/\/+$/, '');
  return rel ? `/sites/${u.hostname}:${rel}` : `/sites/${u.hostname}`;
}

/** A configured site (`id:<site id>` or `url:<site URL>`) as Graph names it; one that does not resolve is a settings error. */
export async function resolveSite(ctx: Ctx, ref: string): Promise<SiteRef> {
  const [kind, value] = [ref.slice(0, ref.indexOf(':')), ref.slice(ref.indexOf(':') + 1)];
  const path = kind === 'url' ? sitePathFromUrl(value) : `/sites/${siteSegment(value)}`;
  try {
    return toSite(await graphGet(ctx, path, graphSite));
  } catch (err) {
    if (err instanceof VendorHttpError && (err.status === 404 || err.status === 400)) {
      // A configured site that does not resolve: the settings are wrong, not the credentials.
      throw new SourceSettingsError(`${kind === 'url' ? 'site_urls' : 'site_ids'}: Microsoft Graph has no site ${value} readable with these credentials (HTTP ${err.status})`);
    }
    throw err;
  }
}

async function readSites(ctx: Ctx, p: SharepointPage): Promise<Page<SharepointPage, SharepointCursor>> {
  const [ref, ...rest] = p.pending;
  if (ref !== undefined) {
    const site = await resolveSite(ctx, ref);
    const sites = p.sites.some((s) => s.id === site.id) ? p.sites : [...p.sites, site];
    return empty(p, { ...p, pending: rest, sites, phase: rest.length === 0 && !p.listing ? 'drives' : 'sites' });
  }
  if (p.listing) {
    const r = await graphGet(ctx, p.site_link ?? '/sites', collection(graphSite), p.site_link ? undefined : { search: '*' });
    const known = new Set(p.sites.map((s) => s.id));
    const sites = [...p.sites, ...r.value.filter((s) => !known.has(s.id)).map(toSite)];
    const next = r['@odata.nextLink'] ?? null;
    return empty(p, { ...p, sites, site_link: next, listing: next !== null, phase: next ? 'sites' : 'drives' });
  }
  return empty(p, { ...p, phase: 'drives' });
}

async function readDrives(ctx: Ctx, p: SharepointPage): Promise<Page<SharepointPage, SharepointCursor>> {
  const known = new Set(p.drives.map((d) => d.id));
  const add: DriveRef[] = [];
  const site = p.sites[p.site_index];
  if (site) {
    let link: string | null = `/sites/${siteSegment(site.id)}/drives`;
    const listed: GraphDrive[] = [];
    while (link) {
      const r: { value: GraphDrive[]; '@odata.nextLink'?: string } = await graphGet(ctx, link, collection(graphDrive));
      listed.push(...r.value);
      for (const d of r.value) {
        if (known.has(d.id)) continue;
        known.add(d.id);
        add.push(toDrive(d, site));
      }
      link = r['@odata.nextLink'] ?? null;
    }
    // The site's members (its Microsoft 365 group), re-read on every sync.
    const members = await readSiteMembers(ctx, site.id, listed);
    return { ...empty(p, { ...p, drives: [...p.drives, ...add], site_index: p.site_index + 1 }), ...members };
  }
  // App-only tokens have no /me: the OneDrive is a delegated (OAuth) feature.
  if (ctx.settings.include_onedrive && !appOnly(ctx.credentials)) {
    try {
      const d = await graphGet(ctx, '/me/drive', graphDrive);
      if (!known.has(d.id)) add.push(toDrive(d, null));
    } catch (err) {
      // A user without a OneDrive license (or whose OneDrive is not provisioned) answers 404: sites still sync.
      if (!(err instanceof VendorHttpError && err.status === 404)) throw err;
      ctx.log.info({ connectorId: ctx.connectorId }, 'the signed-in user has no OneDrive; syncing sites only');
    }
  }
  return empty(p, { ...p, drives: [...p.drives, ...add], phase: 'items', drive_index: 0, link: null, folders: {} });
}

function wanted(item: DriveItem, settings: SharepointSettings): boolean {
  if (!item.name) return false;
  if (!settings.file_extensions.includes(extensionOf(item.name))) return false;
  return (item.size ?? 0) <= settings.max_file_size_mb * 1024 * 1024;
}

async function readItems(ctx: Ctx, p: SharepointPage): Promise<Page<SharepointPage, SharepointCursor>> {
  const drive = p.drives[p.drive_index];
  if (!drive) return { documents: [], next: null, cursor: cursorOf(p) };
  const base = graphBase(ctx);
  const startLink = `${base}/drives/${encodeURIComponent(drive.id)}/root/delta?$top=${DELTA_PAGE_SIZE}`;
  const url = p.link ?? (p.mode === 'incremental' ? p.tokens[drive.id] : undefined) ?? startLink;
  const nextDrive = (q: SharepointPage): SharepointPage => ({ ...q, drive_index: q.drive_index + 1, link: null, folders: {} });
  const answer = await deltaRequest(ctx, url);
  if (answer.kind === 'gone') {
    ctx.log.warn({ connectorId: ctx.connectorId, driveId: drive.id }, 'drive no longer exists; skipping it');
    return empty(p, nextDrive(p));
  }
  if (answer.kind === 'resync') {
    // The stored token expired: Graph starts a fresh enumeration of the drive. Its items are upserted again; what was
    // deleted meanwhile is removed by the next full sync.
    ctx.log.warn({ connectorId: ctx.connectorId, driveId: drive.id }, 'delta token expired (410); re-enumerating the drive');
    return empty(p, { ...p, link: answer.location ? onBase(base, answer.location) : startLink, folders: {} });
  }
  const r = collection(driveItem).safeParse(answer.body);
  if (!r.success) throw new Error(`Microsoft Graph answered an unexpected delta page for drive ${drive.id}: ${r.error.issues[0]?.message ?? ''}`);
  // The same item may appear more than once in a feed: the last occurrence is its state.
  const items = [...new Map(r.data.value.map((i) => [i.id, i])).values()];
  const folders = { ...p.folders };
  const documents: SourceDocument[] = [];
  const deleted: string[] = [];
  const skipped: { external_id: string; reason: string }[] = [];
  for (const item of items) {
    const id = itemExternalId(drive.id, item.id);
    if (item.deleted) {
      deleted.push(id);
      continue;
    }
    if (item.root) {
      folders[item.id] = '';
      continue;
    }
    if (item.folder) {
      const folderPath = itemPath(item, drive, folders);
      if (folderPath !== null && Object.keys(folders).length < MAX_FOLDERS) folders[item.id] = folderPath;
      continue;
    }
    if (!item.file) continue;
    // Renamed to another extension or grown past the limit: a stored copy goes.
    if (!wanted(item, ctx.settings)) {
      deleted.push(id);
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = await downloadItem(ctx, drive.id, item.id);
    } catch (err) {
      // A refused download URL or an item gone since the feed was read: skipped now, the next delta says more.
      if (!(err instanceof VendorHttpError) || err.transient) throw err;
      skipped.push({ external_id: id, reason: err.message.slice(0, 200) });
      continue;
    }
    let content: string;
    try {
      content = (await parseFile(item.name ?? '', bytes)).content;
    } catch (err) {
      skipped.push({ external_id: id, reason: `could not parse: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}` });
      continue;
    }
    documents.push(itemToDocument(item, drive, content, itemPath(item, drive, folders)));
  }
  const nextLink = r.data['@odata.nextLink'];
  const deltaLink = r.data['@odata.deltaLink'];
  let next: SharepointPage;
  if (nextLink) next = { ...p, link: onBase(base, nextLink), folders };
  else next = nextDrive({ ...p, reached: deltaLink ? { ...p.reached, [drive.id]: deltaLink } : p.reached });
  return { documents, deleted, skipped, next: next.drive_index < next.drives.length ? next : null, cursor: cursorOf(next) };
}

async function readPage(ctx: Ctx, p: SharepointPage): Promise<Page<SharepointPage, SharepointCursor>> {
  if (p.phase === 'sites') return readSites(ctx, p);
  if (p.phase === 'drives') return readDrives(ctx, p);
  return readItems(ctx, p);
}

/** The configured sites as `id:` / `url:` refs (empty: every site the search finds). */
export const configuredSites = (settings: SharepointSettings): string[] => [
  ...(settings.site_ids ?? []).map((id) => `id:${id}`),
  ...(settings.site_urls ?? []).map((u) => `url:${u}`),
];

export const sharepointSync: SyncCapability<SharepointCredentials, SharepointSettings, SharepointCursor, SharepointPage> = {
  cursorSchema: sharepointCursor,
  pageSchema: sharepointPage,
  start(mode: SyncMode, since: SharepointCursor | null, settings: SharepointSettings): SharepointPage {
    const configured = configuredSites(settings);
    const listing = settings.include_sites && configured.length === 0 && !settings.site_ids && !settings.site_urls;
    const pending = settings.include_sites ? configured : [];
    return {
      mode,
      phase: pending.length > 0 || listing ? 'sites' : 'drives',
      pending,
      listing,
      site_link: null,
      sites: [],
      site_index: 0,
      drives: [],
      drive_index: 0,
      link: null,
      tokens: mode === 'incremental' ? (since?.delta_links ?? {}) : {},
      reached: {},
      folders: {},
    };
  },
  readPage,
};
