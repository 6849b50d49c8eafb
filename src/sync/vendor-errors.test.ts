import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rateLimitFromResponse } from './vendor-errors.ts';

describe('vendor rate limits from responses', () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name];
  it('reads 429, an exhausted quota (403, remaining 0) and a secondary limit (403 with Retry-After)', () => {
    assert.equal(rateLimitFromResponse(429, headers({ 'retry-after': '3' }))?.retryAfterMs, 3000);
    assert.ok(rateLimitFromResponse(403, headers({ 'x-ratelimit-remaining': '0' })));
    assert.equal(rateLimitFromResponse(403, headers({ 'retry-after': '60' }))?.retryAfterMs, 60_000);
    assert.equal(rateLimitFromResponse(403, headers({ 'x-ratelimit-remaining': '4000' })), null, 'a plain 403 is a permission problem');
    assert.equal(rateLimitFromResponse(500, headers({ 'retry-after': '1' })), null);
  });
});
