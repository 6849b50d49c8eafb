import assert from 'node:assert/strict';
import readline from 'node:readline';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { authenticateKey } from '../../src/access/index.ts';
import { createServiceMcpContext, keyAdmission, parseSelfHostedConfig, type SelfHostedServer, serveStdio, startSelfHostedServer } from '../../src/mcp/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { silentLog } from '../support/db.ts';
import { BIN } from '../support/spawn.ts';
import { addConnector, httpClient, listen, upgradeStatus, wsClient } from './support.ts';

describe('self-hosted MCP server forwarding to a real service', () => {
  let t: TestApp;
  let service: string;
  let key: { authorization: string; id: string };
  let mcp: SelfHostedServer;
  before(async () => {
    t = await createTestApp();
    service = await listen(t);
    await addConnector(t, 'github-abc123');
    key = await t.keyWith(['query', 'connector:read']);
    const config = parseSelfHostedConfig(
      { port: 0, service_base_url: service, allowed_origins: ['https://assistant.example'], rate_limit: { requests_per_minute: 4 } },
      { ATRIUM_API_KEY: key.authorization.slice('Bearer '.length) },
    );
    mcp = await startSelfHostedServer(config, silentLog);
  });
  after(async () => {
    await mcp?.close();
    await t.close();
  });

  it('serves the key’s tools over Streamable HTTP and forwards calls to the service, which audits them', async () => {
    const client = await httpClient(mcp.url, 'Bearer ignored-by-the-self-hosted-server', '/mcp');
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((x) => x.name), ['query_knowledge', 'get_document', 'list_connectors']);
      const res = await client.callTool({ name: 'list_connectors', arguments: {} });
      assert.notEqual(res.isError, true);
      assert.deepEqual((res.structuredContent as { connectors: { connector_id: string }[] }).connectors.map((c) => c.connector_id), ['github-abc123']);
      const missing = await client.callTool({ name: 'get_document', arguments: { document_id: 'doc_nope' } });
      assert.equal(missing.isError, true);
      assert.match((missing.content as { text: string }[])[0]!.text, /not found/);
      // A tool the key lacks is refused here like an unknown one, and still reaches the service's audit.
      await assert.rejects(client.callTool({ name: 'execute_action', arguments: { connector_id: 'github-abc123', intent: 'x' } }), /Unknown tool: execute_action/);
      const read = await client.readResource({ uri: 'atrium://connectors' });
      assert.match((read.contents[0] as { text: string }).text, /github-abc123/);
    } finally {
      await client.close();
    }
    const audit = await t.app.inject({ method: 'GET', url: '/v1/audit?action=mcp.tool_invoked', headers: t.admin });
    const mine = audit.json().events.filter((e: { actor_id: string }) => e.actor_id === key.id);
    assert.deepEqual(mine.map((e: { tool: string; outcome: string }) => `${e.tool}:${e.outcome}`), ['execute_action:unknown_tool', 'get_document:error', 'list_connectors:success']);
    // Recorded as REST calls forwarded by the self-hosted server, not as direct REST calls.
    assert.deepEqual(new Set(mine.map((e: { transport: string; forwarded_by?: string }) => `${e.transport}/${e.forwarded_by}`)), new Set(['rest/self_hosted']));
  });

  it('serves WebSocket too, and applies its own rate limit as a tool error', async () => {
    const { client } = await wsClient(mcp.url, 'Bearer unused');
    try {
      const outcomes: boolean[] = [];
      let last: Awaited<ReturnType<Client['callTool']>> | undefined;
      for (let i = 0; i < 6; i++) {
        last = await client.callTool({ name: 'list_connectors', arguments: {} });
        outcomes.push(last.isError === true);
      }
      assert.ok(outcomes.includes(true), 'the bucket of 4 per minute runs out');
      assert.match((last!.content as { text: string }[])[0]!.text, /retry after \d+ s/);
    } finally {
      await client.close();
    }
  });

  it('checks Origin and Host like the service', async () => {
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const evil = await fetch(`${mcp.url}/mcp`, { method: 'POST', headers: { ...headers, origin: 'https://evil.example' }, body: init });
    assert.equal(evil.status, 403);
    const allowed = await fetch(`${mcp.url}/mcp`, { method: 'POST', headers: { ...headers, origin: 'https://assistant.example' }, body: init });
    assert.equal(allowed.status, 200);
    assert.equal((await upgradeStatus(`${mcp.url.replace(/^http/, 'ws')}/v1/expose/mcp/ws`, { origin: 'https://evil.example' })).status, 403);
    const unknownSession = await fetch(`${mcp.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': 'nope' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(unknownSession.status, 404);
  });

  it('refuses to start with a key the service rejects', async () => {
    const config = parseSelfHostedConfig({ port: 0, service_base_url: service, service_api_key: 'atr_not_a_real_key_000000' }, {});
    await assert.rejects(startSelfHostedServer(config, silentLog), /401/);
  });

  it('serves stdio through `atrium mcp --stdio`, forwarding to the service', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--stdio', '--url', service],
      env: { PATH: process.env.PATH ?? '', ATRIUM_API_KEY: key.authorization.slice('Bearer '.length), LOG_LEVEL: 'silent' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-test', version: '1' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((x) => x.name), ['query_knowledge', 'get_document', 'list_connectors']);
      const res = await client.callTool({ name: 'list_connectors', arguments: {} });
      assert.match((res.content as { text: string }[])[0]!.text, /github-abc123/);
    } finally {
      await client.close();
    }
    const audit = await t.app.inject({ method: 'GET', url: '/v1/audit?action=mcp.tool_invoked', headers: t.admin });
    const newest = audit.json().events.find((e: { actor_id: string }) => e.actor_id === key.id);
    assert.deepEqual([newest.tool, newest.transport, newest.forwarded_by], ['list_connectors', 'rest', 'stdio']);
  });

  it('serves stdio in-process on local storage with the key’s permissions (newline-delimited JSON-RPC)', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const caller = await authenticateKey(t.db, key.authorization.slice('Bearer '.length));
    assert.ok(caller);
    const done = serveStdio(createServiceMcpContext(t.deps), caller, { stdin, stdout });
    const lines = readline.createInterface({ input: stdout });
    const replies = lines[Symbol.asyncIterator]();
    const ask = async (msg: Record<string, unknown>) => {
      stdin.write(`${JSON.stringify(msg)}\n`);
      return JSON.parse(String((await replies.next()).value));
    };
    const init = await ask({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    assert.equal(init.result.serverInfo.name, 'atrium');
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const list = await ask({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    assert.deepEqual(list.result.tools.map((x: { name: string }) => x.name), ['query_knowledge', 'get_document', 'list_connectors']);
    const call = await ask({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_connectors', arguments: {} } });
    assert.match(call.result.content[0].text, /github-abc123/);
    stdin.end();
    await done;
  });

  it('stdio on local storage re-checks its key: a revoked key is refused at the next call and the session ends', async () => {
    const own = await t.keyWith(['connector:read'], 'default');
    const token = own.authorization.slice('Bearer '.length);
    const caller = await authenticateKey(t.db, token);
    assert.ok(caller);
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const done = serveStdio(createServiceMcpContext(t.deps), caller, { stdin, stdout, admit: keyAdmission(t.db, token, caller, { clock: t.deps.clock }) });
    const replies = readline.createInterface({ input: stdout })[Symbol.asyncIterator]();
    const ask = async (msg: Record<string, unknown>) => {
      stdin.write(`${JSON.stringify(msg)}\n`);
      return JSON.parse(String((await replies.next()).value));
    };
    await ask({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const before = await ask({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_connectors', arguments: {} } });
    assert.equal(before.result.isError ?? false, false, JSON.stringify(before));
    const revoked = await t.app.inject({ method: 'DELETE', url: `/v1/api-keys/${caller.id}`, headers: t.admin });
    assert.equal(revoked.statusCode, 200, revoked.body);
    await new Promise((r) => setTimeout(r, 2100)); // past the 2 s a verified key is remembered
    const afterRevoke = await ask({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_connectors', arguments: {} } });
    assert.match(afterRevoke.error?.message ?? '', /no longer valid/, JSON.stringify(afterRevoke));
    await done; // the server closed the session itself
  });
});
