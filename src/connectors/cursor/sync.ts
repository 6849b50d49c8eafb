import { z } from 'zod';
import type { Page, SourceContext, SourceDocument, SyncCapability, SyncMode, UsageRecord } from '../kit/index.ts';
import { cursorApi } from './client.ts';
import { activityToDocument, addEvent, type CDaily, type CEvent, type Cell, type CMember, type CSpend, cellResult, memberToDocument } from './map.ts';
import type { CursorCredentials, CursorSettings } from './schemas.ts';

type Ctx = SourceContext<CursorCredentials, CursorSettings>;

/**
 * The sync: team members (with their billing-cycle spend), then per window chunk of at most 30 days the members' daily
 * activity and the usage events, summed per day × member × model. A full sync reads the last `lookback_days`; an
 * incremental one from `overlap_days` before the cursor (the last complete day read) to yesterday: Cursor aggregates
 * hourly and revises recent days, and re-reads replace documents and `ai_usage` rows by their ids.
 */
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
export const cursorCursor = z.object({ last_complete_day: day });
export type CursorCursor = z.infer<typeof cursorCursor>;

const PHASES = ['members', 'spend', 'activity', 'events'] as const;

const cell = z.object({
  day,
  email: z.string(),
  model: z.string(),
  requests: z.number(),
  request_units: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_write_tokens: z.number(),
  cache_read_tokens: z.number(),
  cents: z.number(),
  kinds: z.array(z.string()),
});

export const cursorPage = z.object({
  mode: z.enum(['full', 'incremental']),
  phase: z.enum(PHASES),
  since: day.nullable(),
  from: day.nullable(),
  to: day.nullable(),
  /** The first day of the window chunk being read, and the 1-based page of a paged endpoint. */
  chunk: day.nullable(),
  page: z.number().int().min(1),
  members: z.record(z.string(), z.object({ name: z.string(), role: z.string() })),
  spend: z.record(z.string(), z.object({ spendCents: z.number(), fastPremiumRequests: z.number().optional(), hardLimitOverrideDollars: z.number().nullable().optional() })),
  cycleStart: z.number().nullable(),
  cells: z.record(z.string(), cell),
});
export type CursorPage = z.infer<typeof cursorPage>;

/** Days per request: Cursor caps the date range of its usage endpoints (daily usage 90 days, usage events 30 days). */
const CHUNK_DAYS = 30;
const EVENTS_PAGE_SIZE = 500;
const SPEND_PAGE_SIZE = 100;

export function addDays(d: string, n: number): string {
  return new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}
const ms = (d: string) => Date.parse(`${d}T00:00:00Z`);

const cursorOf = (p: CursorPage): CursorCursor | null => (p.to ? { last_complete_day: addDays(p.to, -1) } : p.since ? { last_complete_day: p.since } : null);
const names = (p: CursorPage) => Object.fromEntries(Object.entries(p.members).map(([email, m]) => [email, m.name]));

function nextPhase(p: CursorPage): CursorPage | null {
  const phase = PHASES[PHASES.indexOf(p.phase) + 1];
  return phase ? { ...p, phase, page: 1, chunk: p.from } : null;
}

/** The window of complete UTC days, `[from, to)`: `to` is today (its usage is still arriving). */
function withWindow(ctx: Ctx, p: CursorPage): CursorPage {
  if (p.from && p.to) return p;
  const to = ctx.now.toISOString().slice(0, 10);
  const earliest = addDays(to, -ctx.settings.lookback_days);
  const resume = p.mode === 'incremental' && p.since ? addDays(p.since, 1 - ctx.settings.overlap_days) : earliest;
  // The resume day clamped into [earliest, to] (ISO days sort as strings).
  const from = [earliest, resume, to].sort()[1] ?? earliest;
  return { ...p, from, to, chunk: from };
}

/** The chunk being read, `[start, end)`, or null when the window is done. */
function chunkOf(p: CursorPage): { start: string; end: string } | null {
  if (!p.chunk || !p.to || p.chunk >= p.to) return null;
  // The earlier of the chunk's end and the window's (ISO days sort as strings).
  const end = [addDays(p.chunk, CHUNK_DAYS), p.to].sort()[0] ?? p.to;
  return { start: p.chunk, end };
}

/** `endDate` is the last millisecond of the chunk: whether Cursor treats it as inclusive or not, today stays out. */
const range = (c: { start: string; end: string }) => ({ startDate: ms(c.start), endDate: ms(c.end) - 1 });

async function readMembers(ctx: Ctx, p: CursorPage): Promise<Page<CursorPage, CursorCursor>> {
  const r = await cursorApi<{ teamMembers: CMember[] }>(ctx, 'teams/members');
  const members = Object.fromEntries(r.teamMembers.map((m) => [m.email.toLowerCase(), { name: m.name, role: m.role }]));
  const identities = { accounts: r.teamMembers.map((m) => ({ account_id: `cursor:${m.email.toLowerCase()}`, email: m.email.toLowerCase(), display_name: m.name })) };
  return { documents: [], identities, next: nextPhase({ ...withWindow(ctx, p), members }), cursor: cursorOf(p) };
}

async function readSpend(ctx: Ctx, p: CursorPage): Promise<Page<CursorPage, CursorCursor>> {
  const r = await cursorApi<{ teamMemberSpend: CSpend[]; subscriptionCycleStart?: number; totalPages?: number }>(ctx, 'teams/spend', { page: p.page, pageSize: SPEND_PAGE_SIZE });
  const spend = { ...p.spend };
  for (const s of r.teamMemberSpend) spend[s.email.toLowerCase()] = { spendCents: s.spendCents, fastPremiumRequests: s.fastPremiumRequests, hardLimitOverrideDollars: s.hardLimitOverrideDollars ?? null };
  const next = { ...p, spend, cycleStart: r.subscriptionCycleStart ?? p.cycleStart };
  if ((r.totalPages ?? 1) > p.page && r.teamMemberSpend.length > 0) return { documents: [], next: { ...next, page: p.page + 1 }, cursor: cursorOf(p) };
  // Every member at once, with their spend: the listing is whole, so an incremental sync deletes who left the team.
  const documents = Object.entries(next.members).map(([email, m]) => memberToDocument({ email, ...m }, spend[email] ? { email, ...spend[email] } : undefined, next.cycleStart));
  const listed = new Set(documents.map((d) => d.external_id));
  const deleted = p.mode === 'incremental' ? (await ctx.stored('member:')).map((d) => d.external_id).filter((id) => !listed.has(id)) : [];
  return { documents, deleted, next: nextPhase(next), cursor: cursorOf(p) };
}

async function readActivity(ctx: Ctx, p: CursorPage): Promise<Page<CursorPage, CursorCursor>> {
  const c = chunkOf(p);
  if (!ctx.settings.include_activity || !c) return { documents: [], next: nextPhase(p), cursor: cursorOf(p) };
  const r = await cursorApi<{ data: CDaily[] }>(ctx, 'teams/daily-usage-data', range(c));
  const documents = r.data.map((a) => activityToDocument(a, names(p))).filter((d): d is SourceDocument => d !== null);
  const next = { ...p, chunk: c.end };
  return { documents, next: chunkOf(next) ? next : nextPhase(next), cursor: cursorOf(p) };
}

interface EventsAnswer {
  readonly usageEvents: CEvent[];
  readonly pagination?: { readonly hasNextPage?: boolean; readonly numPages?: number; readonly currentPage?: number };
}

/** Usage events of a chunk, page by page, summed into cells; the chunk's cells are emitted after its last page. */
async function readEvents(ctx: Ctx, p: CursorPage): Promise<Page<CursorPage, CursorCursor>> {
  const c = chunkOf(p);
  if (!c) return { documents: [], next: null, cursor: cursorOf(p) };
  const r = await cursorApi<EventsAnswer>(ctx, 'teams/filtered-usage-events', { ...range(c), page: p.page, pageSize: EVENTS_PAGE_SIZE });
  const cells: Record<string, Cell> = { ...p.cells };
  for (const e of r.usageEvents) addEvent(cells, e);
  if (r.pagination?.hasNextPage && r.usageEvents.length > 0) return { documents: [], next: { ...p, cells, page: p.page + 1 }, cursor: cursorOf(p) };
  const documents: SourceDocument[] = [];
  const usage: UsageRecord[] = [];
  for (const cellValue of Object.values(cells).sort((a, b) => (a.day + a.email + a.model).localeCompare(b.day + b.email + b.model))) {
    const m = cellResult(cellValue, names(p));
    documents.push(m.document);
    usage.push(m.record);
  }
  const next = { ...p, cells: {}, page: 1, chunk: c.end };
  return { documents, usage, next: chunkOf(next) ? next : null, cursor: cursorOf(p) };
}

function readPage(ctx: Ctx, p: CursorPage): Promise<Page<CursorPage, CursorCursor>> {
  switch (p.phase) {
    case 'members':
      return readMembers(ctx, p);
    case 'spend':
      return readSpend(ctx, p);
    case 'activity':
      return readActivity(ctx, p);
    case 'events':
      return readEvents(ctx, p);
  }
}

/** Validation: the team's members (an Admin API call). */
export function probe(ctx: Ctx): Promise<{ teamMembers: CMember[] }> {
  return cursorApi<{ teamMembers: CMember[] }>(ctx, 'teams/members');
}


export const cursorSync: SyncCapability<CursorCredentials, CursorSettings, CursorCursor, CursorPage> = {
  cursorSchema: cursorCursor,
  pageSchema: cursorPage,
  start(mode: SyncMode, since: CursorCursor | null): CursorPage {
    return {
      mode,
      phase: 'members',
      since: mode === 'incremental' && since ? since.last_complete_day : null,
      from: null,
      to: null,
      chunk: null,
      page: 1,
      members: {},
      spend: {},
      cycleStart: null,
      cells: {},
    };
  },
  readPage,
};
