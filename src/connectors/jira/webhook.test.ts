import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jiraSignature, jiraWebhook, verifyJiraDelivery } from './webhook.ts';

describe('jira webhook verification', () => {
  const secret = 'jira-admin-webhook-secret';
  const raw = JSON.stringify({ timestamp: 1767603600000, webhookEvent: 'jira:issue_updated', issue: { id: '10101', key: 'ENG-7' } });

  it('accepts sha256=<hex HMAC-SHA256 of the raw body>, hex in either case', () => {
    const sig = jiraSignature(secret, raw);
    assert.match(sig, /^sha256=[0-9a-f]{64}$/);
    assert.deepEqual(verifyJiraDelivery({ signature: sig, rawBody: raw, secret }), { ok: true });
    assert.deepEqual(verifyJiraDelivery({ signature: `sha256=${sig.slice(7).toUpperCase()}`, rawBody: raw, secret }), { ok: true });
  });

  it('refuses a missing, other-method, wrong-secret or other-body signature', () => {
    assert.equal(verifyJiraDelivery({ signature: undefined, rawBody: raw, secret }).ok, false);
    assert.equal(verifyJiraDelivery({ signature: jiraSignature(secret, raw).replace('sha256', 'sha1'), rawBody: raw, secret }).ok, false);
    assert.equal(verifyJiraDelivery({ signature: jiraSignature('other', raw), rawBody: raw, secret }).ok, false);
    assert.equal(verifyJiraDelivery({ signature: jiraSignature(secret, `${raw} `), rawBody: raw, secret }).ok, false);
  });

  it('names a delivery by its webhookEvent', () => {
    assert.equal(jiraWebhook.eventName({ headers: {}, payload: JSON.parse(raw) }), 'jira:issue_updated');
    assert.equal(jiraWebhook.eventName({ headers: {}, payload: {} }), 'unknown');
    assert.equal(jiraWebhook.eventName({ headers: {}, payload: null }), 'unknown');
  });
});
