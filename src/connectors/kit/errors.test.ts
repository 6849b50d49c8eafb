import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rateLimitFromResponse } from './errors.ts';

describe('vendor rate limits from responses', () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name];
  it('reads 429, an exhausted quota (403, remaining 0) and a secondary limit (403 with Retry-After)', () => {
    assert.equal(rateLimitFromResponse(429, headers({ 'retry-after': '3' }))?.retryAfterMs, 3000);
    assert.ok(rateLimitFromResponse(403, headers({ 'x-ratelimit-remaining': '0' })));
    assert.equal(rateLimitFromResponse(403, headers({ 'retry-after': '60' }))?.retryAfterMs, 60_000);
    assert.equal(rateLimitFromResponse(403, headers({ 'x-ratelimit-remaining': '4000' })), null, 'a plain 403 is a permission problem');
    assert.equal(rateLimitFromResponse(500, headers({ 'retry-after': '1' })), null);
  });

  it('waits for x-ratelimit-reset only when the quota is spent; a 429 with quota left backs off instead', () => {
    const inAnHour = String(Math.floor(Date.now() / 1000) + 3600);
    const spent = rateLimitFromResponse(403, headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': inAnHour }))?.retryAfterMs ?? 0;
    assert.ok(spent > 3_500_000, `waits for the reset: ${spent}`);
    const left = rateLimitFromResponse(429, headers({ 'x-ratelimit-remaining': '4999', 'x-ratelimit-reset': inAnHour }));
    assert.ok(left, 'still a rate limit');
    assert.equal(left.retryAfterMs, null, 'no hour-long block: the caller backs off exponentially');
  });
});
