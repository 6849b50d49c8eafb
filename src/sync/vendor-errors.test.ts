import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maskSecrets, rateLimitFromResponse, secretStrings } from './vendor-errors.ts';

describe('credential masking', () => {
  it('collects every string of 8+ characters, nested values included', () => {
    const secrets = secretStrings({ access_token: 'ghp_abcdefgh', refresh_token: 'short', nested: { list: ['xoxb-12345678', 42, null] } });
    assert.deepEqual([...secrets].sort(), ['ghp_abcdefgh', 'xoxb-12345678']);
  });

  it('masks every occurrence, longest secret first, and URL-encoded forms', () => {
    const secrets = ['abcdefgh', 'abcdefgh-and-more', 'p@ss word!'];
    assert.equal(maskSecrets('token abcdefgh-and-more then abcdefgh and abcdefgh', secrets), 'token *** then *** and ***');
    assert.equal(maskSecrets('https://x/?key=p%40ss%20word!', secrets), 'https://x/?key=***');
    assert.equal(maskSecrets('nothing to hide', secrets), 'nothing to hide');
    assert.equal(maskSecrets('nothing to hide', []), 'nothing to hide');
  });
});

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
