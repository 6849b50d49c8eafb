import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VendorAuthError, VendorHttpError, VendorRateLimitedError } from '../kit/index.ts';
import { checkDropboxResponse, DropboxEndpointError, headerJson, tagChain } from './client.ts';

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const rejects = async (res: Response) => {
  try {
    await checkDropboxResponse(res, Date.parse('2025-01-01T00:00:00Z'));
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
};

describe('dropbox error classification', () => {
  it('reads the .tag chain of an endpoint error', () => {
    assert.deepEqual(tagChain({ '.tag': 'path', path: { '.tag': 'not_found' } }), ['path', 'not_found']);
    assert.deepEqual(tagChain({ '.tag': 'reset' }), ['reset']);
    assert.deepEqual(tagChain('x'), []);
  });

  it('401 and 403 are rejected credentials naming the tag (and a missing scope)', async () => {
    const expired = await rejects(json(401, { error_summary: 'expired_access_token/..', error: { '.tag': 'expired_access_token' } }));
    assert.ok(expired instanceof VendorAuthError);
    assert.match(expired.message, /^Dropbox answered 401 expired_access_token: reconnect/);
    const scope = await rejects(json(401, { error_summary: 'missing_scope/..', error: { '.tag': 'missing_scope', required_scope: 'files.content.read' } }));
    assert.match((scope as Error).message, /missing_scope \(needs scope files\.content\.read\)/);
    assert.ok((await rejects(json(403, { error_summary: 'invalid_account_type/..', error: { '.tag': 'invalid_account_type' } }))) instanceof VendorAuthError);
  });

  it('409 is an endpoint error with its tags; 400 and 5xx are HTTP errors', async () => {
    const nf = await rejects(json(409, { error_summary: 'path/not_found/..', error: { '.tag': 'path', path: { '.tag': 'not_found' } } }));
    assert.ok(nf instanceof DropboxEndpointError);
    assert.ok(nf.is('path', 'not_found') && nf.is('path') && !nf.is('reset'));
    assert.equal(nf.transient, false);
    const bad = await rejects(new Response('Error in call to API function "files/list_folder": request body: unknown field', { status: 400 }));
    assert.ok(bad instanceof VendorHttpError && !(bad instanceof DropboxEndpointError));
    const down = await rejects(new Response('Internal Server Error', { status: 500 }));
    assert.ok(down instanceof VendorHttpError && down.transient);
  });

  it('429 waits Retry-After, else the body’s retry_after', async () => {
    const body = { error_summary: 'too_many_requests/..', error: { reason: { '.tag': 'too_many_requests' }, retry_after: 300 } };
    const header = await rejects(json(429, body, { 'retry-after': '7' }));
    assert.ok(header instanceof VendorRateLimitedError);
    assert.equal(header.retryAfterMs, 7000);
    const fromBody = await rejects(json(429, body));
    assert.equal((fromBody as VendorRateLimitedError).retryAfterMs, 300_000);
    const plain = await rejects(new Response('too_many_requests', { status: 429 }));
    assert.equal((plain as VendorRateLimitedError).retryAfterMs, null);
  });

  it('header JSON escapes every character above 0x7E', () => {
    assert.equal(headerJson({ path: '/Café/naïve ☃.md' }), '{"path":"/Caf\\u00e9/na\\u00efve \\u2603.md"}');
    assert.deepEqual(JSON.parse(headerJson({ path: '/Café' })), { path: '/Café' });
  });
});
