import { cursorPage, type FakeReply, type FakeRequest, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local Google Calendar API v3 fake (developers.google.com/calendar/api/v3/reference), on the kit's VendorFake:
 * `GET /calendar/v3/users/me/calendarList` (`minAccessRole`, `maxResults` ≤ 250, `pageToken`),
 * `GET /calendar/v3/calendars/{calendarId}` and `GET /calendar/v3/calendars/{calendarId}/events` (`maxResults` ≤ 2500
 * — Google may answer fewer and still give a `nextPageToken`, so pages here hold at most `pageCap` —, `pageToken`,
 * `showDeleted`, `timeMin`, `syncToken`; `nextSyncToken` only on the last page; with a sync token: the events changed
 * since, cancelled ones as `{id, status: "cancelled"}`, 400 `syncTokenWithRequestRestrictions` beside `timeMin` & co.
 * or `showDeleted=false`, 410 `fullSyncRequired` for an expired token). Errors in Google's JSON shape
 * `{error: {errors: [{domain, reason, message}], code, message}}`; 401 `authError`; quota answers as 429
 * `rateLimitExceeded` or 403 `userRateLimitExceeded` (`quotaNext`).
 */
export type AccessRole = 'freeBusyReader' | 'reader' | 'writer' | 'owner';
const RANK: Record<AccessRole, number> = { freeBusyReader: 0, reader: 1, writer: 2, owner: 3 };

export interface FakeCalendar {
  id: string;
  summary: string;
  timeZone: string;
  accessRole: AccessRole;
  primary?: boolean;
  /** In the account's calendar list (unsubscribing removes it from calendarList; it stays readable by id). */
  subscribed: boolean;
  /** Bumped by `expireTokens`: sync tokens of an older epoch answer 410. */
  epoch: number;
}

type Person = { email?: string; displayName?: string; self?: boolean };
export interface FakeEvent {
  calendarId: string;
  id: string;
  status: 'confirmed' | 'tentative' | 'cancelled';
  summary?: string;
  description?: string;
  location?: string;
  created: string;
  updated: string;
  creator?: Person;
  organizer?: Person;
  start: { date?: string; dateTime?: string; timeZone?: string };
  end: { date?: string; dateTime?: string; timeZone?: string };
  recurrence?: string[];
  recurringEventId?: string;
  originalStartTime?: { date?: string; dateTime?: string; timeZone?: string };
  visibility?: 'default' | 'public' | 'private' | 'confidential';
  attendees?: (Person & { organizer?: boolean; resource?: boolean; optional?: boolean; responseStatus?: string })[];
  hangoutLink?: string;
  eventType?: string;
  /** The change counter when it last changed (sync tokens compare it). */
  seq: number;
  /** Deleted so long ago that Google no longer lists it, not even as cancelled. */
  purged?: boolean;
}

export interface FakeCalendarData {
  calendars: FakeCalendar[];
  events: FakeEvent[];
  seq: number;
}

const googleError = (code: number, reason: string, message: string, domain = 'global', extra: Record<string, string> = {}): FakeReply => ({
  status: code,
  json: { error: { errors: [{ domain, reason, message, ...extra }], code, message } },
});
const invalid = (location: string, message = 'Invalid Value') => googleError(400, 'invalid', message, 'global', { locationType: 'parameter', location });
const notFound = () => googleError(404, 'notFound', 'Not Found');

const b64 = (s: string) => Buffer.from(s).toString('base64url');
const unb64 = (s: string) => Buffer.from(s, 'base64url').toString('utf8');

export function htmlLink(calendarId: string, eventId: string): string {
  return `https://www.google.com/calendar/event?eid=${b64(`${eventId} ${calendarId}`)}`;
}

export const ADA = 'ada@atrium.test';
export const ENG = 'eng-team@group.calendar.google.com';
export const HOLIDAYS = 'en.german#holiday@group.v.calendar.google.com';
export const GRACE = 'grace@atrium.test';

export function seedCalendars(tick: () => string): FakeCalendarData {
  const ada = { email: ADA, displayName: 'Ada Lovelace' };
  const bob = { email: 'Bob@Partner.test', displayName: 'Bob Partner' };
  const berlin = 'Europe/Berlin';
  let seq = 0;
  const ev = (calendarId: string, id: string, e: Partial<FakeEvent> & Pick<FakeEvent, 'start' | 'end'>): FakeEvent => {
    const t = tick();
    return { calendarId, id, status: 'confirmed', created: t, updated: t, creator: ada, organizer: { ...ada, self: true }, seq: ++seq, ...e };
  };
  const at = (dateTime: string, timeZone = berlin) => ({ dateTime, timeZone });
  const events: FakeEvent[] = [
    ev(ADA, 'evt-design', {
      summary: 'Atlas design review',
      description: '<b>Agenda</b><br>Review the columnar shard layout.<br><a href="https://docs.example.com/atlas">Design doc</a>',
      location: 'Room 4.2, Berlin office',
      start: at('2025-01-06T10:00:00+01:00'),
      end: at('2025-01-06T11:00:00+01:00'),
      hangoutLink: 'https://meet.google.com/abc-defg-hij',
      attendees: [
        { ...ada, organizer: true, self: true, responseStatus: 'accepted' },
        { ...bob, responseStatus: 'accepted' },
        { email: 'carol@atrium.test', displayName: 'Carol', optional: true, responseStatus: 'needsAction' },
        { email: 'c_188@resource.calendar.google.com', displayName: 'Berlin-4-Room 4.2 (8)', resource: true, responseStatus: 'accepted' },
      ],
    }),
    ev(ADA, 'evt-allhands', { summary: 'Company all-hands', visibility: 'public', description: 'Quarterly results and Q&A.', start: at('2025-01-10T16:00:00+01:00'), end: at('2025-01-10T17:00:00+01:00') }),
    ev(ADA, 'evt-offsite', { summary: 'Team offsite', location: 'Lisbon', start: { date: '2025-02-03' }, end: { date: '2025-02-05' } }),
    ev(ADA, 'evt-weekly', { summary: 'Weekly sync', recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO'], start: at('2025-01-06T09:00:00+01:00'), end: at('2025-01-06T09:30:00+01:00') }),
    ev(ADA, 'evt-weekly_20250113T080000Z', {
      summary: 'Weekly sync (moved)',
      recurringEventId: 'evt-weekly',
      originalStartTime: at('2025-01-13T09:00:00+01:00'),
      start: at('2025-01-13T11:00:00+01:00'),
      end: at('2025-01-13T11:30:00+01:00'),
    }),
    ev(ADA, 'evt-1on1', {
      summary: '1:1 Ada / Bob',
      visibility: 'private',
      description: 'Compensation review.',
      start: at('2025-01-07T15:00:00+01:00'),
      end: at('2025-01-07T15:30:00+01:00'),
      attendees: [
        { ...ada, organizer: true, self: true, responseStatus: 'accepted' },
        { ...bob, responseStatus: 'tentative' },
      ],
    }),
    ev(ADA, 'evt-old-cancelled', { status: 'cancelled', summary: 'Cancelled standup', start: at('2025-01-02T09:00:00+01:00'), end: at('2025-01-02T09:15:00+01:00') }),
    ev(ADA, 'evt-wl', { summary: 'Home', eventType: 'workingLocation', visibility: 'public', start: { date: '2025-01-09' }, end: { date: '2025-01-10' } }),
    ev(ADA, 'evt-2019', { summary: 'Kickoff 2019', start: at('2019-03-01T10:00:00Z', 'UTC'), end: at('2019-03-01T11:00:00Z', 'UTC') }),
    ev(ENG, 'evt-retro', {
      summary: 'Incident retro',
      description: 'Timeline:\n- 09:12 alert fired\n- 09:40 rollback',
      creator: { email: GRACE, displayName: 'Grace Hopper' },
      organizer: { email: ENG, displayName: 'Engineering', self: true },
      start: { dateTime: '2025-01-08T14:00:00-05:00', timeZone: 'America/New_York' },
      end: { dateTime: '2025-01-08T15:00:00-05:00', timeZone: 'America/New_York' },
      attendees: [
        { email: 'Grace@Atrium.test', displayName: 'Grace Hopper', responseStatus: 'accepted' },
        { email: 'linus@atrium.test', responseStatus: 'tentative' },
      ],
    }),
    ev(HOLIDAYS, 'evt-newyear', {
      summary: "New Year's Day",
      visibility: 'public',
      creator: { email: HOLIDAYS, displayName: 'Holidays in Germany' },
      organizer: { email: HOLIDAYS, displayName: 'Holidays in Germany', self: true },
      start: { date: '2025-01-01' },
      end: { date: '2025-01-02' },
    }),
    ev(GRACE, 'evt-grace', { summary: 'Grace: dentist', creator: { email: GRACE }, organizer: { email: GRACE }, start: at('2025-01-08T08:00:00+01:00'), end: at('2025-01-08T09:00:00+01:00') }),
  ];
  return {
    calendars: [
      { id: ADA, summary: ADA, timeZone: berlin, accessRole: 'owner', primary: true, subscribed: true, epoch: 0 },
      { id: ENG, summary: 'Engineering', timeZone: 'America/New_York', accessRole: 'reader', subscribed: true, epoch: 0 },
      { id: HOLIDAYS, summary: 'Holidays in Germany', timeZone: berlin, accessRole: 'reader', subscribed: true, epoch: 0 },
      { id: GRACE, summary: 'Grace Hopper', timeZone: berlin, accessRole: 'freeBusyReader', subscribed: true, epoch: 0 },
    ],
    events,
    seq,
  };
}

/** The Event resource as Calendar v3 answers it; a cancelled event only as id and status (what Google guarantees). */
function resource(e: FakeEvent): Record<string, unknown> {
  const base = { kind: 'calendar#event', etag: `"${3_400_000_000_000 + e.seq}"`, id: e.id };
  if (e.status === 'cancelled') {
    return { ...base, status: 'cancelled', ...(e.recurringEventId ? { recurringEventId: e.recurringEventId, originalStartTime: e.originalStartTime } : {}) };
  }
  const { calendarId, seq: _s, purged: _p, ...rest } = e;
  return { ...base, ...rest, htmlLink: htmlLink(calendarId, e.id), iCalUID: `${e.id.replace(/_\d{8}T\d{6}Z$/, '')}@google.com`, sequence: 0, reminders: { useDefault: true } };
}

export interface FakeGoogleCalendar {
  readonly url: string;
  readonly token: string;
  readonly fake: VendorFake;
  readonly data: FakeCalendarData;
  /** Events per page at most (Google may answer fewer than maxResults). */
  pageCap: number;
  addEvent(calendarId: string, e: Partial<FakeEvent> & Pick<FakeEvent, 'id'>): FakeEvent;
  updateEvent(calendarId: string, id: string, patch: Partial<FakeEvent>): FakeEvent;
  /** Deletes an event (`status: "cancelled"`, listed as such with showDeleted or a sync token). */
  cancelEvent(calendarId: string, id: string): FakeEvent;
  /** An event deleted long ago: Google no longer lists it at all. */
  purgeEvent(calendarId: string, id: string): void;
  /** Every sync token of the calendar becomes invalid (410 fullSyncRequired). */
  expireTokens(calendarId: string): void;
  /** The next `count` matching requests answer Google's 403 `userRateLimitExceeded` (no Retry-After). */
  quotaNext(count: number, match?: (req: FakeRequest) => boolean): void;
  close(): Promise<void>;
}

export async function startFakeGoogleCalendar(opts: { seed?: (tick: () => string) => FakeCalendarData; oauthCode?: string } = {}): Promise<FakeGoogleCalendar> {
  let minutes = 0;
  const tick = () => new Date(Date.UTC(2025, 0, 3, 9, minutes++)).toISOString();
  const data = (opts.seed ?? seedCalendars)(tick);
  const token = 'ya29.fake-calendar-token';
  let issued = 0;
  let pageCap = 4;
  const fake = new VendorFake({
    name: 'Google Calendar',
    tokens: [token],
    publicPath: (p) => p === '/token',
    unauthorized: () => ({
      ...googleError(401, 'authError', 'Invalid Credentials', 'global', { locationType: 'header', location: 'Authorization' }),
      headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
    }),
    rateLimited: () => googleError(429, 'rateLimitExceeded', 'Rate Limit Exceeded', 'usageLimits'),
    serverError: (status) => (status === 403 ? googleError(403, 'userRateLimitExceeded', 'User Rate Limit Exceeded', 'usageLimits') : googleError(status, 'backendError', 'Backend Error')),
  });
  const calendar = (id: string) => data.calendars.find((c) => c.id === id);
  const syncTokenOf = (c: FakeCalendar, seq: number) => b64(JSON.stringify({ c: c.id, e: c.epoch, s: seq }));
  const change = (e: FakeEvent) => {
    e.seq = ++data.seq;
    e.updated = tick();
  };
  const intParam = (req: FakeRequest, name: string, dflt: number, max: number): number | FakeReply => {
    const raw = req.query.get(name);
    if (raw === null) return dflt;
    const n = Number(raw);
    return Number.isInteger(n) && n >= 1 && n <= max ? n : invalid(name);
  };

  fake.route('POST', '/token', oauthTokenEndpoint(fake, { code: opts.oauthCode ?? 'google-code', issue: () => ({ access_token: `ya29.oauth-${++issued}`, refresh_token: '1//refresh', expires_in: 3599, scope: 'https://www.googleapis.com/auth/calendar.readonly' }) }));

  fake.route('GET', '/calendar/v3/users/me/calendarList', (req) => {
    const max = intParam(req, 'maxResults', 100, 250);
    if (typeof max !== 'number') return max;
    const minRole = (req.query.get('minAccessRole') ?? 'freeBusyReader') as AccessRole;
    if (!(minRole in RANK)) return invalid('minAccessRole');
    const entries = data.calendars.filter((c) => c.subscribed && RANK[c.accessRole] >= RANK[minRole]);
    const page = cursorPage(entries, req.query.get('pageToken'), max);
    const items = page.items.map((c) => ({
      kind: 'calendar#calendarListEntry',
      etag: `"${c.epoch}"`,
      id: c.id,
      summary: c.summary,
      timeZone: c.timeZone,
      colorId: '14',
      backgroundColor: '#9fe1e7',
      foregroundColor: '#000000',
      selected: true,
      accessRole: c.accessRole,
      defaultReminders: [],
      ...(c.primary ? { primary: true } : {}),
      conferenceProperties: { allowedConferenceSolutionTypes: ['hangoutsMeet'] },
    }));
    return { json: { kind: 'calendar#calendarList', etag: '"p33"', ...(page.next ? { nextPageToken: page.next } : { nextSyncToken: 'CL-list' }), items } };
  });

  fake.route('GET', '/calendar/v3/calendars/:calendarId', (req) => {
    const c = calendar(req.params.calendarId ?? '');
    if (!c) return notFound();
    return { json: { kind: 'calendar#calendar', etag: `"${c.epoch}"`, id: c.id, summary: c.summary, timeZone: c.timeZone, conferenceProperties: { allowedConferenceSolutionTypes: ['hangoutsMeet'] } } };
  });

  fake.route('GET', '/calendar/v3/calendars/:calendarId/events', (req) => {
    const c = calendar(req.params.calendarId ?? '');
    if (!c) return notFound();
    const max = intParam(req, 'maxResults', 250, 2500);
    if (typeof max !== 'number') return max;
    if (req.query.get('singleEvents') === 'true') return invalid('singleEvents', 'this fake does not expand recurring events');
    const syncToken = req.query.get('syncToken');
    const showDeleted = req.query.get('showDeleted') === 'true';
    let since: number | null = null;
    if (syncToken) {
      const restricted = ['timeMin', 'timeMax', 'updatedMin', 'q', 'orderBy', 'iCalUID'].some((k) => req.query.has(k)) || req.query.get('showDeleted') === 'false';
      if (restricted) return googleError(400, 'syncTokenWithRequestRestrictions', 'Sync token cannot be used with other request restrictions.', 'calendar');
      let t: { c?: string; e?: number; s?: number };
      try {
        t = JSON.parse(unb64(syncToken)) as typeof t;
      } catch {
        return invalid('syncToken');
      }
      if (t.c !== c.id || t.e !== c.epoch || typeof t.s !== 'number') return googleError(410, 'fullSyncRequired', 'Sync token is no longer valid, a full sync is required.', 'calendar');
      since = t.s;
    }
    const timeMin = req.query.get('timeMin');
    if (timeMin && Number.isNaN(Date.parse(timeMin))) return invalid('timeMin');
    // The page token carries where the listing stands and the change counter it started at (its sync token's).
    const pt = req.query.get('pageToken');
    const state = pt ? (JSON.parse(unb64(pt)) as { o: number; s: number }) : { o: 0, s: data.seq };
    const items = data.events
      .filter((e) => e.calendarId === c.id && !e.purged)
      .filter((e) => (since !== null ? e.seq > since : showDeleted || e.status !== 'cancelled'))
      .filter((e) => {
        if (since !== null || !timeMin || e.recurrence) return true;
        const end = e.end.dateTime ?? `${e.end.date}T00:00:00Z`;
        return Date.parse(end) > Date.parse(timeMin);
      })
      .sort((a, b) => a.id.localeCompare(b.id));
    const size = Math.min(max, pageCap);
    const page = items.slice(state.o, state.o + size);
    const more = state.o + size < items.length;
    return {
      json: {
        kind: 'calendar#events',
        etag: `"${data.seq}"`,
        summary: c.summary,
        updated: new Date(Date.UTC(2025, 0, 3, 9, minutes)).toISOString(),
        timeZone: c.timeZone,
        accessRole: c.accessRole,
        defaultReminders: [],
        ...(more ? { nextPageToken: b64(JSON.stringify({ o: state.o + size, s: state.s })) } : { nextSyncToken: syncTokenOf(c, state.s) }),
        items: page.map(resource),
      },
    };
  });

  await fake.start();
  const find = (calendarId: string, id: string) => {
    const e = data.events.find((x) => x.calendarId === calendarId && x.id === id);
    if (!e) throw new Error(`no event ${calendarId}/${id}`);
    return e;
  };
  return {
    url: fake.url,
    token,
    fake,
    data,
    get pageCap() {
      return pageCap;
    },
    set pageCap(n: number) {
      pageCap = n;
    },
    addEvent(calendarId, e) {
      const t = tick();
      const ev: FakeEvent = {
        calendarId,
        status: 'confirmed',
        created: t,
        updated: t,
        creator: { email: ADA },
        organizer: { email: ADA, self: true },
        start: { dateTime: '2025-03-03T10:00:00+01:00', timeZone: 'Europe/Berlin' },
        end: { dateTime: '2025-03-03T11:00:00+01:00', timeZone: 'Europe/Berlin' },
        ...e,
        seq: ++data.seq,
      };
      data.events.push(ev);
      return ev;
    },
    updateEvent(calendarId, id, patch) {
      const e = find(calendarId, id);
      Object.assign(e, patch);
      change(e);
      return e;
    },
    cancelEvent(calendarId, id) {
      const e = find(calendarId, id);
      e.status = 'cancelled';
      change(e);
      return e;
    },
    purgeEvent(calendarId, id) {
      find(calendarId, id).purged = true;
    },
    expireTokens(calendarId) {
      const c = calendar(calendarId);
      if (c) c.epoch++;
    },
    quotaNext(count, match) {
      fake.failNext(count, 403, match);
    },
    close: () => fake.close(),
  };
}
