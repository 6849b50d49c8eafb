import { z } from 'zod';
import { type Page, type SourceContext, SourceSettingsError, type SourceDocument, type SyncCapability, type SyncMode, VendorHttpError } from '../kit/index.ts';
import { calendarJson, calendarPath, SyncTokenGoneError } from './client.ts';
import { type CalendarRef, calendarGroup, calendarPrefix, eventToDocument, externalId, isDocument } from './map.ts';
import { type CalendarCredentials, type CalendarEvent, type CalendarListEntry, calendarList, calendarResource, type CalendarSettings, eventList } from './schemas.ts';

type Ctx = SourceContext<CalendarCredentials, CalendarSettings>;

/** Events a page (Google's default is 250, its maximum 2,500; it may answer fewer and still give a nextPageToken). */
const EVENT_PAGE_SIZE = 250;
const LIST_PAGE_SIZE = 250;
const DAY_MS = 86_400_000;

const calendarRef = z.object({ id: z.string(), summary: z.string().nullable(), timeZone: z.string().nullable() });

/** One calendar to read: with its sync token (incremental), or listed whole. */
const unit = calendarRef.extend({
  syncToken: z.string().nullable(),
  /** Listed whole during an incremental sync (new calendar, or Google answered 410 to its token): what it no longer lists is deleted. */
  relist: z.boolean(),
});
type Unit = z.infer<typeof unit>;

export const calendarCursor = z.object({
  /** `nextSyncToken` per calendar id, from the last page of that calendar's listing. */
  tokens: z.record(z.string(), z.string()),
});
export type CalendarCursor = z.infer<typeof calendarCursor>;

export const calendarPage = z.object({
  mode: z.enum(['incremental', 'full']),
  phase: z.enum(['setup', 'events']),
  /** The connected account (its primary calendar id): a reader of every event it lists. */
  account: z.string().nullable(),
  /** The `time_min_days` window as an instant, fixed for the whole run. */
  timeMin: z.string().nullable(),
  queue: z.array(unit),
  pageToken: z.string().nullable(),
  /** Event ids a relisted calendar showed so far (the rest of its stored events are deleted at its end). */
  seen: z.array(z.string()),
  /** The stored tokens, replaced calendar by calendar as each listing ends. */
  tokens: z.record(z.string(), z.string()),
  /** The cursor this run started from (incremental), to know which calendars left the scope. */
  since: z.record(z.string(), z.string()).nullable(),
});
export type CalendarPage = z.infer<typeof calendarPage>;

const refOf = (e: { id: string; summary?: string | undefined; summaryOverride?: string | undefined; timeZone?: string | undefined }): CalendarRef => ({
  id: e.id,
  summary: e.summaryOverride ?? e.summary ?? null,
  timeZone: e.timeZone ?? null,
});

/** The account's calendar list, restricted to calendars whose event details it may read (`minAccessRole=reader`). */
export async function readableCalendars(ctx: Ctx): Promise<CalendarListEntry[]> {
  const out: CalendarListEntry[] = [];
  let pageToken: string | undefined;
  do {
    const r = await calendarJson(ctx, '/calendar/v3/users/me/calendarList', { minAccessRole: 'reader', maxResults: LIST_PAGE_SIZE, pageToken }, calendarList);
    out.push(...r.items.filter((c) => !c.deleted));
    pageToken = r.nextPageToken;
  } while (pageToken);
  return out;
}

/** The calendars in scope: `calendars` (each resolved; `primary` → the account's id), else the whole readable list. */
async function scope(ctx: Ctx, list: readonly CalendarListEntry[], primary: string | null): Promise<CalendarRef[]> {
  const wanted = ctx.settings.calendars;
  if (!wanted) return list.map(refOf);
  const refs: CalendarRef[] = [];
  for (const raw of wanted) {
    const id = raw === 'primary' ? primary : raw;
    const listed = list.find((c) => c.id === id || c.id.toLowerCase() === id?.toLowerCase());
    if (listed) {
      refs.push(refOf(listed));
      continue;
    }
    if (!id) throw new SourceSettingsError("calendars: 'primary' names no calendar (the account's calendar list has no primary calendar)");
    try {
      // Not subscribed in the account's list, but readable by id (a shared or public calendar).
      refs.push(refOf(await calendarJson(ctx, calendarPath(id), {}, calendarResource)));
    } catch (err) {
      if (err instanceof VendorHttpError && err.status === 404) throw new SourceSettingsError(`calendars: calendar '${id}' does not exist or is not shared with the connected account`);
      throw err;
    }
  }
  return [...new Map(refs.map((r) => [r.id, r])).values()];
}

async function setup(ctx: Ctx, p: CalendarPage): Promise<Page<CalendarPage, CalendarCursor>> {
  const list = await readableCalendars(ctx);
  const primary = list.find((c) => c.primary)?.id ?? null;
  const account = primary?.includes('@') ? primary.toLowerCase() : null;
  const calendars = await scope(ctx, list, primary);
  const since = p.mode === 'incremental' ? p.since : null;
  const queue: Unit[] = calendars.map((c) => {
    const token = since?.[c.id] ?? null;
    return { ...c, syncToken: token, relist: p.mode === 'incremental' && !token };
  });
  const inScope = new Set(calendars.map((c) => c.id));
  // A calendar that left the scope (unsubscribed, access removed, taken out of `calendars`): its events go.
  const deleted: string[] = [];
  for (const id of Object.keys(since ?? {}).filter((x) => !inScope.has(x))) {
    deleted.push(...(await ctx.stored(calendarPrefix(id))).map((r) => r.external_id));
  }
  const tokens = Object.fromEntries(Object.entries(since ?? {}).filter(([id]) => inScope.has(id)));
  const timeMin = ctx.settings.time_min_days ? new Date(ctx.now.getTime() - ctx.settings.time_min_days * DAY_MS).toISOString() : null;
  const next: CalendarPage = { ...p, phase: 'events', account, timeMin, queue, pageToken: null, seen: [], tokens };
  return {
    documents: [],
    deleted,
    // The connected account reads every calendar it lists; the calendars' other readers are not read (see README).
    ...(account ? { identities: { groups: calendars.map((c) => ({ group_id: calendarGroup(c.id), members: [account] })) } } : {}),
    next: queue.length > 0 ? next : null,
    cursor: { tokens },
  };
}

/** Out of the `time_min_days` window: a single event that ended before it (recurring series are kept: later occurrences may fall inside). */
function beforeWindow(e: CalendarEvent, timeMin: string | null): boolean {
  if (!timeMin || e.recurrence?.length) return false;
  const end = e.end?.dateTime ?? (e.end?.date ? `${e.end.date}T00:00:00Z` : null);
  return end !== null && Date.parse(end) < Date.parse(timeMin);
}

async function events(ctx: Ctx, p: CalendarPage): Promise<Page<CalendarPage, CalendarCursor>> {
  const [u, ...rest] = p.queue;
  if (!u) return { documents: [], next: null, cursor: { tokens: p.tokens } };
  let r: z.infer<typeof eventList>;
  try {
    r = await calendarJson(
      ctx,
      calendarPath(u.id, '/events'),
      {
        // Recurring events as one series (their RRULE in the text), not one document per occurrence.
        singleEvents: false,
        showDeleted: true,
        maxResults: EVENT_PAGE_SIZE,
        pageToken: p.pageToken ?? undefined,
        // Google refuses timeMin (and most filters) beside a syncToken: the window applies to full listings only.
        ...(u.syncToken ? { syncToken: u.syncToken } : { timeMin: p.timeMin ?? undefined }),
      },
      eventList,
    );
  } catch (err) {
    if (!(err instanceof SyncTokenGoneError) || !u.syncToken) throw err;
    // The token is no longer valid (expired, or the calendar's sharing changed): list this calendar again, whole.
    ctx.log.info({ calendarId: u.id }, 'google calendar sync token gone (410): listing the calendar again');
    const tokens = { ...p.tokens };
    delete tokens[u.id];
    return { documents: [], next: { ...p, queue: [{ ...u, syncToken: null, relist: true }, ...rest], pageToken: null, seen: [], tokens }, cursor: { tokens } };
  }
  const calendar: CalendarRef = { id: u.id, summary: u.summary, timeZone: u.timeZone ?? r.timeZone ?? null };
  const documents: SourceDocument[] = [];
  const gone: string[] = [];
  for (const e of r.items) {
    if (isDocument(e) && !beforeWindow(e, p.timeMin)) documents.push(eventToDocument(e, calendar, p.account));
    // A change read with a sync token: cancelled (deleted), or no longer a document.
    else if (u.syncToken) gone.push(externalId(u.id, e.id));
  }
  const seen = u.relist ? [...p.seen, ...documents.map((d) => d.external_id)] : [];
  if (r.nextPageToken) {
    const next: CalendarPage = { ...p, pageToken: r.nextPageToken, seen };
    return { documents, deleted: gone, next, cursor: { tokens: p.tokens } };
  }
  const tokens = { ...p.tokens };
  if (r.nextSyncToken) tokens[u.id] = r.nextSyncToken;
  else delete tokens[u.id];
  if (u.relist) {
    const listed = new Set(seen);
    gone.push(...(await ctx.stored(calendarPrefix(u.id))).map((s) => s.external_id).filter((id) => !listed.has(id)));
  }
  const next: CalendarPage = { ...p, queue: rest, pageToken: null, seen: [], tokens };
  return { documents, deleted: gone, next: rest.length > 0 ? next : null, cursor: { tokens } };
}

export const calendarSync: SyncCapability<CalendarCredentials, CalendarSettings, CalendarCursor, CalendarPage> = {
  cursorSchema: calendarCursor,
  pageSchema: calendarPage,
  start(mode: SyncMode, since: CalendarCursor | null): CalendarPage {
    return { mode, phase: 'setup', account: null, timeMin: null, queue: [], pageToken: null, seen: [], tokens: {}, since: mode === 'incremental' ? (since?.tokens ?? {}) : null };
  },
  async readPage(ctx, p) {
    return p.phase === 'setup' ? setup(ctx, p) : events(ctx, p);
  },
};
