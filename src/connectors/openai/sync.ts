import { z } from 'zod';
import type { Page, SourceDocument, SourceIdentities, SyncCapability, SyncMode, UsageRecord } from '../kit/index.ts';
import { type OpenAICtx, openaiGet } from './client.ts';
import { apiKeyExternalId, apiKeyToDocument, auditToDocument, dayOf, openaiAccount, projectExternalId, projectToDocument, serviceAccountExternalId, serviceAccountToDocument, userExternalId, userToDocument } from './map.ts';
import type { OpenAICredentials, OpenAISettings, UsageType } from './schemas.ts';
import { costRecord, type UsageGroup, usageExternalId, usageRecord, usageToDocument } from './usage.ts';
import { directory, emptyDirectory, openaiAuditLog, openaiProject, openaiProjectKey, openaiServiceAccount, openaiUser, type UsageResult, usageBucket } from './wire.ts';

/** Objects per page of OpenAI's list endpoints (their maximum). */
const LIST_LIMIT = 100;
/** Days of usage read per sync page: one request per report (daily buckets, `limit` ≤ 31) unless OpenAI pages them. */
const CHUNK_DAYS = 31;
const DAY_MS = 86_400_000;
/** How each report can be grouped (the API refuses dimensions a report does not have). */
const GROUP_BY: Record<UsageType, readonly string[]> = {
  completions: ['project_id', 'user_id', 'api_key_id', 'model'],
  embeddings: ['project_id', 'user_id', 'api_key_id', 'model'],
  images: ['project_id', 'user_id', 'api_key_id', 'model'],
  audio_speeches: ['project_id', 'user_id', 'api_key_id', 'model'],
  audio_transcriptions: ['project_id', 'user_id', 'api_key_id', 'model'],
  moderations: ['project_id', 'user_id', 'api_key_id', 'model'],
  vector_stores: ['project_id'],
};
const COST_GROUP_BY = ['project_id', 'line_item', 'api_key_id'];

export const openaiPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['users', 'projects', 'project_keys', 'project_service_accounts', 'usage', 'audit']),
  /** The list cursor (`after`) of the current listing, or null for its first page. */
  after: z.string().nullable(),
  dir: directory,
  /** Active projects whose keys and service accounts are listed, and the one being listed. */
  projectIds: z.array(z.string()),
  projectIndex: z.number().int().min(0),
  /** The organization the key belongs to (`openai-organization` answer header). */
  organization: z.string().nullable(),
  /** The stored cursor this sync started from. */
  since: z.object({ through: z.string(), audit_since: z.number() }).nullable(),
  /** The usage window: first and last UTC day read (the last is today, partial); null until the first page sets it. */
  windowStart: z.string().nullable(),
  windowEnd: z.string().nullable(),
  /** The first day of the usage chunk read next. */
  chunk: z.string().nullable(),
  /** Audit events from this time (unix seconds, inclusive), and the latest `effective_at` read. */
  auditSince: z.number().nullable(),
  auditMax: z.number().nullable(),
});
export type OpenAIPage = z.infer<typeof openaiPage>;

/**
 * `through`: the last complete UTC day read (the next incremental sync reads again from `overlap_days` before the day
 * after it); `audit_since`: the latest audit event time read (inclusive: the boundary event is read again, unchanged).
 */
export const openaiCursor = z.object({ through: z.string(), audit_since: z.number() });
export type OpenAICursor = z.infer<typeof openaiCursor>;

const addDays = (day: string, days: number): string => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
const unixOf = (day: string): number => Date.parse(`${day}T00:00:00Z`) / 1000;
const minDay = (a: string, b: string | null | undefined): string => (b && b < a ? b : a);

function cursorOf(p: OpenAIPage): OpenAICursor | null {
  if (!p.windowEnd || p.auditSince === null) return p.since;
  return { through: addDays(p.windowEnd, -1), audit_since: Math.max(p.auditMax ?? p.auditSince, p.since?.audit_since ?? 0) };
}

const listShape = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), has_more: z.boolean().optional(), last_id: z.string().nullable().optional() });

/** One page of an `after`-paged list endpoint: its items and the next `after`, or null after the last page. */
async function listPage<T extends z.ZodType>(ctx: OpenAICtx, path: string, item: T, after: string | null, query: Record<string, string | number | boolean | readonly string[]> = {}) {
  const { body, organization } = await openaiGet<unknown>(ctx, path, { limit: LIST_LIMIT, ...query, ...(after ? { after } : {}) });
  const page = listShape(item).parse(body);
  const items = page.data as z.infer<T>[];
  const last = page.last_id ?? (items.at(-1) as { id?: string } | undefined)?.id ?? null;
  return { items, next: page.has_more && last ? last : null, organization };
}

/** External ids stored under `prefix` that this sync's listing no longer has (incremental syncs; a full sync sweeps). */
async function vanished(ctx: OpenAICtx, prefix: string, listed: Iterable<string>): Promise<string[]> {
  const seen = new Set([...listed].map((id) => `${prefix}${id}`));
  return (await ctx.stored(prefix)).map((r) => r.external_id).filter((id) => !seen.has(id));
}

/** The first page: the usage window (full: `lookback_days`, and never after the oldest day stored; incremental: from the cursor less `overlap_days`). */
async function setWindow(ctx: OpenAICtx, p: OpenAIPage): Promise<OpenAIPage> {
  const today = dayOf(Math.floor(ctx.now.getTime() / 1000));
  const lookback = addDays(today, -ctx.settings.lookback_days);
  let start: string;
  let auditSince: number;
  if (p.mode === 'incremental' && p.since) {
    start = minDay(today, addDays(p.since.through, 1 - ctx.settings.overlap_days));
    auditSince = p.since.audit_since;
  } else {
    // A full sync reads again everything stored (its sweep would otherwise drop days older than the look-back).
    const oldestUsage = (await ctx.stored('usage:')).map((r) => String(r.metadata.day ?? '')).filter(Boolean).sort()[0];
    start = minDay(lookback, oldestUsage);
    const oldestAudit = Math.min(...(await ctx.stored('audit:')).map((r) => Number(r.metadata.effective_at)).filter(Number.isFinite));
    auditSince = Math.min(unixOf(lookback), oldestAudit);
  }
  return { ...p, windowStart: start, windowEnd: today, chunk: start, auditSince };
}

/** After the directory: the usage chunks, else the audit log, else the end. */
function afterDirectory(ctx: OpenAICtx, p: OpenAIPage): OpenAIPage | null {
  if (ctx.settings.usage_types.length || ctx.settings.include_costs) return { ...p, phase: 'usage', after: null };
  return ctx.settings.include_audit_logs ? { ...p, phase: 'audit', after: null } : null;
}

async function usersPage(ctx: OpenAICtx, p0: OpenAIPage): Promise<Page<OpenAIPage, OpenAICursor>> {
  const p = p0.windowStart ? p0 : await setWindow(ctx, p0);
  const r = await listPage(ctx, '/organization/users', openaiUser, p.after);
  const users = { ...p.dir.users };
  for (const u of r.items) users[u.id] = { email: u.email ? u.email.toLowerCase() : null, name: u.name ?? null };
  const here: OpenAIPage = { ...p, dir: { ...p.dir, users }, organization: p.organization ?? r.organization ?? ctx.settings.organization ?? null };
  const emit = ctx.settings.include_directory;
  const identities: SourceIdentities = { accounts: r.items.map((u) => ({ account_id: openaiAccount(u.id), email: u.email ? u.email.toLowerCase() : null, display_name: u.name ?? null })) };
  const deleted = emit && !r.next && p.mode === 'incremental' ? await vanished(ctx, userExternalId(''), Object.keys(users)) : [];
  const next: OpenAIPage = r.next ? { ...here, after: r.next } : { ...here, phase: 'projects', after: null };
  return { documents: emit ? r.items.map(userToDocument) : [], ...(emit ? { identities } : {}), deleted, next, cursor: cursorOf(here) };
}

async function projectsPage(ctx: OpenAICtx, p: OpenAIPage): Promise<Page<OpenAIPage, OpenAICursor>> {
  const r = await listPage(ctx, '/organization/projects', openaiProject, p.after, { include_archived: true });
  const projects = { ...p.dir.projects };
  for (const x of r.items) projects[x.id] = x.name ?? x.id;
  // Archived projects' keys no longer work: only active projects' keys and service accounts are listed.
  const projectIds = [...p.projectIds, ...r.items.filter((x) => (x.status ?? (x.archived_at ? 'archived' : 'active')) !== 'archived').map((x) => x.id)];
  const here: OpenAIPage = { ...p, dir: { ...p.dir, projects }, projectIds };
  const emit = ctx.settings.include_directory;
  const deleted = emit && !r.next && p.mode === 'incremental' ? await vanished(ctx, projectExternalId(''), Object.keys(projects)) : [];
  let next: OpenAIPage | null;
  if (r.next) next = { ...here, after: r.next };
  else next = projectIds.length ? { ...here, phase: 'project_keys', projectIndex: 0, after: null } : afterDirectory(ctx, here);
  return { documents: emit ? r.items.map(projectToDocument) : [], deleted, next, cursor: cursorOf(here) };
}

/** Deletions of keys and service accounts once every project was listed (incremental syncs). */
async function directoryDeletions(ctx: OpenAICtx, p: OpenAIPage): Promise<string[]> {
  if (!ctx.settings.include_directory || p.mode !== 'incremental') return [];
  return [...(await vanished(ctx, apiKeyExternalId(''), Object.keys(p.dir.keys))), ...(await vanished(ctx, serviceAccountExternalId(''), Object.keys(p.dir.serviceAccounts)))];
}

async function projectItemsPage(ctx: OpenAICtx, p: OpenAIPage): Promise<Page<OpenAIPage, OpenAICursor>> {
  const projectId = p.projectIds[p.projectIndex];
  if (!projectId) {
    const next = afterDirectory(ctx, p);
    return { documents: [], deleted: await directoryDeletions(ctx, p), next, cursor: cursorOf(p) };
  }
  const project = { id: projectId, name: p.dir.projects[projectId] ?? projectId };
  const emit = ctx.settings.include_directory;
  let here: OpenAIPage;
  let documents: SourceDocument[];
  let identities: SourceIdentities | undefined;
  let more: string | null;
  if (p.phase === 'project_keys') {
    const r = await listPage(ctx, `/organization/projects/${encodeURIComponent(projectId)}/api_keys`, openaiProjectKey, p.after);
    const keys = { ...p.dir.keys };
    for (const k of r.items) {
      const owner = k.owner?.user?.email?.toLowerCase() ?? k.owner?.user?.name ?? (k.owner?.service_account ? `service account ${k.owner.service_account.name ?? k.owner.service_account.id}` : null);
      keys[k.id] = { redacted: k.redacted_value, name: k.name ?? null, owner: owner ?? null, project: projectId };
    }
    here = { ...p, dir: { ...p.dir, keys } };
    documents = emit ? r.items.map((k) => apiKeyToDocument(k, project)) : [];
    more = r.next;
  } else {
    const r = await listPage(ctx, `/organization/projects/${encodeURIComponent(projectId)}/service_accounts`, openaiServiceAccount, p.after);
    const serviceAccounts = { ...p.dir.serviceAccounts };
    for (const s of r.items) serviceAccounts[s.id] = s.name ?? s.id;
    here = { ...p, dir: { ...p.dir, serviceAccounts } };
    documents = emit ? r.items.map((s) => serviceAccountToDocument(s, project)) : [];
    identities = emit ? { accounts: r.items.map((s) => ({ account_id: openaiAccount(s.id), email: null, display_name: s.name ?? null })) } : undefined;
    more = r.next;
  }
  let next: OpenAIPage | null;
  let deleted: string[] = [];
  if (more) next = { ...here, after: more };
  else if (p.phase === 'project_keys') next = { ...here, phase: 'project_service_accounts', after: null };
  else if (p.projectIndex + 1 < p.projectIds.length) next = { ...here, phase: 'project_keys', projectIndex: p.projectIndex + 1, after: null };
  else {
    deleted = await directoryDeletions(ctx, here);
    next = afterDirectory(ctx, here);
  }
  return { documents, ...(identities ? { identities } : {}), deleted, next, cursor: cursorOf(here) };
}

/** Every bucket of one report over [start, end), following `next_page`. */
async function readBuckets(ctx: OpenAICtx, path: string, query: Record<string, string | number | readonly string[]>): Promise<{ day: string; result: UsageResult }[]> {
  const out: { day: string; result: UsageResult }[] = [];
  let page: string | null = null;
  for (let i = 0; i < 1000; i++) {
    const { body } = await openaiGet<unknown>(ctx, path, { ...query, ...(page ? { page } : {}) });
    const r = z.object({ data: z.array(usageBucket), has_more: z.boolean().optional(), next_page: z.string().nullable().optional() }).parse(body);
    for (const b of r.data) for (const result of b.results) out.push({ day: dayOf(b.start_time), result });
    page = r.has_more && r.next_page ? r.next_page : null;
    if (!page) break;
  }
  return out;
}

const hasUsage = (r: UsageResult): boolean =>
  [r.num_model_requests, r.input_tokens, r.output_tokens, r.images, r.characters, r.seconds, r.usage_bytes].some((v) => typeof v === 'number' && v !== 0);

/** One chunk of days: every report and the costs, as `ai_usage` rows and one document per day, project and key. */
async function usagePage(ctx: OpenAICtx, p: OpenAIPage): Promise<Page<OpenAIPage, OpenAICursor>> {
  const first = p.chunk ?? p.windowStart;
  const lastDay = p.windowEnd;
  if (!first || !lastDay || first > lastDay) return { documents: [], next: ctx.settings.include_audit_logs ? { ...p, phase: 'audit', after: null } : null, cursor: cursorOf(p) };
  const end = minDay(addDays(first, CHUNK_DAYS - 1), lastDay);
  const startTime = unixOf(first);
  // The last chunk ends now (today's bucket is partial and read again next time); earlier chunks at midnight.
  const endTime = end === lastDay ? Math.max(startTime + 1, Math.floor(ctx.now.getTime() / 1000)) : unixOf(addDays(end, 1));
  const days = Math.round((unixOf(end) - startTime) / 86_400) + 1;
  const window = { start_time: startTime, end_time: endTime, bucket_width: '1d', limit: days };
  const records: UsageRecord[] = [];
  const groups = new Map<string, UsageGroup>();
  const group = (day: string, r: UsageResult): UsageGroup => {
    const id = usageExternalId(day, r.project_id, r.api_key_id);
    let g = groups.get(id);
    if (!g) {
      g = { day, projectId: r.project_id ?? null, apiKeyId: r.api_key_id ?? null, usage: [], costs: [] };
      groups.set(id, g);
    }
    return g;
  };
  const workspace = p.organization ?? ctx.settings.organization ?? null;
  for (const type of ctx.settings.usage_types) {
    for (const { day, result } of await readBuckets(ctx, `/organization/usage/${type}`, { ...window, group_by: GROUP_BY[type] })) {
      if (!hasUsage(result)) continue;
      records.push(usageRecord(type, day, result, p.dir, workspace));
      group(day, result).usage.push({ type, result });
    }
  }
  if (ctx.settings.include_costs) {
    for (const { day, result } of await readBuckets(ctx, '/organization/costs', { ...window, group_by: COST_GROUP_BY })) {
      if (!result.amount?.value) continue;
      records.push(costRecord(day, result, p.dir, workspace));
      group(day, result).costs.push(result);
    }
  }
  const documents = [...groups.values()].sort((a, b) => (a.day === b.day ? 0 : a.day < b.day ? -1 : 1)).map((g) => usageToDocument(g, p.dir));
  // A group OpenAI no longer reports for a re-read day (a revised bucket) leaves the index; a full sync sweeps instead.
  const seen = new Set(documents.map((d) => d.external_id));
  const deleted =
    p.mode === 'incremental'
      ? (await ctx.stored('usage:'))
          .filter((r) => {
            const day = String(r.metadata.day ?? '');
            return day >= first && day <= end && !seen.has(r.external_id);
          })
          .map((r) => r.external_id)
      : [];
  const nextDay = addDays(end, 1);
  const next: OpenAIPage | null = nextDay <= lastDay ? { ...p, chunk: nextDay } : ctx.settings.include_audit_logs ? { ...p, chunk: nextDay, phase: 'audit', after: null } : null;
  return { documents, usage: records, deleted, next, cursor: cursorOf(p) };
}

/** Audit events since the cursor (newest first, paged by `after`). */
async function auditPage(ctx: OpenAICtx, p: OpenAIPage): Promise<Page<OpenAIPage, OpenAICursor>> {
  const since = p.auditSince ?? unixOf(p.windowStart ?? dayOf(Math.floor(ctx.now.getTime() / 1000)));
  const r = await listPage(ctx, '/organization/audit_logs', openaiAuditLog, p.after, { 'effective_at[gte]': since });
  const documents = r.items.map((e) => auditToDocument(e, p.dir));
  const auditMax = r.items.reduce((m, e) => Math.max(m, e.effective_at), p.auditMax ?? since);
  const here: OpenAIPage = { ...p, auditMax };
  return { documents, next: r.next ? { ...here, after: r.next } : null, cursor: cursorOf(here) };
}

async function readPage(ctx: OpenAICtx, p: OpenAIPage): Promise<Page<OpenAIPage, OpenAICursor>> {
  switch (p.phase) {
    case 'users':
      return usersPage(ctx, p);
    case 'projects':
      return projectsPage(ctx, p);
    case 'project_keys':
    case 'project_service_accounts':
      return projectItemsPage(ctx, p);
    case 'usage':
      return usagePage(ctx, p);
    case 'audit':
      return auditPage(ctx, p);
  }
}

export const openaiSync: SyncCapability<OpenAICredentials, OpenAISettings, OpenAICursor, OpenAIPage> = {
  cursorSchema: openaiCursor,
  pageSchema: openaiPage,
  start(mode: SyncMode, since: OpenAICursor | null): OpenAIPage {
    return {
      mode,
      phase: 'users',
      after: null,
      dir: emptyDirectory(),
      projectIds: [],
      projectIndex: 0,
      organization: null,
      since: mode === 'incremental' ? since : null,
      windowStart: null,
      windowEnd: null,
      chunk: null,
      auditSince: null,
      auditMax: null,
    };
  },
  readPage,
};

