import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import WebSocket from 'ws';
import { authenticateKey } from '../../src/access/index.ts';
import { attachWebSocketEndpoint, createMcpServer, createServiceMcpContext } from '../../src/mcp/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { addConnector, httpClient, listen, openSocket, upgradeStatus, wsClient } from './support.ts';

function nextMessage(ws: import('ws').WebSocket): Promise<Record<string, unknown>> {
  return new Promise((resolve) => ws.once('message', (data) => resolve(JSON.parse(String(data)))));
}

describe('MCP over WebSocket, in-process, and rate limits', () => {
  let t: TestApp;
  let base: string;
  let wsUrl: string;
  before(async () => {
    // A small bucket so the rate-limit test needs few calls (3, then one per 6 s), on a stopped clock
    // so no token refills while the test runs.
    const stopped = new Date('2026-11-22T05:00:00Z');
    t = await createTestApp({ env: { ATRIUM_RATE_LIMIT_BURST: '3', ATRIUM_RATE_LIMIT_PER_MINUTE: '10' }, clock: { now: () => stopped } });
    base = await listen(t);
    wsUrl = `${base.replace(/^http/, 'ws')}/v1/expose/mcp/ws`;
    await addConnector(t, 'github-abc123');
  });
  after(() => t.close());
  // Each admin key has its own bucket: a fresh one per use keeps the small limit out of the way.
  const adminHeaders = async () => ({ authorization: (await t.keyWith(['admin'])).authorization });

  it('serves the SDK client over a real ws socket with the mcp subprotocol', async () => {
    const k = await t.keyWith(['connector:read', 'query']);
    const { client, ws } = await wsClient(base, k.authorization);
    try {
      assert.equal(ws.protocol, 'mcp');
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((x) => x.name), ['query_knowledge', 'get_document', 'list_connectors']);
      const res = await client.callTool({ name: 'list_connectors', arguments: {} });
      assert.deepEqual((res.structuredContent as { connectors: { connector_id: string }[] }).connectors.map((c) => c.connector_id), ['github-abc123']);
      await assert.rejects(client.callTool({ name: 'execute_action', arguments: { connector_id: 'x', intent: 'y' } }), (err: unknown) => {
        assert.ok(err instanceof McpError);
        assert.equal(err.code, -32602);
        assert.match(err.message, /Unknown tool: execute_action/);
        return true;
      });
    } finally {
      await client.close();
    }
    const audit = await t.app.inject({ method: 'GET', url: '/v1/audit?action=mcp.tool_invoked', headers: await adminHeaders() });
    const mine = audit.json().events.filter((e: { actor_id: string }) => e.actor_id === k.id);
    assert.deepEqual(mine.map((e: { transport: string; outcome: string }) => `${e.transport}:${e.outcome}`), ['websocket:unknown_tool', 'websocket:success']);
  });

  it('speaks one JSON-RPC message per text frame, answering garbage with JSON-RPC errors', async () => {
    const k = await t.keyWith(['connector:read']);
    const ws = await openSocket(wsUrl, { authorization: k.authorization });
    try {
      ws.send('{not json');
      assert.equal(((await nextMessage(ws)).error as { code: number }).code, -32700);
      ws.send(JSON.stringify({ hello: 'world', id: 7 }));
      const invalid = await nextMessage(ws);
      assert.equal((invalid.error as { code: number }).code, -32600);
      assert.equal(invalid.id, 7);
      ws.send(
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }),
      );
      const init = await nextMessage(ws);
      assert.equal((init.result as { protocolVersion: string }).protocolVersion, '2025-06-18');
      const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
      ws.send(Buffer.from([1, 2, 3]), { binary: true });
      assert.equal(await closed, 1003);
    } finally {
      ws.terminate();
    }
  });

  it('refuses the upgrade without a valid key (401), from a foreign Origin or Host (403)', async () => {
    const none = await upgradeStatus(wsUrl, {});
    assert.equal(none.status, 401);
    assert.equal(JSON.parse(none.body).error.code, 'unauthenticated');
    assert.equal((await upgradeStatus(wsUrl, { authorization: 'Bearer atr_wrong_wrong_wrong_wrong' })).status, 401);
    const k = await t.keyWith(['query']);
    assert.equal((await upgradeStatus(wsUrl, { authorization: k.authorization, origin: 'https://evil.example' })).status, 403);
    assert.equal((await upgradeStatus(wsUrl, { authorization: k.authorization, host: 'rebound.example' })).status, 403);
    assert.equal((await upgradeStatus(`${base.replace(/^http/, 'ws')}/v1/elsewhere`, { authorization: k.authorization })).status, 404);
  });

  it('closes the socket once its key is revoked', async () => {
    const admin = await adminHeaders();
    const created = await t.app.inject({ method: 'POST', url: '/v1/api-keys', headers: admin, payload: { name: 'ws-revoke', permissions: ['query'] } });
    const { key, id } = created.json();
    const { client, ws } = await wsClient(base, `Bearer ${key}`);
    await client.listTools();
    await t.app.inject({ method: 'DELETE', url: `/v1/api-keys/${id}`, headers: admin });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    void client.listTools().catch(() => undefined);
    assert.equal(await closed, 1008);
  });

  it('runs in-process over the SDK in-memory transport', async () => {
    const k = await t.keyWith(['connector:read']);
    const p = await authenticateKey(t.db, k.authorization.slice('Bearer '.length));
    assert.ok(p);
    const server = createMcpServer(createServiceMcpContext(t.deps), p, 'stdio');
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'in-process', version: '1' });
    await Promise.all([server.connect(a), client.connect(b)]);
    const res = await client.callTool({ name: 'list_connectors', arguments: {} });
    assert.match((res.content as { text: string }[])[0]!.text, /github-abc123/);
    await client.close();
  });

  it('counts MCP calls against the key rate limit and answers a tool error saying when to retry', async () => {
    const k = await t.keyWith(['connector:read']);
    const client = await httpClient(base, k.authorization);
    try {
      const results = [];
      for (let i = 0; i < 4; i++) results.push(await client.callTool({ name: 'list_connectors', arguments: {} }));
      assert.deepEqual(results.map((r) => r.isError === true), [false, false, false, true]);
      const limited = results[3]!;
      assert.match((limited.content as { text: string }[])[0]!.text, /retry after \d+ s/);
      assert.equal((limited.structuredContent as { retry_after_seconds: number }).retry_after_seconds, 6);
    } finally {
      await client.close();
    }
    // The same bucket serves the REST API: this key is now limited there too.
    const rest = await t.app.inject({ method: 'GET', url: '/v1/connectors', headers: { authorization: k.authorization } });
    assert.equal(rest.statusCode, 429);
    const audit = await t.app.inject({ method: 'GET', url: '/v1/audit?action=mcp.tool_invoked', headers: await adminHeaders() });
    const outcomes = audit.json().events.filter((e: { actor_id: string }) => e.actor_id === k.id).map((e: { outcome: string }) => e.outcome);
    assert.deepEqual(outcomes, ['rate_limited', 'success', 'success', 'success']);
  });

  it('drops a socket that stops answering pings', { timeout: 15_000 }, async () => {
    const http = createServer();
    const p = await authenticateKey(t.db, (await t.keyWith(['query'])).authorization.slice('Bearer '.length));
    const endpoint = attachWebSocketEndpoint(http, {
      path: '/ws',
      ctx: createServiceMcpContext(t.deps),
      allowedOrigins: [],
      allowedHosts: ['127.0.0.1'],
      authenticate: async () => p,
      heartbeatMs: 50,
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = http.address() as AddressInfo;
      const silent = new WebSocket(`ws://127.0.0.1:${port}/ws`, ['mcp'], { autoPong: false });
      const code = await new Promise<number>((resolve) => silent.once('close', (c) => resolve(c)));
      assert.equal(code, 1006, 'terminated by the server, no close frame');
    } finally {
      await endpoint.close();
      http.close();
    }
  });
});
