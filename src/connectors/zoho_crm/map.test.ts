import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VendorAuthError, VendorRateLimitedError } from '../kit/index.ts';
import { classifyError, crmUrl } from './client.ts';
import { ownerAcl, recordToDocument } from './map.ts';

const owner = { name: 'Patricia Boyle', id: '487600013', email: 'Patricia@Zylker.TEST' };

describe('zoho crm mapping', () => {
  it('renders a deal as readable text with its CRM link, owner author, dates and owner ACL', () => {
    const d = recordToDocument(
      'Deals',
      { id: '4876001', Deal_Name: 'Zylker renewal', Stage: 'Qualification', Amount: 84000, Account_Name: { name: 'Zylker Inc', id: '4876002' }, Description: 'Upsell.', Owner: owner, Created_Time: '2026-01-05T10:00:00+01:00', Modified_Time: '2026-01-06T10:30:00+01:00' },
      'https://crm.zoho.eu',
    );
    assert.equal(d.external_id, 'deal:4876001');
    assert.equal(d.title, 'Zylker renewal');
    assert.equal(d.content, 'Deal: Zylker renewal\nAccount: Zylker Inc\nStage: Qualification\nAmount: 84000\nOwner: Patricia Boyle\n\nDescription: Upsell.');
    assert.equal(d.url, 'https://crm.zoho.eu/crm/tab/Deals/4876001');
    assert.equal(d.author, 'patricia@zylker.test');
    assert.equal(d.document_type, 'deal');
    assert.deepEqual([d.created_at, d.updated_at], ['2026-01-05T09:00:00.000Z', '2026-01-06T09:30:00.000Z']);
    assert.deepEqual(d.acl, { users: ['patricia@zylker.test', 'zoho_crm:487600013'] });
    assert.deepEqual(d.metadata?.account_id, '4876002');
  });

  it('renders a note (HTML content as text) linked to its parent record', () => {
    const d = recordToDocument('Notes', { id: '9', Note_Title: null, Note_Content: '<div>Call <b>back</b> Monday</div>', Parent_Id: { name: 'Lena Schmidt', id: '77' }, $se_module: 'Contacts', Owner: { name: 'Ravi', id: '5' } }, 'https://crm.zoho.com');
    assert.equal(d.title, 'Note on Lena Schmidt');
    assert.equal(d.content, 'Note: Note 9\nOn: Contacts Lena Schmidt\nOwner: Ravi\n\nCall back Monday');
    assert.equal(d.url, 'https://crm.zoho.com/crm/tab/Contacts/77');
    assert.equal(d.author, 'zoho_crm:5');
    assert.deepEqual(ownerAcl({}), {});
  });

  it('derives the CRM host of the data centre from api_domain (settings.crm_url wins)', () => {
    assert.equal(crmUrl({}, 'https://www.zohoapis.eu'), 'https://crm.zoho.eu');
    assert.equal(crmUrl({}, 'https://www.zohoapis.com.au'), 'https://crm.zoho.com.au');
    assert.equal(crmUrl({}, undefined), 'https://crm.zoho.com');
    assert.equal(crmUrl({}, 'http://127.0.0.1:4000'), 'https://crm.zoho.com');
    assert.equal(crmUrl({ crm_url: 'https://crm.zoho.in' }, 'https://www.zohoapis.eu'), 'https://crm.zoho.in');
  });

  it('classifies Zoho errors: INVALID_TOKEN / AUTHENTICATION_FAILURE → credentials, 429 TOO_MANY_REQUESTS → rate limit', () => {
    const none = () => null;
    assert.ok(classifyError(401, '{"code":"INVALID_TOKEN","details":{},"message":"invalid oauth token","status":"error"}', none) instanceof VendorAuthError);
    assert.ok(classifyError(401, '{"code":"AUTHENTICATION_FAILURE","details":{},"message":"Authentication failed","status":"error"}', none) instanceof VendorAuthError);
    const limited = classifyError(429, '{"code":"TOO_MANY_REQUESTS","details":{},"message":"concurrency limit","status":"error"}', (n) => (n === 'retry-after' ? '2' : null));
    assert.ok(limited instanceof VendorRateLimitedError);
    assert.equal(limited.retryAfterMs, 2000);
    assert.match(classifyError(500, '{"code":"INTERNAL_ERROR","message":"boom","status":"error"}', none).message, /Zoho CRM answered HTTP 500: INTERNAL_ERROR: boom/);
  });
});
