import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiBase, PIPEDRIVE_API, pipedriveRetryMs, safeApiDomain } from './client.ts';

describe('pipedrive client', () => {
  it('waits Retry-After, else x-ratelimit-reset seconds (a delta, not an epoch), else leaves it to the backoff', () => {
    const h = (m: Record<string, string>) => (n: string) => m[n] ?? null;
    assert.equal(pipedriveRetryMs(h({ 'retry-after': '3', 'x-ratelimit-reset': '1' }), 0), 3000);
    assert.equal(pipedriveRetryMs(h({ 'x-ratelimit-reset': '2' }), 0), 2000);
    assert.equal(pipedriveRetryMs(h({ 'x-ratelimit-reset': 'soon' }), 0), null);
    assert.equal(pipedriveRetryMs(h({}), 0), null);
  });

  it('OAuth calls go to the api_domain of the token answer; API tokens to api.pipedrive.com; the override wins', () => {
    assert.equal(apiBase({ apiBaseUrl: undefined, credentials: { access_token: 'a', api_domain: 'https://acme.pipedrive.com' } }), 'https://acme.pipedrive.com');
    assert.equal(apiBase({ apiBaseUrl: undefined, credentials: { api_token: 't' } }), PIPEDRIVE_API);
    assert.equal(apiBase({ apiBaseUrl: 'http://127.0.0.1:9', credentials: { access_token: 'a', api_domain: 'https://acme.pipedrive.com' } }), 'http://127.0.0.1:9');
  });

  it('refuses an api_domain that is not a bare https origin', () => {
    assert.equal(safeApiDomain('http://acme.pipedrive.com'), null);
    assert.equal(safeApiDomain('https://u:p@acme.pipedrive.com'), null);
    assert.equal(safeApiDomain('https://acme.pipedrive.com/x'), null);
    assert.equal(safeApiDomain('https://acme.pipedrive.com/'), 'https://acme.pipedrive.com');
  });
});
