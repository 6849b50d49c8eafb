import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { associationLines, crmObject, htmlText, nameKey, objectToDocument, recordAcl, recordName } from './map.ts';

const m = { portalId: '42', uiDomain: 'app.hubspot.com', names: new Map([[nameKey('companies', '1'), 'Acme'], [nameKey('contacts', '2'), 'Jane Doe']]) };

describe('hubspot map', () => {
  it('names records as other records show them', () => {
    assert.equal(recordName('contacts', { firstname: 'Jane', lastname: null, email: 'j@x.test' }), 'Jane');
    assert.equal(recordName('contacts', { firstname: ' ', lastname: null, email: 'j@x.test' }), 'j@x.test');
    assert.equal(recordName('companies', { name: null, domain: 'acme.com' }), 'acme.com');
    assert.equal(recordName('notes', { hs_note_body: 'x' }), null);
  });

  it('renders associations by name, unknown ids as #id', () => {
    assert.deepEqual(associationLines({ companies: ['1', '9'], contacts: ['2'] }, m.names), ['Companies: Acme, #9', 'Contacts: Jane Doe']);
  });

  it('ACL: owner → hubspot:<owner id>, team → hubspot:team:<id>, neither → public', () => {
    assert.deepEqual(recordAcl({ hubspot_owner_id: '7' }), { users: ['hubspot:7'] });
    assert.deepEqual(recordAcl({ hubspot_team_id: '3' }), { groups: ['hubspot:team:3'] });
    assert.deepEqual(recordAcl({ hubspot_owner_id: null }), { public: true });
  });

  it('note HTML becomes text; plain text passes through', () => {
    assert.equal(htmlText('<p>Hello <b>there</b></p>'), 'Hello there');
    assert.equal(htmlText(' plain 3 < 4 '), 'plain 3 < 4');
    assert.equal(htmlText(null), '');
  });

  it('maps a deal with its amount, stage, associations, URL and dates', () => {
    const o = crmObject.parse({
      id: '5',
      properties: { dealname: 'Renewal', amount: '100', deal_currency_code: 'USD', dealstage: 'closedwon', pipeline: 'default', hubspot_owner_id: '7', hs_lastmodifieddate: '2026-02-01T00:00:00.000Z' },
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-02-01T00:00:00.000Z',
    });
    const d = objectToDocument('deals', o, { companies: ['1'] }, m);
    assert.equal(d.external_id, 'deal:5');
    assert.equal(d.title, 'Renewal');
    assert.equal(d.content, 'Deal: Renewal\nAmount: 100 USD\nPipeline: default\nStage: closedwon\n\nCompanies: Acme');
    assert.equal(d.url, 'https://app.hubspot.com/contacts/42/record/0-3/5');
    assert.equal(d.author, 'hubspot:7');
    assert.equal(d.document_type, 'deal');
    assert.deepEqual([d.created_at, d.updated_at], ['2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z']);
    assert.equal(d.metadata?.modified, '2026-02-01T00:00:00.000Z');
  });

  it('a note without associations is titled by its first line and has no URL', () => {
    const o = crmObject.parse({ id: '8', properties: { hs_note_body: '<div>Follow up next week</div><div>second</div>' } });
    const d = objectToDocument('notes', o, {}, m);
    assert.equal(d.title, 'Note: Follow up next week');
    assert.equal(d.url, undefined);
    assert.deepEqual(d.acl, { public: true });
  });
});
