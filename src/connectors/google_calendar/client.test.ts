import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VendorAuthError, VendorHttpError, VendorRateLimitedError } from '../kit/index.ts';
import { checkCalendarResponse, SyncTokenGoneError } from './client.ts';

const google = (code: number, reason: string, domain = 'global', headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ error: { errors: [{ domain, reason, message: reason }], code, message: `${reason} message` } }), { status: code, headers });

describe('google_calendar client', () => {
  it('classifies: quota 403 and 429 → rate limit, 410 → sync token gone, 401/other 403 → credentials, 404 and 5xx → HTTP errors', async () => {
    await assert.rejects(checkCalendarResponse(google(403, 'userRateLimitExceeded', 'usageLimits', { 'retry-after': '3' }), 0), (e: unknown) => e instanceof VendorRateLimitedError && e.retryAfterMs === 3000);
    await assert.rejects(checkCalendarResponse(google(429, 'rateLimitExceeded', 'usageLimits')), VendorRateLimitedError);
    await assert.rejects(checkCalendarResponse(google(410, 'fullSyncRequired', 'calendar')), SyncTokenGoneError);
    await assert.rejects(checkCalendarResponse(google(401, 'authError')), (e: unknown) => e instanceof VendorAuthError && /401 authError/.test(e.message));
    await assert.rejects(checkCalendarResponse(google(403, 'insufficientPermissions')), VendorAuthError);
    await assert.rejects(checkCalendarResponse(google(404, 'notFound')), (e: unknown) => e instanceof VendorHttpError && e.status === 404);
    await assert.rejects(checkCalendarResponse(google(503, 'backendError')), (e: unknown) => e instanceof VendorHttpError && e.transient);
    const ok = new Response('{}', { status: 200 });
    assert.equal(await checkCalendarResponse(ok), ok);
  });
});
