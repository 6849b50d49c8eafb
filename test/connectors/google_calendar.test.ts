import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { ADA, ENG, type FakeGoogleCalendar, GRACE, HOLIDAYS, htmlLink, startFakeGoogleCalendar } from '../fakes/google-calendar.ts';
import type { TestApp } from '../support/app.ts';
import { kindHarness, storedDocument, storedIds, syncConnector } from './support.ts';

const eventsPath = (calendarId: string) => `/calendar/v3/calendars/${encodeURIComponent(calendarId)}/events`;
const id = (calendarId: string, eventId: string) => `event:${calendarId}:${eventId}`;

describe('google_calendar connector against the fake Calendar v3 API', () => {
  let t: TestApp;
  let cal: FakeGoogleCalendar;
  let worker: Worker;
  let cid: string;
  const clock = fixedClock(new Date());
  before(async () => {
    cal = await startFakeGoogleCalendar();
    ({ t, worker } = await kindHarness('google_calendar', cal.url, { clock, oauthClient: { client_id: 'cal-client.apps.googleusercontent.com', client_secret: 'cal-secret', token_url: `${cal.url}/token` } }));
  });
  after(async () => {
    await t.close();
    await cal.close();
  });

  const create = async (settings: Record<string, unknown> = {}, credentials: Record<string, unknown> = { access_token: cal.token }) => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'google_calendar', display_name: 'Calendar', credentials, settings } });
    assert.equal(r.statusCode, 201, r.body);
    await worker.drain();
    return r.json().connector_id as string;
  };
  const stored = async (c = cid) => storedIds(t.db, c);
  const doc = async (externalId: string, c = cid) => storedDocument(t.db, c, externalId);
  const sync = (full: boolean, c = cid) => syncConnector(t, worker, c, full);
  const calls = (path: string | RegExp) => cal.fake.requestsTo(path);

  it('validates through calendarList: the account is the primary calendar id', async () => {
    cid = await create();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${cid}`, headers: t.admin })).json();
    assert.equal(c.status, 'connected', JSON.stringify(c));
    assert.equal(calls('/calendar/v3/users/me/calendarList')[0]?.query.minAccessRole, 'reader');
  });

  it('a full sync stores the events of every readable calendar, mapped (times, place, people, description as text, ACL)', async () => {
    cal.fake.requests.length = 0;
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), [
      id(ADA, 'evt-1on1'),
      id(ADA, 'evt-2019'),
      id(ADA, 'evt-allhands'),
      id(ADA, 'evt-design'),
      id(ADA, 'evt-offsite'),
      id(ADA, 'evt-weekly'),
      id(ADA, 'evt-weekly_20250113T080000Z'),
      id(HOLIDAYS, 'evt-newyear'),
      id(ENG, 'evt-retro'),
    ]);
    const design = await doc(id(ADA, 'evt-design'));
    assert.ok(design);
    assert.equal(design.title, 'Atlas design review');
    assert.equal(
      design.content,
      [
        'When: 2025-01-06 10:00–11:00 (Europe/Berlin)',
        'Where: Room 4.2, Berlin office',
        'Video call: https://meet.google.com/abc-defg-hij',
        'Organizer: Ada Lovelace <ada@atrium.test>',
        'Attendees: Ada Lovelace <ada@atrium.test> (accepted), Bob Partner <Bob@Partner.test> (accepted), Carol <carol@atrium.test> (not responded, optional), Berlin-4-Room 4.2 (8) <c_188@resource.calendar.google.com> (room)',
        '',
        'Agenda\nReview the columnar shard layout.\nDesign doc',
      ].join('\n'),
    );
    assert.equal(design.url, htmlLink(ADA, 'evt-design'));
    assert.equal(design.author, ADA);
    assert.equal(design.document_type, 'event');
    const e = cal.data.events.find((x) => x.id === 'evt-design');
    assert.equal(new Date(String(design.created_at)).toISOString(), e?.created);
    assert.equal(new Date(String(design.updated_at)).toISOString(), e?.updated);
    assert.deepEqual(design.acl, { users: ['ada@atrium.test', 'bob@partner.test', 'carol@atrium.test'], groups: [`google_calendar:${ADA}`] });
    const meta = design.metadata as Record<string, unknown>;
    assert.equal(meta.calendar_id, ADA);
    assert.equal(meta.start, '2025-01-06T10:00:00+01:00');

    assert.deepEqual((await doc(id(ADA, 'evt-allhands')))?.acl, { public: true, users: [ADA], groups: [`google_calendar:${ADA}`] });
    // Private: the guests and the connected account, not the calendar's readers.
    assert.deepEqual((await doc(id(ADA, 'evt-1on1')))?.acl, { users: ['ada@atrium.test', 'bob@partner.test'] });
    assert.match(String((await doc(id(ADA, 'evt-offsite')))?.content), /^When: 2025-02-03 – 2025-02-04 \(all day\)\nWhere: Lisbon/);
    assert.match(String((await doc(id(ADA, 'evt-weekly')))?.content), /\nRepeats: RRULE:FREQ=WEEKLY;BYDAY=MO\n/);
    const moved = await doc(id(ADA, 'evt-weekly_20250113T080000Z'));
    assert.equal((moved?.metadata as Record<string, unknown> | undefined)?.recurring_event_id, 'evt-weekly');
    const retro = await doc(id(ENG, 'evt-retro'));
    assert.equal(retro?.content, 'When: 2025-01-08 14:00–15:00 (America/New_York)\nOrganizer: Engineering <eng-team@group.calendar.google.com>\nAttendees: Grace Hopper <Grace@Atrium.test> (accepted), linus@atrium.test (tentative)\n\nTimeline:\n- 09:12 alert fired\n- 09:40 rollback');
    assert.deepEqual(retro?.acl, { users: ['eng-team@group.calendar.google.com', 'grace@atrium.test', 'linus@atrium.test'], groups: [`google_calendar:${ENG}`] });
    assert.equal((await doc(id(HOLIDAYS, 'evt-newyear')))?.title, "New Year's Day");

    // One listing per calendar with details (not the busy-only one), series not expanded, deletions shown, paged.
    const lists = calls(/\/events$/);
    assert.equal(calls(eventsPath(GRACE)).length, 0);
    assert.ok(lists.every((r) => r.query.singleEvents === 'false' && r.query.showDeleted === 'true' && r.query.maxResults === '250' && !r.query.timeMin && !r.query.syncToken));
    assert.deepEqual(calls(eventsPath(ADA)).map((r) => Boolean(r.query.pageToken)), [false, true, true]);
    assert.equal(calls(eventsPath(HOLIDAYS)).length, 1);
    // The connected account is mirrored as a reader of each calendar group.
    const members = await t.db.query<{ member: string }>('SELECT member FROM identity_memberships WHERE group_id = $1', [`google_calendar:${ENG}`]);
    assert.deepEqual(members.rows.map((r) => r.member), [ADA]);
  });

  it('stored events are searchable', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'columnar shard layout review', mode: 'lexical' } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().passages[0]?.external_id, id(ADA, 'evt-design'));
  });

  it('an incremental sync reads each calendar from its sync token: edits, new events, cancellations; a 403 quota answer is waited out', async () => {
    cal.updateEvent(ADA, 'evt-design', { description: 'Agenda: compaction moved to nightly runs.' });
    cal.cancelEvent(ADA, 'evt-1on1');
    cal.addEvent(ENG, { id: 'evt-oncall', summary: 'On-call handover', organizer: { email: ENG, displayName: 'Engineering' }, description: 'Pager rotation changes.' });
    cal.fake.requests.length = 0;
    cal.quotaNext(1, (req) => req.path === eventsPath(ADA));
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    assert.deepEqual([run.added, run.updated, run.deleted], [1, 1, 1]);
    assert.ok(run.rate_limited_waits >= 1, 'the 403 userRateLimitExceeded was a rate limit');
    assert.match(String((await doc(id(ADA, 'evt-design')))?.content), /compaction moved to nightly runs/);
    assert.equal(await doc(id(ADA, 'evt-1on1')), undefined);
    assert.ok(await doc(id(ENG, 'evt-oncall')));
    const lists = calls(/\/events$/).filter((r) => r.status === 200);
    assert.equal(lists.length, 3);
    assert.ok(lists.every((r) => r.query.syncToken && !r.query.timeMin && r.query.showDeleted === 'true'));
  });

  it('a 410 on a sync token lists that calendar again and deletes what it no longer shows; the other calendars stay incremental', async () => {
    cal.expireTokens(ADA);
    cal.purgeEvent(ADA, 'evt-offsite');
    cal.updateEvent(ADA, 'evt-allhands', { summary: 'Company all-hands (Q1)' });
    cal.fake.requests.length = 0;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.equal(c.sync_runs[0].deleted, 1);
    assert.equal(await doc(id(ADA, 'evt-offsite')), undefined);
    assert.equal((await doc(id(ADA, 'evt-allhands')))?.title, 'Company all-hands (Q1)');
    assert.ok(await doc(id(ADA, 'evt-design')), 'the rest of the calendar is kept');
    const ada = calls(eventsPath(ADA));
    assert.equal(ada[0]?.status, 410);
    assert.ok(ada.slice(1).every((r) => !r.query.syncToken && r.status === 200));
    assert.ok(calls(eventsPath(ENG)).every((r) => r.query.syncToken));
    // The relisting ended with a fresh token: the next incremental is a token read again.
    cal.fake.requests.length = 0;
    await sync(false);
    assert.deepEqual(calls(eventsPath(ADA)).map((r) => [r.status, Boolean(r.query.syncToken)]), [[200, true]]);
  });

  it('a calendar that leaves the calendar list loses its events; subscribed again, it is listed whole', async () => {
    const eng = cal.data.calendars.find((x) => x.id === ENG);
    assert.ok(eng);
    eng.subscribed = false;
    let c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual((await stored()).filter((x) => x.startsWith(`event:${ENG}:`)), []);
    eng.subscribed = true;
    cal.fake.requests.length = 0;
    c = await sync(false);
    assert.equal(c.sync_runs[0].added, 2);
    assert.deepEqual((await stored()).filter((x) => x.startsWith(`event:${ENG}:`)), [id(ENG, 'evt-oncall'), id(ENG, 'evt-retro')]);
    assert.ok(calls(eventsPath(ENG)).every((r) => !r.query.syncToken));
  });

  it('a vendor 5xx fails the attempt, the job retries from its checkpoint, and nothing stored is lost', async () => {
    const before = await stored();
    cal.fake.failNext(1, 503, (req) => req.path === eventsPath(HOLIDAYS));
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${cid}/sync?full=true`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    const jobId = r.json().job_id as string;
    await worker.drain();
    assert.deepEqual(await stored(), before, 'nothing deleted by the failed attempt');
    const job = await t.db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM jobs WHERE id = $1', [jobId]);
    assert.deepEqual(job.rows.map((x) => [x.status, Number(x.attempts)]), [['queued', 1]]);
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [jobId]);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${cid}`, headers: t.admin })).json();
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.equal(c.sync_runs[0].status, 'completed');
    assert.deepEqual(await stored(), before);
  });

  it('calendars and time_min_days narrow a connector: primary by name, a calendar by id, old events left out of full listings', async () => {
    // Enough days back to reach 2020, not 2019.
    const days = Math.ceil((Date.now() - Date.parse('2020-01-01T00:00:00Z')) / 86_400_000);
    const scoped = await create({ calendars: ['primary', HOLIDAYS], time_min_days: days });
    cal.fake.requests.length = 0;
    const c = await sync(true, scoped);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const ids = await stored(scoped);
    assert.ok(ids.includes(id(ADA, 'evt-design')) && ids.includes(id(HOLIDAYS, 'evt-newyear')));
    assert.ok(!ids.includes(id(ADA, 'evt-2019')), 'ended before the window');
    assert.ok(!ids.some((x) => x.startsWith(`event:${ENG}:`)));
    assert.ok(calls(/\/events$/).every((r) => r.query.timeMin && Date.parse(r.query.timeMin) > Date.parse('2019-12-01T00:00:00Z')));
    cal.fake.requests.length = 0;
    await sync(false, scoped);
    assert.ok(calls(/\/events$/).every((r) => r.query.syncToken && !r.query.timeMin));
  });

  it('a calendar id that does not exist puts the connector in error naming calendars', async () => {
    const bad = await create({ calendars: ['nobody@group.calendar.google.com'] });
    const c = await sync(true, bad);
    assert.equal(c.status, 'error');
    assert.match(c.status_reason, /settings are invalid: calendars: calendar 'nobody@group.calendar.google.com' does not exist/);
  });

  it('unknown settings keys and malformed values are refused with 400 naming the field', async () => {
    const post = (settings: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'google_calendar', display_name: 'x', credentials: { access_token: cal.token }, settings } });
    const cases: [Record<string, unknown>, string][] = [
      [{ calendar_ids: [ADA] }, 'settings'],
      [{ calendars: ['not a calendar'] }, 'settings.calendars.0'],
      [{ calendars: [] }, 'settings.calendars'],
      [{ time_min_days: 0 }, 'settings.time_min_days'],
    ];
    for (const [settings, path] of cases) {
      const r = await post(settings);
      assert.equal(r.statusCode, 400, r.body);
      assert.ok(
        r.json().error.details.problems.some((p: { path: string; message: string }) => p.path === path || (path === 'settings' && /calendar_ids/.test(p.message))),
        `${JSON.stringify(settings)} → ${r.body}`,
      );
    }
  });

  it('OAuth: the authorize URL asks Google for calendar.readonly offline with consent; the callback connects and the sync uses the token', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'google_calendar', display_name: 'Calendar (OAuth)', settings: { calendars: [HOLIDAYS] } } });
    assert.equal(created.statusCode, 201, created.body);
    const { connector_id: oid, oauth_url: oauthUrl } = created.json();
    const u = new URL(oauthUrl);
    assert.equal(`${u.origin}${u.pathname}`, 'https://accounts.google.com/o/oauth2/v2/auth');
    assert.equal(u.searchParams.get('scope'), 'https://www.googleapis.com/auth/calendar.readonly');
    assert.equal(u.searchParams.get('access_type'), 'offline');
    assert.equal(u.searchParams.get('prompt'), 'consent');
    const cb = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=google-code` });
    assert.ok(cb.statusCode < 400, cb.body);
    await worker.drain();
    const c = await sync(true, oid);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(oid), [id(HOLIDAYS, 'evt-newyear')]);
    assert.ok(cal.fake.requests.some((r) => r.token === 'ya29.oauth-1'));
  });

  it('a revoked token puts the connector in error with a sentence naming Google’s answer; stored events are kept', async () => {
    cal.fake.revoke(cal.token);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error');
      assert.match(c.status_reason, /rejected the credentials: Google Calendar answered 401 authError \(Invalid Credentials\)/);
      assert.ok((await stored()).length > 0, 'stored documents are kept');
    } finally {
      cal.fake.allow(cal.token);
    }
  });
});
