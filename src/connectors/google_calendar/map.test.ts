import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { descriptionText, eventAcl, eventToDocument, isDocument, renderEvent, renderWhen } from './map.ts';
import type { CalendarEvent } from './schemas.ts';

const cal = { id: 'ada@example.com', summary: 'Ada', timeZone: 'Europe/Berlin' };
const review: CalendarEvent = {
  id: 'evt1',
  status: 'confirmed',
  htmlLink: 'https://www.google.com/calendar/event?eid=ZXZ0MQ',
  created: '2025-01-03T09:00:00.000Z',
  updated: '2025-01-04T09:00:00.000Z',
  summary: 'Design review',
  description: '<b>Agenda</b><br>Shard layout',
  location: 'Room 4.2',
  organizer: { email: 'Ada@Example.com', displayName: 'Ada Lovelace' },
  start: { dateTime: '2025-01-06T10:00:00+01:00', timeZone: 'Europe/Berlin' },
  end: { dateTime: '2025-01-06T11:00:00+01:00', timeZone: 'Europe/Berlin' },
  attendees: [
    { email: 'Ada@Example.com', displayName: 'Ada Lovelace', organizer: true, responseStatus: 'accepted' },
    { email: 'bob@partner.test', responseStatus: 'declined', optional: true },
    { email: 'room@resource.calendar.google.com', displayName: 'Room 4.2', resource: true, responseStatus: 'accepted' },
  ],
};

describe('google_calendar map', () => {
  it('renders times: same day, across days, all-day (exclusive end), zones that differ, offsets without a zone', () => {
    assert.equal(renderWhen(review.start, review.end, null), '2025-01-06 10:00–11:00 (Europe/Berlin)');
    assert.equal(renderWhen({ dateTime: '2025-01-06T22:00:00+01:00' }, { dateTime: '2025-01-07T01:00:00+01:00' }, 'Europe/Berlin'), '2025-01-06 22:00 – 2025-01-07 01:00 (Europe/Berlin)');
    assert.equal(renderWhen({ date: '2025-02-03' }, { date: '2025-02-05' }, null), '2025-02-03 – 2025-02-04 (all day)');
    assert.equal(renderWhen({ date: '2025-01-01' }, { date: '2025-01-02' }, null), '2025-01-01 (all day)');
    assert.equal(
      renderWhen({ dateTime: '2025-01-06T10:00:00+01:00', timeZone: 'Europe/Berlin' }, { dateTime: '2025-01-06T12:00:00-05:00', timeZone: 'America/New_York' }, null),
      '2025-01-06 10:00 (Europe/Berlin) – 2025-01-06 12:00 (America/New_York)',
    );
    assert.equal(renderWhen({ dateTime: '2025-01-06T09:00:00Z' }, { dateTime: '2025-01-06T09:30:00Z' }, null), '2025-01-06 09:00–09:30 (UTC)');
    assert.equal(renderWhen(undefined, undefined, null), null);
  });

  it('renders the event as text: when, where, organizer, attendees with their answers, then the description as text', () => {
    assert.equal(
      renderEvent(review, cal),
      [
        'When: 2025-01-06 10:00–11:00 (Europe/Berlin)',
        'Where: Room 4.2',
        'Organizer: Ada Lovelace <Ada@Example.com>',
        'Attendees: Ada Lovelace <Ada@Example.com> (accepted), bob@partner.test (declined, optional), Room 4.2 <room@resource.calendar.google.com> (room)',
        '',
        'Agenda\nShard layout',
      ].join('\n'),
    );
    const weekly = renderEvent({ id: 'w', summary: 'Weekly', recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO'], status: 'tentative', start: { date: '2025-01-06' }, end: { date: '2025-01-07' } }, cal);
    assert.equal(weekly, 'When: 2025-01-06 (all day)\nRepeats: RRULE:FREQ=WEEKLY;BYDAY=MO\nStatus: tentative');
  });

  it('keeps plain-text descriptions as written (line ends normalised), converts HTML ones', () => {
    assert.equal(descriptionText('Line 1\r\n- a < b\r\n'), 'Line 1\n- a < b');
    assert.equal(descriptionText('<p>Hello <i>there</i></p>'), 'Hello there');
    assert.equal(descriptionText(undefined), '');
  });

  it('ACL: organizer and attendees (no rooms) plus the calendar readers; public → public; private → guests and the account only', () => {
    assert.deepEqual(eventAcl(review, cal.id, 'ada@example.com'), { users: ['ada@example.com', 'bob@partner.test'], groups: ['google_calendar:ada@example.com'] });
    assert.deepEqual(eventAcl({ ...review, visibility: 'public' }, cal.id, null), { public: true, users: ['ada@example.com', 'bob@partner.test'], groups: ['google_calendar:ada@example.com'] });
    assert.deepEqual(eventAcl({ ...review, visibility: 'private', organizer: { email: 'boss@example.com' } }, 'team@group.calendar.google.com', 'ada@example.com'), {
      users: ['ada@example.com', 'bob@partner.test', 'boss@example.com'],
    });
  });

  it('maps the document: id, title, url, lower-cased organizer, times, type, metadata; untitled events get Google’s "(No title)"', () => {
    const d = eventToDocument(review, cal, 'ada@example.com');
    assert.equal(d.external_id, 'event:ada@example.com:evt1');
    assert.equal(d.title, 'Design review');
    assert.equal(d.url, review.htmlLink);
    assert.equal(d.author, 'ada@example.com');
    assert.equal(d.document_type, 'event');
    assert.equal(d.created_at, review.created);
    assert.equal(d.updated_at, review.updated);
    assert.equal(d.metadata?.start, '2025-01-06T10:00:00+01:00');
    assert.equal(d.metadata?.all_day, false);
    assert.equal(d.metadata?.attendee_count, 3);
    assert.equal(eventToDocument({ id: 'x', start: { date: '2025-01-01' } }, cal, null).title, '(No title)');
  });

  it('cancelled events and working-location markers are not documents', () => {
    assert.equal(isDocument(review), true);
    assert.equal(isDocument({ id: 'x', status: 'cancelled' }), false);
    assert.equal(isDocument({ id: 'x', eventType: 'workingLocation' }), false);
    assert.equal(isDocument({ id: 'x', eventType: 'outOfOffice' }), true);
  });
});
