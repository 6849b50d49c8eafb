import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';

describe('failed authentication is throttled per client', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { ATRIUM_AUTH_FAILURES_PER_MINUTE: '5', ATRIUM_SYNC_SCHEDULER: 'false' } });
  });
  after(() => t.close());

  const get = (authorization: string, remoteAddress = '203.0.113.7') => t.app.inject({ method: 'GET', url: '/v1/connectors', headers: { authorization }, remoteAddress });

  it('answers 429 with Retry-After once a client is over the limit, for any key it presents, and audits the block once', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await get(`Bearer atr_wrong_guess_${i}_0000000000`)).statusCode, 401, `guess ${i}`);
    const throttled = await get('Bearer atr_wrong_guess_5_0000000000');
    assert.equal(throttled.statusCode, 429, throttled.body);
    assert.equal(throttled.json().error.code, 'too_many_failed_attempts');
    assert.equal(throttled.headers['retry-after'], '12', '60 s / 5 per minute');
    assert.equal(throttled.json().error.details.retry_after_seconds, 12);
    // The right key from the throttled client waits too (it is not even checked), the same key from elsewhere works.
    assert.equal((await get(t.admin.authorization)).statusCode, 429);
    assert.equal((await get(t.admin.authorization, '198.51.100.1')).statusCode, 200);
    // MCP over Streamable HTTP shares the limit.
    const mcp = await t.app.inject({
      method: 'POST',
      url: '/v1/expose/mcp',
      headers: { authorization: 'Bearer atr_wrong', accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      remoteAddress: '203.0.113.7',
      payload: { jsonrpc: '2.0', id: 1, method: 'ping' },
    });
    assert.equal(mcp.statusCode, 429);
    // Public routes stay open.
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/health', remoteAddress: '203.0.113.7' })).statusCode, 200);
    const audit = await t.db.query<{ tenant_id: string; details: { client: string; limit_per_minute: number } }>(
      "SELECT tenant_id, details FROM audit_events WHERE action = 'auth.failed_attempts_throttled'",
    );
    assert.equal(audit.rows.length, 1);
    assert.equal(audit.rows[0]?.details.client, '203.0.113.7');
    assert.equal(audit.rows[0]?.details.limit_per_minute, 5);
  });

  it('does not count successful authentication', async () => {
    for (let i = 0; i < 20; i++) assert.equal((await get(t.admin.authorization, '192.0.2.50')).statusCode, 200);
  });
});
