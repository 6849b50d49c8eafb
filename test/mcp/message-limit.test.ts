import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MCP_MAX_MESSAGE_BYTES } from '../../src/mcp/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { listen, openSocket } from './support.ts';

/** A tools/call message of about `bytes` bytes. */
const message = (bytes: number) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: { query: 'x'.repeat(bytes) } } });

describe('one MCP message size limit for Streamable HTTP and WebSocket', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await createTestApp({ env: { ATRIUM_SYNC_SCHEDULER: 'false' } });
    base = await listen(t);
  });
  after(() => t.close());

  it('is 4 MiB', () => {
    assert.equal(MCP_MAX_MESSAGE_BYTES, 4 * 1024 * 1024);
  });

  it('Streamable HTTP answers 413 naming the limit above it (the service-wide body limit is 32 MB)', async () => {
    const res = await fetch(`${base}/v1/expose/mcp`, {
      method: 'POST',
      headers: { ...t.admin, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: message(MCP_MAX_MESSAGE_BYTES + 1024),
    });
    assert.equal(res.status, 413);
    const body = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'payload_too_large');
    assert.match(body.error.message, new RegExp(String(MCP_MAX_MESSAGE_BYTES)));
  });

  it('WebSocket closes with 1009 (message too big) above it', async () => {
    const ws = await openSocket(`${base.replace(/^http/, 'ws')}/v1/expose/mcp/ws`, t.admin);
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send(message(MCP_MAX_MESSAGE_BYTES + 1024));
    assert.equal(await closed, 1009);
  });
});
