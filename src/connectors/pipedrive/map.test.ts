import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { activity, activityToDocument, deal, dealToDocument, htmlText, linkKey, pipedriveTime, visibilityAcl } from './map.ts';

const m = { companyDomain: 'acme', linked: new Map([[linkKey('persons', 7), { name: 'Jane Doe', owner_id: 3, visible_to: 1 }]]) };

describe('pipedrive map', () => {
  it('reads v1 and v2 times as ISO UTC', () => {
    assert.equal(pipedriveTime('2026-01-05 09:00:00'), '2026-01-05T09:00:00.000Z');
    assert.equal(pipedriveTime('2026-01-05T09:00:00Z'), '2026-01-05T09:00:00.000Z');
    assert.equal(pipedriveTime('not a time'), 'not a time');
  });

  it('visible_to 3/7 → public; 1/5 → the owner; unknown without owner → public', () => {
    assert.deepEqual(visibilityAcl(4, 3), { public: true });
    assert.deepEqual(visibilityAcl(4, 7), { public: true });
    assert.deepEqual(visibilityAcl(4, 1), { users: ['pipedrive:4'] });
    assert.deepEqual(visibilityAcl(4, 5), { users: ['pipedrive:4'] });
    assert.deepEqual(visibilityAcl(null, null), { public: true });
  });

  it('HTML as text, plain text as is', () => {
    assert.equal(htmlText('<p>a <b>b</b></p>'), 'a b');
    assert.equal(htmlText('x < y'), 'x < y');
  });

  it('a deal whose linked records are unknown shows their ids; no company domain, no URL', () => {
    const d = deal.parse({ id: 5, title: 'T', owner_id: 2, value: null, person_id: 9, org_id: null, visible_to: '3', add_time: '2026-01-01T00:00:00Z', update_time: '2026-01-02T00:00:00Z' });
    const doc = dealToDocument(d, { companyDomain: null, linked: new Map() });
    assert.equal(doc.content, 'Deal: T\n\nPerson: #9');
    assert.equal(doc.url, undefined);
    assert.deepEqual(doc.acl, { public: true }, "v1's string visible_to");
  });

  it('an activity follows the visibility of its person when it has no deal', () => {
    const a = activity.parse({ id: 1, subject: null, type: 'meeting', owner_id: 8, person_id: 7, done: true, add_time: '2026-01-01T00:00:00Z', update_time: '2026-01-01T00:00:00Z' });
    const doc = activityToDocument(a, m);
    assert.equal(doc.title, 'meeting 1');
    assert.equal(doc.url, 'https://acme.pipedrive.com/person/7');
    assert.deepEqual(doc.acl, { users: ['pipedrive:3'] });
    assert.match(doc.content, /Done: yes\n\nPerson: Jane Doe/);
  });
});
