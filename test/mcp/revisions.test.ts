import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTestApp, type TestApp } from '../support/app.ts';
import { addConnector, listen, openSocket } from './support.ts';
import readline from 'node:readline';
import { PassThrough } from 'node:stream';
import { authenticateKey } from '../../src/access/index.ts';
import { createServiceMcpContext, serveStdio, WebSocketTransport } from '../../src/mcp/index.ts';

const MODERN = '2026-07-28';
const ACCEPT = 'application/json, text/event-stream';

/** The official v2 client, pinned to the 2026-07-28 revision (no initialize, no session) or on the 2025 handshake. */
function v2Client(pin: boolean): Client {
  return new Client({ name: 'atrium-test-v2', version: '1.0.0' }, pin ? { versionNegotiation: { mode: { pin: MODERN } } } : {});
}

interface AuditRow {
  action: string;
  transport?: string;
  method?: string;
  uri?: string;
  outcome?: string;
  count?: number;
  tool?: string;
}

describe('MCP protocol revisions 2026-07-28 and 2025-11-25 (official SDK v2 client)', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await createTestApp();
    base = await listen(t);
    await addConnector(t, 'github-rev001');
  });
  after(() => t.close());

  const audit = async (actor: string): Promise<AuditRow[]> => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/audit?action=mcp.*&limit=500', headers: t.admin });
    assert.equal(res.statusCode, 200);
    return (res.json().events as (AuditRow & { actor_id: string })[]).filter((e) => e.actor_id === actor).reverse();
  };

  for (const pin of [true, false]) {
    it(`Streamable HTTP, ${pin ? '2026-07-28 (stateless)' : '2025-11-25 (session)'}: tools, a call, resources; every interaction audited`, async () => {
      const k = await t.keyWith(['query', 'connector:read']);
      const client = v2Client(pin);
      await client.connect(new StreamableHTTPClientTransport(new URL('/v1/expose/mcp', base), { requestInit: { headers: { authorization: k.authorization } } }));
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), pin ? MODERN : '2025-11-25');
        assert.equal(client.getServerVersion()?.name, 'atrium');
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((x) => x.name), ['query_knowledge', 'get_document', 'list_connectors']);
        const call = await client.callTool({ name: 'list_connectors', arguments: {} });
        assert.notEqual(call.isError, true);
        assert.deepEqual((call.structuredContent as { connectors: { connector_id: string }[] }).connectors.map((c) => c.connector_id), ['github-rev001']);
        const { resources } = await client.listResources();
        assert.deepEqual(resources.map((r) => r.uri).sort(), ['atrium://connectors', 'atrium://recent']);
        const read = await client.readResource({ uri: 'atrium://connectors' });
        assert.match((read.contents[0] as { text: string }).text, /github-rev001/);
        await assert.rejects(client.readResource({ uri: 'atrium://nothing' }));
        await assert.rejects(client.callTool({ name: 'execute_action', arguments: {} }), /Unknown tool: execute_action/);
      } finally {
        await client.close();
      }
      const rows = await audit(k.id);
      // Lists and reads are written behind, tool calls at once: compare without their order.
      const shape = rows.map((r) => JSON.stringify([r.action, r.method ?? r.tool ?? r.uri, r.outcome ?? r.count, r.transport])).sort();
      const expected = [
        ['mcp.listed', 'tools/list', 3, 'streamable_http'],
        ['mcp.tool_invoked', 'list_connectors', 'success', 'streamable_http'],
        ['mcp.listed', 'resources/list', 2, 'streamable_http'],
        ['mcp.resources_read', 'atrium://connectors', 'success', 'streamable_http'],
        ['mcp.resources_read', 'atrium://nothing', 'unknown_resource', 'streamable_http'],
        ['mcp.tool_invoked', 'execute_action', 'unknown_tool', 'streamable_http'],
      ];
      assert.deepEqual(shape, expected.map((e) => JSON.stringify(e)).sort());
    });
  }

  it('WebSocket serves 2026-07-28 too: the connection is pinned to the era its first message names', async () => {
    const k = await t.keyWith(['connector:read']);
    const ws = await openSocket(`${base.replace(/^http/, 'ws')}/v1/expose/mcp/ws`, { authorization: k.authorization });
    const client = v2Client(true);
    await client.connect(new WebSocketTransport(ws));
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
      assert.deepEqual((await client.listTools()).tools.map((x) => x.name), ['list_connectors']);
      const read = await client.readResource({ uri: 'atrium://connectors' });
      assert.match((read.contents[0] as { text: string }).text, /github-rev001/);
    } finally {
      await client.close();
    }
    const rows = await audit(k.id);
    assert.deepEqual(rows.map((r) => `${r.action} ${r.transport}`).sort(), ['mcp.listed websocket', 'mcp.resources_read websocket']);
  });

  it('stdio serves 2026-07-28: server/discover, then requests with their envelope, no initialize', async () => {
    const k = await t.keyWith(['connector:read']);
    const caller = await authenticateKey(t.db, k.authorization.slice('Bearer '.length));
    assert.ok(caller);
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const done = serveStdio(createServiceMcpContext(t.deps), caller, { stdin, stdout });
    const replies = readline.createInterface({ input: stdout })[Symbol.asyncIterator]();
    const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };
    const ask = async (id: number, method: string, params: Record<string, unknown> = {}) => {
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } })}\n`);
      return JSON.parse(String((await replies.next()).value));
    };
    const discover = await ask(1, 'server/discover');
    assert.ok(discover.result.supportedVersions.includes(MODERN), JSON.stringify(discover));
    const list = await ask(2, 'tools/list');
    assert.deepEqual(list.result.tools.map((x: { name: string }) => x.name), ['list_connectors']);
    const call = await ask(3, 'tools/call', { name: 'list_connectors', arguments: {} });
    assert.match(call.result.content[0].text, /github-rev001/);
    const init = await ask(4, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
    assert.ok(init.error, 'a connection pinned to 2026-07-28 refuses the 2025 handshake');
    stdin.end();
    await done;
  });

  it('audits the REST wrappers the same way: list calls and resource reads', async () => {
    const k = await t.keyWith(['connector:read']);
    const headers = { authorization: k.authorization };
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/expose/mcp/tools', headers })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/expose/mcp/resources', headers: { ...headers, 'x-atrium-mcp-forwarded-by': 'self_hosted' } })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/expose/mcp/resources/read?uri=atrium://connectors', headers })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/expose/mcp/resources/read?uri=atrium://recent', headers })).statusCode, 404);
    const rows = (await audit(k.id)) as (AuditRow & { forwarded_by?: string })[];
    assert.deepEqual(rows.map((r) => `${r.action} ${r.method ?? r.uri} ${r.outcome ?? r.count} ${r.transport} ${r.forwarded_by ?? '-'}`).sort(), [
      'mcp.listed resources/list 1 rest self_hosted',
      'mcp.listed tools/list 1 rest -',
      'mcp.resources_read atrium://connectors success rest -',
      'mcp.resources_read atrium://recent unknown_resource rest -',
    ]);
  });

  it('answers raw 2026-07-28 requests without a session: server/discover, the Mcp-Method header checked against the body', async () => {
    const k = await t.keyWith(['query']);
    const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };
    const post = (method: string, headers: Record<string, string>, params: Record<string, unknown> = {}) =>
      fetch(`${base}/v1/expose/mcp`, {
        method: 'POST',
        headers: { authorization: k.authorization, 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': MODERN, ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: meta } }),
      });
    const discover = await post('server/discover', { 'mcp-method': 'server/discover' });
    assert.equal(discover.status, 200);
    assert.equal(discover.headers.get('mcp-session-id'), null, 'no session on the stateless revision');
    const body = (await discover.json()) as { result: { supportedVersions: string[]; capabilities: Record<string, unknown> } };
    assert.ok(body.result.supportedVersions.includes(MODERN));
    assert.ok('tools' in body.result.capabilities);
    const call = await post('tools/call', { 'mcp-method': 'tools/call', 'mcp-name': 'query_knowledge' }, { name: 'query_knowledge', arguments: { query: 'roadmap' } });
    assert.equal(call.status, 200, await call.clone().text());
    const mismatch = await post('tools/call', { 'mcp-method': 'tools/call', 'mcp-name': 'get_document' }, { name: 'query_knowledge', arguments: { query: 'x' } });
    assert.equal(mismatch.status, 400, 'Mcp-Name must match the body');
    const unauthenticated = await fetch(`${base}/v1/expose/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } }),
    });
    assert.equal(unauthenticated.status, 401, 'the stateless revision authenticates every request');
  });
});
