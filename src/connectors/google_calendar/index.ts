import { type KindDefinition, validateWith } from '../kit/index.ts';
import { type CalendarCredentials, type CalendarSettings, calendarCredentials, calendarSettings } from './schemas.ts';
import { type CalendarCursor, type CalendarPage, calendarSync, readableCalendars } from './sync.ts';

/** Google Calendar: events (times, place, organizer, attendees, description) of the account's calendars, incremental with sync tokens. */
export const googleCalendarKind: KindDefinition<CalendarCredentials, CalendarSettings, CalendarCursor, CalendarPage> = {
  type: 'google_calendar',
  displayName: 'Google Calendar',
  category: 'calendar',
  group: 'productivity',
  // Google issues no personal API token for a user's calendars: OAuth only (service accounts with domain-wide delegation are not supported).
  authTypes: ['oauth2'],
  credentials: calendarCredentials,
  settings: calendarSettings,
  contentTypes: ['events'],
  // Calendar API "Usage limits": 600 requests per minute per user per project, 10,000 per minute per project (sliding
  // window; over it Google answers 403 or 429 usageLimits). One OAuth client (project) serves every connector of the
  // deployment: each connector takes half of its user's quota, 300 a minute, so about 30 run at full speed under the
  // project's ceiling and the user keeps room for other connectors on the same account.
  vendorLimits: { perMinute: 300 },
  hasUsableCredentials: (c) => Boolean(c.access_token),
  validate: validateWith(async (ctx) => {
    // The primary calendar's id is the account's email address.
    const calendars = await readableCalendars(ctx);
    const primary = calendars.find((c) => c.primary);
    return { account: primary?.id.toLowerCase() ?? `${calendars.length} calendars` };
  }),
  sync: calendarSync,
  oauth: {
    authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    scopes: ['https://www.googleapis.com/auth/calendar.readonly'],
    // offline + consent: Google returns a refresh token (access tokens last an hour), also when the user had consented before.
    extraAuthorizeParams: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
  },
};
