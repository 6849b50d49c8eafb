import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VendorAuthError, VendorHttpError, VendorRateLimitedError } from '../kit/index.ts';
import { classifyErrors } from './client.ts';
import { boardAcl, columnLines, item, itemToDocument, update, updateToDocument } from './map.ts';
import { updatedSinceQuery } from './sync.ts';

const place = { boardId: '10', boardName: 'Roadmap', slug: 'acme', acl: { public: true } };

describe('monday map', () => {
  it('ACL: public boards are public, private and shareable boards their group', () => {
    assert.deepEqual(boardAcl({ id: '1', board_kind: 'public' }), { public: true });
    assert.deepEqual(boardAcl({ id: '1', board_kind: 'private' }), { groups: ['monday:board:1'] });
    assert.deepEqual(boardAcl({ id: '1', board_kind: 'share' }), { groups: ['monday:board:1'] });
  });

  it('renders column values as Title: text lines, leaving out the name column and empty values', () => {
    const i = item.parse({ id: '1', name: 'X', column_values: [{ id: 'name', text: 'X', column: { title: 'Name' } }, { id: 's', text: 'Done', column: { title: 'Status' } }, { id: 'e', text: '', column: { title: 'Empty' } }, { id: 'n', text: null }] });
    assert.deepEqual(columnLines(i), ['Status: Done']);
  });

  it('maps an item with its board/group line, creator email, link and dates', () => {
    const i = item.parse({ id: '5', name: 'SSO', created_at: '2026-01-05T09:00:00Z', updated_at: '2026-01-06T09:00:00Z', creator: { id: 7, name: 'Ada', email: 'Ada@X.test' }, group: { id: 'q1', title: 'Q1' }, column_values: [{ id: 's', text: 'Working on it', column: { title: 'Status' } }] });
    const d = itemToDocument(i, place);
    assert.equal(d.external_id, 'item:5');
    assert.equal(d.content, 'Board: Roadmap / Q1\n\nStatus: Working on it');
    assert.equal(d.url, 'https://acme.monday.com/boards/10/pulses/5');
    assert.equal(d.author, 'ada@x.test');
    assert.equal(d.metadata?.modified, '2026-01-06T09:00:00.000Z');
  });

  it('maps an update with its replies; an author without email is monday:<id>', () => {
    const u = update.parse({ id: 9, text_body: 'Review booked.', created_at: '2026-01-05T09:00:00Z', creator: { id: 3, name: 'Bot' }, replies: [{ id: 1, text_body: 'Thanks!', creator: { id: 4, name: 'Ada' } }] });
    const d = updateToDocument({ id: '5', name: 'SSO' }, u, place);
    assert.equal(d.external_id, 'update:5:9');
    assert.equal(d.title, 'Update on SSO');
    assert.equal(d.content, 'Review booked.\n\nReplies:\nAda: Thanks!');
    assert.equal(d.url, 'https://acme.monday.com/boards/10/pulses/5/posts/9');
    assert.equal(d.author, 'monday:3');
  });

  it('asks the last-updated column from the day before the cursor (the filter has day precision)', () => {
    assert.deepEqual(updatedSinceQuery('2026-03-01T00:30:00.000Z'), {
      rules: [{ column_id: '__last_updated__', compare_value: ['EXACT', '2026-02-28'], operator: 'greater_than', compare_attribute: 'UPDATED_AT' }],
    });
  });

  it("classifies monday's errors: budget and minute limits wait, rejected tokens are credentials, the rest HTTP-like", () => {
    const budget = classifyErrors({ errors: [{ message: 'Complexity budget exhausted', extensions: { code: 'COMPLEXITY_BUDGET_EXHAUSTED', retry_in_seconds: 7 } }] }, null, 'hint');
    assert.ok(budget instanceof VendorRateLimitedError);
    assert.equal(budget.retryAfterMs, 7000);
    const legacy = classifyErrors({ error_code: 'ComplexityException', status_code: 429, error_message: 'Complexity budget exhausted, query cost 30001 budget remaining 19986 out of 1000000 reset in 3 seconds' }, null, 'hint');
    assert.ok(legacy instanceof VendorRateLimitedError);
    assert.equal(legacy.retryAfterMs, 3000);
    const minute = classifyErrors({ errors: [{ message: 'Rate Limit Exceeded', extensions: { code: 'RATE_LIMIT_EXCEEDED' } }] }, 20_000, 'hint');
    assert.equal(minute instanceof VendorRateLimitedError && minute.retryAfterMs, 20_000, 'Retry-After when the body has no delay');
    const auth = classifyErrors({ errors: [{ message: 'Not Authenticated', extensions: { code: 'UNAUTHENTICATED', status_code: 401 } }] }, null, 'check the token');
    assert.ok(auth instanceof VendorAuthError);
    assert.match(auth.message, /401 \(Not Authenticated, UNAUTHENTICATED\): check the token/);
    const partial = classifyErrors({ data: { boards: [] }, errors: [{ message: 'User unauthorized to perform action', extensions: { code: 'UserUnauthorizedException', status_code: 403 } }] }, null, 'h');
    assert.equal(partial, null, 'an unauthorized field beside data is not a failure: the partial answer is used');
    const bad = classifyErrors({ errors: [{ message: 'Parse error on "}"', extensions: { code: 'GRAPHQL_PARSE_FAILED' } }] }, null, 'h');
    assert.ok(bad instanceof VendorHttpError && !bad.transient);
    const internal = classifyErrors({ errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] }, null, 'h');
    assert.ok(internal instanceof VendorHttpError && internal.transient);
    assert.equal(classifyErrors({ data: {} }, null, 'h'), null);
  });
});
