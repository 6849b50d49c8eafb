import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VendorAuthError, VendorHttpError, VendorRateLimitedError } from '../kit/index.ts';
import { checkDriveResponse, DriveFileError } from './client.ts';

const googleError = (code: number, reason: string, message = 'x', headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ error: { code, message, errors: [{ domain: 'usageLimits', reason, message }] } }), { status: code, headers });

const rejects = async (res: Response, perFile: boolean) => {
  try {
    await checkDriveResponse(res, perFile, Date.parse('2025-01-01T00:00:00Z'));
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
};

describe('google_drive error classification', () => {
  it('a 403 quota answer is a rate limit, not rejected credentials', async () => {
    const err = await rejects(googleError(403, 'userRateLimitExceeded'), false);
    assert.ok(err instanceof VendorRateLimitedError);
    assert.equal(err.retryAfterMs, null);
    const limited = await rejects(googleError(403, 'rateLimitExceeded', 'x', { 'retry-after': '7' }), true);
    assert.ok(limited instanceof VendorRateLimitedError);
    assert.equal(limited.retryAfterMs, 7000);
    assert.ok((await rejects(googleError(403, 'sharingRateLimitExceeded'), false)) instanceof VendorRateLimitedError);
  });

  it('429 waits Retry-After; 401 and a missing scope are credential problems', async () => {
    const r429 = await rejects(googleError(429, 'rateLimitExceeded', 'x', { 'retry-after': '2' }), false);
    assert.ok(r429 instanceof VendorRateLimitedError);
    const r401 = await rejects(googleError(401, 'authError', 'Invalid Credentials'), false);
    assert.ok(r401 instanceof VendorAuthError);
    assert.match(r401.message, /401 authError \(Invalid Credentials\)/);
    assert.ok((await rejects(googleError(403, 'insufficientPermissions'), true)) instanceof VendorAuthError);
  });

  it("one file's 403 or 404 is that file's problem; 5xx is transient", async () => {
    const file = await rejects(googleError(403, 'exportSizeLimitExceeded'), true);
    assert.ok(file instanceof DriveFileError);
    assert.equal(file.reason, 'exportSizeLimitExceeded');
    assert.ok((await rejects(googleError(404, 'notFound'), true)) instanceof DriveFileError);
    const listing404 = await rejects(googleError(404, 'notFound'), false);
    assert.ok(listing404 instanceof VendorHttpError && !(listing404 instanceof DriveFileError));
    const backend = await rejects(googleError(500, 'backendError'), false);
    assert.ok(backend instanceof VendorHttpError && backend.transient);
  });
});
