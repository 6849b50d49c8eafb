import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkGoogleResponse, googleErrorReasons } from './google.ts';
import { VendorAuthError, VendorHttpError, VendorRateLimitedError } from './index.ts';

const google = (code: number, reason: string | null, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ error: { code, message: 'the message', errors: reason ? [{ domain: 'usageLimits', reason }] : [] } }), { status: code, headers });
const check = { vendor: 'Google Thing', authHint: 'reconnect', nowMs: 0 };

describe('kit: Google error classification', () => {
  it('reads error.errors[].reason and ErrorInfo details; not JSON → none', () => {
    assert.deepEqual(googleErrorReasons(JSON.stringify({ error: { errors: [{ reason: 'userRateLimitExceeded' }], details: [{ reason: 'RATE_LIMIT_EXCEEDED' }] } })), ['userRateLimitExceeded', 'RATE_LIMIT_EXCEEDED']);
    assert.deepEqual(googleErrorReasons('<html>'), []);
    assert.deepEqual(googleErrorReasons('{"error":"x"}'), []);
  });

  it('quota 403 and 429 are rate limits (Retry-After honoured); 401 and other 403s are credentials; 404 and 5xx are HTTP errors', async () => {
    await assert.rejects(checkGoogleResponse(google(403, 'dailyLimitExceeded', { 'retry-after': '4' }), check), (e: unknown) => e instanceof VendorRateLimitedError && e.retryAfterMs === 4000);
    await assert.rejects(checkGoogleResponse(google(429, 'rateLimitExceeded'), check), VendorRateLimitedError);
    await assert.rejects(checkGoogleResponse(google(403, 'sharingRateLimitExceeded'), check), (e: unknown) => e instanceof VendorAuthError && /403 sharingRateLimitExceeded \(the message\): reconnect/.test(e.message));
    await assert.rejects(checkGoogleResponse(google(403, 'sharingRateLimitExceeded'), { ...check, moreRateLimitReasons: ['sharingRateLimitExceeded'] }), VendorRateLimitedError);
    await assert.rejects(checkGoogleResponse(google(401, null), check), (e: unknown) => e instanceof VendorAuthError && /401 forbidden/.test(e.message));
    await assert.rejects(checkGoogleResponse(google(404, null), check), (e: unknown) => e instanceof VendorHttpError && e.status === 404 && /404 notFound: the message/.test(e.message));
    await assert.rejects(checkGoogleResponse(google(500, 'backendError'), check), (e: unknown) => e instanceof VendorHttpError && e.transient);
    const ok = new Response('{}');
    assert.equal(await checkGoogleResponse(ok, check), ok);
  });

  it("a kind's own errors come after the rate limit check; other statuses are read only when asked", async () => {
    class Gone extends Error {}
    const special = (e: { status: number; reason: string }) => (e.status === 410 ? new Gone(e.reason) : undefined);
    await assert.rejects(checkGoogleResponse(google(410, null), { ...check, alsoRead: [410], special }), (e: unknown) => e instanceof Gone && e.message === 'gone');
    await assert.rejects(checkGoogleResponse(google(410, null), { ...check, special }), (e: unknown) => e instanceof VendorHttpError && e.status === 410);
    await assert.rejects(checkGoogleResponse(google(403, 'userRateLimitExceeded'), { ...check, special: () => new Gone('x') }), VendorRateLimitedError);
  });
});
