import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

export const calendarCredentials = z
  .object({
    access_token: z
      .string()
      .min(1)
      .optional()
      .describe('OAuth 2.0 access token with scope https://www.googleapis.com/auth/calendar.readonly (filled and refreshed by the OAuth flow; Google has no personal API token for calendar data)'),
  })
  .strict();
export type CalendarCredentials = z.infer<typeof calendarCredentials>;

/** A calendar id as calendarList shows it: an email address, `…@group.calendar.google.com`, `…#holiday@group.v.calendar.google.com`, or `primary`. */
const calendarId = z
  .string()
  .trim()
  .min(1)
  .max(500)
  .regex(/^(primary|[^\s/:?]+@[^\s/:?]+)$/, "a calendar id (an address such as team@group.calendar.google.com, from the calendar's settings) or 'primary'");

export const calendarSettings = z
  .object({
    calendars: z
      .array(calendarId)
      .min(1)
      .optional()
      .describe("only these calendars (ids from the calendar's settings, 'primary' for the account's own); default: every calendar in the account's calendar list it may read event details of"),
    time_min_days: z
      .number()
      .int()
      .min(1)
      .max(36_500)
      .optional()
      .describe('a full listing skips events that ended more than this many days ago (Google applies it as timeMin); default: the whole history'),
    ...commonSettings,
  })
  .strict();
export type CalendarSettings = z.infer<typeof calendarSettings>;

/** Calendar API v3 answers (developers.google.com/calendar/api/v3/reference); Google leaves out what it does not know. */
export const calendarListEntry = z.object({
  id: z.string(),
  summary: z.string().optional(),
  summaryOverride: z.string().optional(),
  description: z.string().optional(),
  timeZone: z.string().optional(),
  accessRole: z.string().optional(),
  primary: z.boolean().optional(),
  deleted: z.boolean().optional(),
});
export type CalendarListEntry = z.infer<typeof calendarListEntry>;
export const calendarList = z.object({ nextPageToken: z.string().optional(), items: z.array(calendarListEntry).default([]) });
export const calendarResource = z.object({ id: z.string(), summary: z.string().optional(), timeZone: z.string().optional() });

const person = z.object({
  id: z.string().optional(),
  email: z.string().optional(),
  displayName: z.string().optional(),
  self: z.boolean().optional(),
});
const attendee = person.extend({
  organizer: z.boolean().optional(),
  resource: z.boolean().optional(),
  optional: z.boolean().optional(),
  responseStatus: z.string().optional(),
  comment: z.string().optional(),
});
export type CalendarAttendee = z.infer<typeof attendee>;
const when = z.object({ date: z.string().optional(), dateTime: z.string().optional(), timeZone: z.string().optional() });
export type EventTime = z.infer<typeof when>;

export const calendarEvent = z.object({
  id: z.string(),
  status: z.string().optional(),
  htmlLink: z.string().optional(),
  created: z.string().optional(),
  updated: z.string().optional(),
  summary: z.string().optional(),
  description: z.string().optional(),
  location: z.string().optional(),
  creator: person.optional(),
  organizer: person.optional(),
  start: when.optional(),
  end: when.optional(),
  recurrence: z.array(z.string()).optional(),
  recurringEventId: z.string().optional(),
  originalStartTime: when.optional(),
  visibility: z.string().optional(),
  iCalUID: z.string().optional(),
  attendees: z.array(attendee).optional(),
  attendeesOmitted: z.boolean().optional(),
  hangoutLink: z.string().optional(),
  eventType: z.string().optional(),
});
export type CalendarEvent = z.infer<typeof calendarEvent>;
export const eventList = z.object({
  timeZone: z.string().optional(),
  nextPageToken: z.string().optional(),
  nextSyncToken: z.string().optional(),
  items: z.array(calendarEvent).default([]),
});
