import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { linearRetryAfterMs } from './client.ts';
import { linearSignature, verifyLinearDelivery } from './webhook.ts';

describe('linear webhook verification', () => {
  const secret = 'lin_wh_secret';
  const now = new Date('2026-03-01T12:00:00Z');
  const body = (ts: unknown) => JSON.stringify({ action: 'create', type: 'Issue', data: { id: 'i1' }, webhookTimestamp: ts });

  it('accepts the HMAC-SHA256 hex of the raw body within the window', () => {
    const raw = body(now.getTime() - 59_000);
    assert.deepEqual(verifyLinearDelivery({ signature: linearSignature(secret, raw), rawBody: raw, secret, now }), { ok: true });
  });

  it('refuses a missing, wrong-length, wrong-secret or other-body signature', () => {
    const raw = body(now.getTime());
    assert.equal(verifyLinearDelivery({ signature: undefined, rawBody: raw, secret, now }).ok, false);
    assert.equal(verifyLinearDelivery({ signature: 'abc', rawBody: raw, secret, now }).ok, false);
    assert.equal(verifyLinearDelivery({ signature: linearSignature('other', raw), rawBody: raw, secret, now }).ok, false);
    assert.equal(verifyLinearDelivery({ signature: linearSignature(secret, `${raw} `), rawBody: raw, secret, now }).ok, false);
  });

  it('refuses signed bodies whose webhookTimestamp is missing or outside 60 s either way', () => {
    for (const ts of [undefined, 'soon', now.getTime() - 61_000, now.getTime() + 61_000]) {
      const raw = body(ts);
      const r = verifyLinearDelivery({ signature: linearSignature(secret, raw), rawBody: raw, secret, now });
      assert.equal(r.ok, false, String(ts));
    }
  });
});

describe('linear rate-limit wait', () => {
  it('prefers Retry-After seconds, else the requests reset epoch (ms), else unknown', () => {
    assert.equal(linearRetryAfterMs({ retryAfter: 3, requestsResetAt: 9e12 }, 0), 3000);
    assert.equal(linearRetryAfterMs({ requestsResetAt: 10_500 }, 10_000), 500);
    assert.equal(linearRetryAfterMs({ requestsResetAt: 5 }, 10_000), 0);
    assert.equal(linearRetryAfterMs({}, 0), null);
  });
});
