import { parseHtml, type SourceAcl, type SourceDocument } from '../kit/index.ts';
import type { CalendarAttendee, CalendarEvent, EventTime } from './schemas.ts';

/** The calendar an event is read from, as the listing knows it. */
export interface CalendarRef {
  readonly id: string;
  readonly summary: string | null;
  readonly timeZone: string | null;
}

export const externalId = (calendarId: string, eventId: string) => `event:${calendarId}:${eventId}`;
/** Every stored event of one calendar starts with this (calendar ids hold no `:`). */
export const calendarPrefix = (calendarId: string) => `event:${calendarId}:`;
/** The group standing for a calendar's readers (everyone it is shared with at "see all event details" or more). */
export const calendarGroup = (calendarId: string) => `google_calendar:${calendarId}`;

/**
 * Event types that are not meetings worth indexing: working-location markers ("Home", "Office") say where someone
 * works that day and carry no text.
 */
const SKIPPED_TYPES = new Set(['workingLocation']);

/** Whether a listed event is a document: not cancelled (deleted) and not a working-location marker. */
export function isDocument(event: CalendarEvent): boolean {
  return event.status !== 'cancelled' && !SKIPPED_TYPES.has(event.eventType ?? 'default');
}

/** `2025-01-06T09:30:00+01:00` → the local date and time as the event states them (Google writes them in its time zone). */
function local(dateTime: string): { date: string; time: string; offset: string } {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/.exec(dateTime);
  if (!m?.[1] || !m[2]) return { date: dateTime, time: '', offset: '' };
  return { date: m[1], time: m[2], offset: m[3] === 'Z' || !m[3] ? 'UTC' : `UTC${m[3]}` };
}

function dayBefore(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return date;
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

/**
 * When an event takes place, readable: `2025-01-06 09:00–10:00 (Europe/Berlin)`, `2025-01-06 09:00 – 2025-01-07
 * 10:00 (…)`, each end with its own zone when they differ (a flight), all-day events as `2025-01-06 (all day)` or
 * `2025-01-06 – 2025-01-08 (all day)` (Google's all-day `end.date` is exclusive).
 */
export function renderWhen(start: EventTime | undefined, end: EventTime | undefined, calendarTimeZone: string | null): string | null {
  if (start?.date) {
    const last = end?.date ? dayBefore(end.date) : start.date;
    return last > start.date ? `${start.date} – ${last} (all day)` : `${start.date} (all day)`;
  }
  if (!start?.dateTime) return null;
  const s = local(start.dateTime);
  const sZone = start.timeZone ?? calendarTimeZone ?? s.offset;
  if (!end?.dateTime) return `${s.date} ${s.time} (${sZone})`;
  const e = local(end.dateTime);
  const eZone = end.timeZone ?? calendarTimeZone ?? e.offset;
  if (eZone !== sZone) return `${s.date} ${s.time} (${sZone}) – ${e.date} ${e.time} (${eZone})`;
  if (e.date === s.date) return `${s.date} ${s.time}–${e.time} (${sZone})`;
  return `${s.date} ${s.time} – ${e.date} ${e.time} (${sZone})`;
}

function personText(p: { email?: string | undefined; displayName?: string | undefined }): string | null {
  const name = p.displayName?.trim();
  const email = p.email?.trim();
  if (name && email) return `${name} <${email}>`;
  return name || email || null;
}

const RESPONSES: Record<string, string> = { accepted: 'accepted', declined: 'declined', tentative: 'tentative', needsAction: 'not responded' };

function attendeeText(a: CalendarAttendee): string | null {
  const who = personText(a);
  if (!who) return null;
  const notes = [
    ...(a.resource ? ['room'] : []),
    ...(a.responseStatus && RESPONSES[a.responseStatus] && !a.resource ? [RESPONSES[a.responseStatus] as string] : []),
    ...(a.optional ? ['optional'] : []),
  ];
  return notes.length > 0 ? `${who} (${notes.join(', ')})` : who;
}

/** Google stores descriptions written in its UI as HTML (`<b>`, `<br>`, links), API-written ones often as plain text. */
export function descriptionText(description: string | undefined): string {
  if (!description) return '';
  const text = /<[a-z][^>]*>/i.test(description) ? parseHtml(description).content : description;
  return text.replace(/\r\n?/g, '\n').trim();
}

/** The event as readable text: when, where, who, then the description. */
export function renderEvent(event: CalendarEvent, calendar: CalendarRef): string {
  const lines: string[] = [];
  const when = renderWhen(event.start, event.end, calendar.timeZone);
  if (when) lines.push(`When: ${when}`);
  if (event.recurrence?.length) lines.push(`Repeats: ${event.recurrence.join('; ')}`);
  if (event.status === 'tentative') lines.push('Status: tentative');
  if (event.location?.trim()) lines.push(`Where: ${event.location.trim()}`);
  if (event.hangoutLink) lines.push(`Video call: ${event.hangoutLink}`);
  const organizer = event.organizer ? personText(event.organizer) : null;
  if (organizer) lines.push(`Organizer: ${organizer}`);
  const attendees = (event.attendees ?? []).map(attendeeText).filter((x): x is string => x !== null);
  if (attendees.length > 0) lines.push(`Attendees: ${attendees.join(', ')}${event.attendeesOmitted ? ' (and others)' : ''}`);
  const description = descriptionText(event.description);
  return description ? `${lines.join('\n')}\n\n${description}` : lines.join('\n');
}

const uniq = (xs: readonly string[]) => [...new Set(xs)].sort();

/**
 * Who can read the event, in the shared ACL shape: its organizer and attendees (lower-cased emails; rooms are not
 * people), plus the calendar's readers (`google_calendar:<calendar id>`). `visibility: public` → public. A private or
 * confidential event shows its details only to its guests and those who may change the calendar: no calendar group,
 * the connected account (which read it) instead.
 */
export function eventAcl(event: CalendarEvent, calendarId: string, account: string | null): SourceAcl {
  const users: string[] = [];
  if (event.organizer?.email) users.push(event.organizer.email.toLowerCase());
  for (const a of event.attendees ?? []) if (a.email && !a.resource) users.push(a.email.toLowerCase());
  const restricted = event.visibility === 'private' || event.visibility === 'confidential';
  if (restricted && account) users.push(account.toLowerCase());
  return {
    ...(event.visibility === 'public' ? { public: true } : {}),
    ...(users.length > 0 ? { users: uniq(users) } : {}),
    ...(restricted ? {} : { groups: [calendarGroup(calendarId)] }),
  };
}

const MAX_CONTENT = 1_000_000;

/** One listed event as a document (callers check `isDocument` first). */
export function eventToDocument(event: CalendarEvent, calendar: CalendarRef, account: string | null): SourceDocument {
  const author = (event.organizer?.email ?? event.creator?.email)?.toLowerCase();
  const allDay = Boolean(event.start?.date);
  return {
    external_id: externalId(calendar.id, event.id),
    title: (event.summary?.trim() || '(No title)').slice(0, 2000),
    content: renderEvent(event, calendar).slice(0, MAX_CONTENT),
    ...(event.htmlLink ? { url: event.htmlLink } : {}),
    ...(author ? { author } : {}),
    document_type: 'event',
    ...(event.created ? { created_at: event.created } : {}),
    ...(event.updated ? { updated_at: event.updated } : {}),
    metadata: {
      calendar_id: calendar.id,
      calendar_name: calendar.summary,
      event_id: event.id,
      status: event.status ?? 'confirmed',
      start: event.start?.dateTime ?? event.start?.date ?? null,
      end: event.end?.dateTime ?? event.end?.date ?? null,
      all_day: allDay,
      time_zone: event.start?.timeZone ?? calendar.timeZone,
      event_type: event.eventType ?? 'default',
      visibility: event.visibility ?? 'default',
      attendee_count: event.attendees?.length ?? 0,
      ...(event.location ? { location: event.location } : {}),
      ...(event.recurrence ? { recurrence: event.recurrence } : {}),
      ...(event.recurringEventId ? { recurring_event_id: event.recurringEventId } : {}),
      ...(event.iCalUID ? { ical_uid: event.iCalUID } : {}),
    },
    acl: eventAcl(event, calendar.id, account),
  };
}
