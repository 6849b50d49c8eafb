import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { createTestApp, type TestApp } from '../support/app.ts';
import { addConnector, httpClient, listen } from './support.ts';

const INIT = (protocolVersion: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});
const ACCEPT = 'application/json, text/event-stream';

/** The JSON-RPC message of a Streamable HTTP response, whether sent as JSON or as one SSE event. */
async function rpcBody(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const data = text.split('\n').find((l) => l.startsWith('data: '));
    return JSON.parse(data?.slice(6) ?? 'null');
  }
  return JSON.parse(text);
}

describe('MCP over Streamable HTTP', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await createTestApp();
    base = await listen(t);
    await addConnector(t, 'github-abc123');
    await addConnector(t, 'slack-other1', 'other-tenant', 'slack');
  });
  after(() => t.close());

  it('serves the SDK client: initialize, tools, a tool call and the resources', async () => {
    const k = await t.keyWith(['query', 'connector:read']);
    const client = await httpClient(base, k.authorization);
    try {
      assert.equal(client.getServerVersion()?.name, 'atrium');
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((x) => x.name), ['query_knowledge', 'get_document', 'list_connectors']);
      const q = tools.find((x) => x.name === 'query_knowledge')!;
      assert.deepEqual(q.inputSchema.required, ['query']);
      assert.equal((q.inputSchema.properties as Record<string, { default?: number }>).limit?.default, 5);

      const res = await client.callTool({ name: 'list_connectors', arguments: {} });
      assert.notEqual(res.isError, true);
      const structured = res.structuredContent as { connectors: { connector_id: string }[] };
      assert.deepEqual(structured.connectors.map((c) => c.connector_id), ['github-abc123'], 'only the caller tenant');
      assert.match((res.content as { text: string }[])[0]!.text, /github-abc123/);

      const { resources } = await client.listResources();
      assert.deepEqual(resources.map((r) => r.uri).sort(), ['atrium://connectors', 'atrium://recent']);
      const read = await client.readResource({ uri: 'atrium://connectors' });
      const first = read.contents[0] as { text: string; mimeType: string };
      assert.equal(first.mimeType, 'application/json');
      assert.equal(JSON.parse(first.text).connectors[0].connector_id, 'github-abc123');
      const recent = await client.readResource({ uri: 'atrium://recent' });
      assert.ok(Array.isArray(JSON.parse((recent.contents[0] as { text: string }).text).documents));
    } finally {
      await client.close();
    }
  });

  it('returns argument errors as tool errors the model can act on', async () => {
    const k = await t.keyWith(['query']);
    const client = await httpClient(base, k.authorization);
    try {
      const res = await client.callTool({ name: 'get_document', arguments: { document_id: 42 } });
      assert.equal(res.isError, true);
      assert.match((res.content as { text: string }[])[0]!.text, /document_id/);
    } finally {
      await client.close();
    }
  });

  it('negotiates each protocol revision the SDK serves, and rejects bad headers with the right status', async () => {
    const k = await t.keyWith(['connector:read']);
    const headers = { authorization: k.authorization, 'content-type': 'application/json', accept: ACCEPT };
    for (const version of ['2025-11-25', '2025-06-18', '2025-03-26']) {
      const init = await fetch(`${base}/v1/expose/mcp`, { method: 'POST', headers, body: JSON.stringify(INIT(version)) });
      assert.equal(init.status, 200);
      const session = init.headers.get('mcp-session-id');
      assert.ok(session);
      const body = await rpcBody(init);
      assert.equal((body.result as { protocolVersion: string }).protocolVersion, version);
      const s = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': version };
      await fetch(`${base}/v1/expose/mcp`, { method: 'POST', headers: s, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
      const list = await fetch(`${base}/v1/expose/mcp`, { method: 'POST', headers: s, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
      assert.equal(list.status, 200, `${version}: ${await list.clone().text()}`);
      assert.deepEqual(((await rpcBody(list)).result as { tools: { name: string }[] }).tools.map((x) => x.name), ['list_connectors']);

      const badVersion = await fetch(`${base}/v1/expose/mcp`, {
        method: 'POST',
        headers: { ...s, 'mcp-protocol-version': '1999-01-01' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
      });
      assert.equal(badVersion.status, 400);
      const del = await fetch(`${base}/v1/expose/mcp`, { method: 'DELETE', headers: s });
      assert.equal(del.status, 200);
      const afterDelete = await fetch(`${base}/v1/expose/mcp`, { method: 'POST', headers: s, body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list' }) });
      assert.equal(afterDelete.status, 404);
    }

    const noSession = await fetch(`${base}/v1/expose/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }) });
    assert.equal(noSession.status, 400);
    assert.equal(((await noSession.json()) as { error: { code: number } }).error.code, -32000);
    const unknown = await fetch(`${base}/v1/expose/mcp`, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': 'not-a-session' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/list' }),
    });
    assert.equal(unknown.status, 404);
    const noAccept = await fetch(`${base}/v1/expose/mcp`, {
      method: 'POST',
      headers: { authorization: k.authorization, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(INIT('2025-11-25')),
    });
    assert.equal(noAccept.status, 406);
    const badJson = await fetch(`${base}/v1/expose/mcp`, { method: 'POST', headers, body: '{"jsonrpc":' });
    assert.equal(badJson.status, 400);
  });

  it('keeps a session to the key that opened it', async () => {
    const a = await t.keyWith(['admin']);
    const b = await t.keyWith(['admin']);
    const headers = { 'content-type': 'application/json', accept: ACCEPT };
    const init = await fetch(`${base}/v1/expose/mcp`, { method: 'POST', headers: { ...headers, authorization: a.authorization }, body: JSON.stringify(INIT('2025-11-25')) });
    const session = init.headers.get('mcp-session-id')!;
    const stolen = await fetch(`${base}/v1/expose/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: b.authorization, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(stolen.status, 404);
  });

  it('answers CORS for origins in ATRIUM_MCP_ALLOWED_ORIGINS: the preflight, the session id header, errors too', async () => {
    const page = 'http://localhost:7233';
    const c = await createTestApp({ env: { ATRIUM_MCP_ALLOWED_ORIGINS: page } });
    try {
      const url = `${await listen(c)}/v1/expose/mcp`;
      const pre = await fetch(url, {
        method: 'OPTIONS',
        headers: { origin: page, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-session-id' },
      });
      assert.equal(pre.status, 204, await pre.text());
      assert.equal(pre.headers.get('access-control-allow-origin'), page);
      assert.match(pre.headers.get('access-control-allow-headers') ?? '', /authorization.*content-type.*mcp-session-id/);
      assert.match(pre.headers.get('access-control-allow-methods') ?? '', /POST/);
      const k = await c.keyWith(['query']);
      const init = await fetch(url, {
        method: 'POST',
        headers: { origin: page, authorization: k.authorization, 'content-type': 'application/json', accept: ACCEPT },
        body: JSON.stringify(INIT('2025-11-25')),
      });
      assert.equal(init.status, 200);
      assert.equal(init.headers.get('access-control-allow-origin'), page);
      assert.match(init.headers.get('access-control-expose-headers') ?? '', /Mcp-Session-Id/);
      assert.ok(init.headers.get('mcp-session-id'));
      const denied = await fetch(url, { method: 'POST', headers: { origin: page, 'content-type': 'application/json', accept: ACCEPT }, body: JSON.stringify(INIT('2025-11-25')) });
      assert.equal(denied.status, 401);
      assert.equal(denied.headers.get('access-control-allow-origin'), page, 'the page can read why it was refused');
      const foreign = await fetch(url, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
      assert.equal(foreign.status, 403);
      assert.equal(foreign.headers.get('access-control-allow-origin'), null);
    } finally {
      await c.close();
    }
  });

  it('refuses a missing or invalid key with 401, a foreign Origin and a rebinding Host with 403', async () => {
    const k = await t.keyWith(['query']);
    const headers = { 'content-type': 'application/json', accept: ACCEPT };
    const body = JSON.stringify(INIT('2025-11-25'));
    const none = await fetch(`${base}/v1/expose/mcp`, { method: 'POST', headers, body });
    assert.equal(none.status, 401);
    // RFC 9728: the challenge names the protected-resource metadata (test/mcp/oauth.test.ts covers the flow).
    assert.match(String(none.headers.get('www-authenticate')), /^Bearer resource_metadata="[^"]+\/.well-known\/oauth-protected-resource\/v1\/expose\/mcp"/);
    const wrong = await fetch(`${base}/v1/expose/mcp`, { method: 'POST', headers: { ...headers, authorization: 'Bearer atr_nope_nope_nope_nope' }, body });
    assert.equal(wrong.status, 401);
    const evil = await fetch(`${base}/v1/expose/mcp`, { method: 'POST', headers: { ...headers, authorization: k.authorization, origin: 'https://evil.example' }, body });
    assert.equal(evil.status, 403);
    assert.equal(((await evil.json()) as { error: { code: string } }).error.code, 'origin_not_allowed');
    const own = await fetch(`${base}/v1/expose/mcp`, { method: 'POST', headers: { ...headers, authorization: k.authorization, origin: t.config.publicUrl }, body });
    assert.equal(own.status, 200, 'the service origin itself is allowed');
    const rebound = await t.app.inject({
      method: 'POST',
      url: '/v1/expose/mcp',
      headers: { ...headers, authorization: k.authorization, host: 'attacker.example:8080' },
      payload: body,
    });
    assert.equal(rebound.statusCode, 403);
    assert.equal(rebound.json().error.code, 'host_not_allowed');
  });

  it('enforces the permission matrix over MCP: each permission × each tool, listed and callable alike', async () => {
    const permissionOf: Record<string, string> = { query_knowledge: 'query', get_document: 'query', list_connectors: 'connector:read', execute_action: 'connector:write' };
    const args: Record<string, Record<string, unknown>> = {
      query_knowledge: { query: 'anything' },
      get_document: { document_id: 'doc_x' },
      list_connectors: {},
      execute_action: { connector_id: 'github-abc123', intent: 'close issue 1' },
    };
    for (const perm of ['query', 'connector:read', 'connector:write'] as const) {
      const k = await t.keyWith([perm]);
      const client = await httpClient(base, k.authorization);
      try {
        const listed = (await client.listTools()).tools.map((x) => x.name);
        for (const tool of Object.keys(permissionOf)) {
          const allowed = permissionOf[tool] === perm;
          assert.equal(listed.includes(tool), allowed, `${perm} lists ${tool}: ${allowed}`);
          const outcome = await client.callTool({ name: tool, arguments: args[tool] }).then(
            () => 'called',
            (err: unknown) => (err instanceof McpError && err.code === -32602 && err.message.includes(`Unknown tool: ${tool}`) ? 'unknown' : String(err)),
          );
          assert.equal(outcome, allowed ? 'called' : 'unknown', `${perm} × ${tool}`);
        }
      } finally {
        await client.close();
      }
    }
  });

  it('fails a tool call the key lacks exactly like an unknown tool', async () => {
    const k = await t.keyWith(['query']);
    const client = await httpClient(base, k.authorization);
    try {
      const errorOf = async (name: string) => {
        try {
          await client.callTool({ name, arguments: {} });
          return null;
        } catch (err) {
          assert.ok(err instanceof McpError);
          return { code: err.code, message: err.message.replace(name, '<tool>') };
        }
      };
      const denied = await errorOf('list_connectors');
      const unknown = await errorOf('no_such_tool');
      assert.ok(denied);
      assert.deepEqual(denied, unknown);
      assert.equal(denied.code, -32602);
    } finally {
      await client.close();
    }
  });
});

describe('MCP Streamable HTTP session expiry', () => {
  it('forgets a session idle for longer than ATRIUM_MCP_SESSION_IDLE_MINUTES', async () => {
    let now = new Date('2026-11-22T05:00:00Z');
    const t = await createTestApp({ env: { ATRIUM_MCP_SESSION_IDLE_MINUTES: '5' }, clock: { now: () => now } });
    try {
      const base = await listen(t);
      const k = await t.keyWith(['query']);
      const headers = { authorization: k.authorization, 'content-type': 'application/json', accept: ACCEPT };
      const init = await fetch(`${base}/v1/expose/mcp`, { method: 'POST', headers, body: JSON.stringify(INIT('2025-11-25')) });
      const s = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
      const ping = () => fetch(`${base}/v1/expose/mcp`, { method: 'POST', headers: s, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) });
      now = new Date(now.getTime() + 4 * 60_000);
      assert.equal((await ping()).status, 200, 'within the idle window');
      now = new Date(now.getTime() + 4 * 60_000);
      assert.equal((await ping()).status, 200, 'use renews the window');
      now = new Date(now.getTime() + 6 * 60_000);
      assert.equal((await ping()).status, 404, 'idle too long: re-initialize');
    } finally {
      await t.close();
    }
  });
});
