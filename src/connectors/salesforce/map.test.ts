import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyError } from './client.ts';
import { articleToDocument, ownerAcl, recordToDocument, sfTime, soqlDateTime, soqlString } from './map.ts';
import { VendorAuthError, VendorRateLimitedError } from '../kit/index.ts';

const account = {
  attributes: { type: 'Account', url: '/services/data/v62.0/sobjects/Account/001A' },
  Id: '001A',
  Name: 'Acme Corp',
  Industry: 'Manufacturing',
  Type: null,
  Description: 'Makes anvils.',
  OwnerId: '005U',
  Owner: { attributes: { type: 'User' }, Name: 'Ada Lovelace', Email: 'Ada@Acme.TEST' },
  CreatedDate: '2026-01-05T10:00:00.000+0100',
  LastModifiedDate: '2026-01-06T09:30:00.000+0000',
};

describe('salesforce mapping', () => {
  it('renders a record as readable text with its Lightning URL, owner author and owner ACL', () => {
    const d = recordToDocument('account', account, 'https://acme.my.salesforce.com/');
    assert.equal(d.external_id, 'account:001A');
    assert.equal(d.title, 'Acme Corp');
    assert.equal(d.content, 'Account: Acme Corp\nIndustry: Manufacturing\nOwner: Ada Lovelace\n\nDescription: Makes anvils.');
    assert.equal(d.url, 'https://acme.my.salesforce.com/lightning/r/Account/001A/view');
    assert.equal(d.author, 'ada@acme.test');
    assert.equal(d.document_type, 'account');
    assert.deepEqual([d.created_at, d.updated_at], ['2026-01-05T09:00:00.000Z', '2026-01-06T09:30:00.000Z']);
    assert.deepEqual(d.acl, { users: ['ada@acme.test', 'salesforce:005U'] });
  });

  it('puts a case\'s comments into its text, marks internal ones, keeps their ids; a queue owner is a group', () => {
    const c = { Id: '500C', CaseNumber: '00001026', Subject: 'Dented anvil', Status: 'Working', OwnerId: '00GQ', Owner: { Name: 'Support Queue', Email: null } };
    const comments = [
      { Id: '00aX', CommentBody: 'Photos received.', IsPublished: true, CreatedBy: { Name: 'Grace' }, CreatedDate: '2026-01-07T00:00:00.000+0000' },
      { Id: '00aY', CommentBody: 'Approved.', IsPublished: false, CreatedById: '005G', CreatedDate: '2026-01-08T00:00:00.000+0000' },
    ];
    const d = recordToDocument('case', c, 'https://acme.my.salesforce.com', comments);
    assert.equal(d.title, 'Case 00001026: Dented anvil');
    assert.ok(d.content.endsWith('Comments:\n- Grace (2026-01-07): Photos received.\n- 005G (2026-01-08) [internal]: Approved.'), d.content);
    assert.deepEqual(d.metadata?.comment_ids, ['00aX', '00aY']);
    assert.deepEqual(d.acl, { groups: ['salesforce:00GQ'] });
    assert.equal(d.author, 'salesforce:00GQ');
    assert.deepEqual(ownerAcl({ OwnerId: '005Z' }), { users: ['salesforce:005Z'] });
  });

  it('renders a knowledge article (body fields from HTML) as public, keyed by article id and language', () => {
    const d = articleToDocument(
      { Id: 'ka0V', KnowledgeArticleId: 'kA0A', ArticleNumber: '000001', Title: 'Returns', Summary: 'How to return.', Language: 'en_US', Answer__c: '<p>Open a <b>case</b>.</p>', CreatedById: '005U' },
      'https://acme.my.salesforce.com',
      { knowledge_object: 'Knowledge__kav', knowledge_body_fields: ['Answer__c'] },
    );
    assert.equal(d.external_id, 'knowledge_article:kA0A:en_US');
    assert.equal(d.content, 'Article: Returns\nArticle number: 000001\nSummary: How to return.\n\nOpen a case.');
    assert.equal(d.url, 'https://acme.my.salesforce.com/lightning/r/Knowledge__kav/ka0V/view');
    assert.deepEqual(d.acl, { public: true });
  });

  it('writes SOQL literals and reads Salesforce timestamps', () => {
    assert.equal(soqlDateTime('2026-01-05T09:00:00.123Z'), '2026-01-05T09:00:00Z');
    assert.equal(soqlString("O'Brien\\"), "'O\\'Brien\\\\'");
    assert.equal(sfTime('2026-07-01T12:00:00.000-0700'), '2026-07-01T19:00:00.000Z');
  });

  it('classifies errors: REQUEST_LIMIT_EXCEEDED is a rate limit (an hour for the daily allocation), INVALID_SESSION_ID rejects the credentials', () => {
    const none = () => null;
    const daily = classifyError(403, '[{"message":"TotalRequests Limit exceeded.","errorCode":"REQUEST_LIMIT_EXCEEDED"}]', none);
    assert.ok(daily instanceof VendorRateLimitedError);
    assert.equal(daily.retryAfterMs, 3_600_000);
    const concurrent = classifyError(403, '[{"message":"ConcurrentRequests (Concurrent API Requests) Limit exceeded.","errorCode":"REQUEST_LIMIT_EXCEEDED"}]', none);
    assert.equal((concurrent as VendorRateLimitedError).retryAfterMs, 60_000);
    const auth = classifyError(401, '[{"message":"Session expired or invalid","errorCode":"INVALID_SESSION_ID"}]', none);
    assert.ok(auth instanceof VendorAuthError);
    assert.match(auth.message, /INVALID_SESSION_ID: Session expired or invalid/);
    const bad = classifyError(400, '[{"message":"sObject type \'KnowledgeArticleVersion\' is not supported.","errorCode":"INVALID_TYPE"}]', none);
    assert.equal((bad as { errorCode?: string }).errorCode, 'INVALID_TYPE');
  });
});
