import { z } from 'zod';
import type { Page, SyncCapability, SyncMode } from '../kit/index.ts';
import { crmUrl, getCurrentUser, listAnswer, type ZohoCtx, zohoGet } from './client.ts';
import { externalId, recordToDocument } from './map.ts';
import type { ZohoCredentials, ZohoSettings } from './schemas.ts';

/** The most records a v2 list answers per page. */
const PER_PAGE = 200;

export const zohoPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'records', 'deleted']),
  /** Zoho's clock when this sync started (HTTP Date of the setup call): the next If-Modified-Since. */
  serverStart: z.string().nullable(),
  /** Incremental: the If-Modified-Since of this sync; null = read everything. */
  since: z.string().nullable(),
  moduleIndex: z.number().int(),
  page: z.number().int().min(1),
});
export type ZohoPage = z.infer<typeof zohoPage>;
export const zohoCursor = z.object({ since: z.string() });
export type ZohoCursor = z.infer<typeof zohoCursor>;

const cursorOf = (p: ZohoPage): ZohoCursor | null => (p.serverStart ? { since: p.serverStart } : p.since ? { since: p.since } : null);
const incremental = (p: ZohoPage) => p.mode === 'incremental' && p.since !== null;

/** The next module of this phase, then (incremental) the deleted lists, then the end. */
function advance(p: ZohoPage, modules: number): ZohoPage | null {
  if (p.moduleIndex + 1 < modules) return { ...p, moduleIndex: p.moduleIndex + 1, page: 1 };
  if (p.phase === 'records' && incremental(p)) return { ...p, phase: 'deleted', moduleIndex: 0, page: 1 };
  return null;
}

async function readPage(ctx: ZohoCtx, p: ZohoPage): Promise<Page<ZohoPage, ZohoCursor>> {
  if (p.phase === 'setup') {
    const { serverTime } = await getCurrentUser(ctx);
    return { documents: [], next: { ...p, phase: 'records', serverStart: serverTime ?? ctx.now.toISOString() }, cursor: cursorOf(p) };
  }
  const modules = ctx.settings.modules;
  const module = modules[p.moduleIndex];
  if (!module) return { documents: [], next: null, cursor: cursorOf(p) };
  const since = incremental(p) ? p.since : null;
  if (p.phase === 'records') {
    // v2 list: page/per_page with info.more_records; If-Modified-Since limits it to records modified after the cursor (304 = none).
    const r = await zohoGet<unknown>(ctx, `/crm/v2/${module}`, { query: { page: p.page, per_page: PER_PAGE, sort_by: 'Modified_Time', sort_order: 'asc' }, ifModifiedSince: since });
    const answer = listAnswer.parse(r.body ?? {});
    const crm = crmUrl(ctx.settings, ctx.credentials.api_domain);
    const documents = answer.data.map((x) => recordToDocument(module, x, crm));
    const next = answer.info?.more_records ? { ...p, page: p.page + 1 } : advance(p, modules.length);
    return { documents, next, cursor: cursorOf(p) };
  }
  // Deleted records (recycle bin and permanently deleted) since the cursor.
  const r = await zohoGet<unknown>(ctx, `/crm/v2/${module}/deleted`, { query: { type: 'all', page: p.page, per_page: PER_PAGE }, ifModifiedSince: since });
  const answer = listAnswer.parse(r.body ?? {});
  const deleted = answer.data.map((x) => String(x.id ?? '')).filter(Boolean).map((id) => externalId(module, id));
  const next = answer.info?.more_records ? { ...p, page: p.page + 1 } : advance(p, modules.length);
  return { documents: [], deleted, next, cursor: cursorOf(p) };
}

export const zohoSync: SyncCapability<ZohoCredentials, ZohoSettings, ZohoCursor, ZohoPage> = {
  cursorSchema: zohoCursor,
  pageSchema: zohoPage,
  start(mode: SyncMode, since: ZohoCursor | null): ZohoPage {
    return { mode, phase: 'setup', serverStart: null, since: mode === 'incremental' ? (since?.since ?? null) : null, moduleIndex: 0, page: 1 };
  },
  readPage,
};
