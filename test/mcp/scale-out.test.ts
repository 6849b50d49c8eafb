import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { TEST_PG_URL } from '../support/db.ts';
import { type Served, spawnServer } from '../support/spawn.ts';

/** A plain round-robin proxy: each request goes to the next upstream, no stickiness; it counts what each one served. */
async function roundRobin(upstreams: string[]): Promise<{ url: string; served: { upstream: number; session: boolean; method: string }[]; close(): Promise<void> }> {
  const served: { upstream: number; session: boolean; method: string }[] = [];
  let next = 0;
  const server: Server = createServer((req, res) => {
    const upstream = next++ % upstreams.length;
    served.push({ upstream, session: req.headers['mcp-session-id'] !== undefined, method: req.method ?? '' });
    const { hostname, port } = new URL(upstreams[upstream]!);
    const forward = httpRequest({ hostname, port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('MCP scale-out: two API processes behind a round-robin proxy (PostgreSQL)', () => {
  it('serve one client in any order, on the 2025-11-25 session revision and the stateless 2026-07-28 one', async () => {
    const name = `atrium_mcp_scale_${process.pid}`;
    const admin = new pg.Client({ connectionString: TEST_PG_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
    const db = new URL(TEST_PG_URL);
    db.pathname = `/${name}`;
    const adminKey = 'atr_mcp_scale_admin_key_0123456789abcdef';
    const env = { DATABASE_URL: db.toString(), ATRIUM_ADMIN_API_KEY: adminKey, ATRIUM_SECRET_KEY: 'scale-secret', ATRIUM_DATA_DIR: '/tmp/atrium-mcp-scale-unused' };
    const procs: Served[] = [];
    let proxy: Awaited<ReturnType<typeof roundRobin>> | undefined;
    try {
      procs.push(await spawnServer({ ...env, ATRIUM_ROLE: 'api' }));
      procs.push(await spawnServer({ ...env, ATRIUM_ROLE: 'api' }));
      const created = (await fetch(`${procs[0]!.url}/v1/api-keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'mcp', permissions: ['query', 'connector:read'] }),
      }).then((r) => r.json())) as { key: string };
      const authorization = `Bearer ${created.key}`;
      proxy = await roundRobin(procs.map((p) => p.url));
      const endpoint = new URL('/v1/expose/mcp', proxy.url);

      // 2025-11-25: initialize lands on one process, the session's later requests alternate between both.
      const legacy = new Client({ name: 'scale-2025', version: '1.0.0' });
      await legacy.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization } } }));
      for (let i = 0; i < 3; i++) {
        assert.deepEqual((await legacy.listTools()).tools.map((t) => t.name), ['query_knowledge', 'get_document', 'list_connectors']);
        const call = await legacy.callTool({ name: 'list_connectors', arguments: {} });
        assert.notEqual(call.isError, true);
        const read = await legacy.readResource({ uri: 'atrium://connectors' });
        assert.ok(JSON.parse((read.contents[0] as { text: string }).text).connectors);
      }
      await legacy.close();
      const sessionServedBy = new Set(proxy.served.filter((s) => s.session && s.method === 'POST').map((s) => s.upstream));
      assert.deepEqual([...sessionServedBy].sort(), [0, 1], 'both processes answered requests of the one session');

      // 2026-07-28: no session at all; every request carries its own envelope.
      const before = proxy.served.length;
      const modern = new V2Client({ name: 'scale-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await modern.connect(new V2Transport(endpoint, { requestInit: { headers: { authorization } } }));
      assert.equal(modern.getNegotiatedProtocolVersion(), '2026-07-28');
      for (let i = 0; i < 3; i++) {
        assert.equal((await modern.listTools()).tools.length, 3);
        const call = await modern.callTool({ name: 'query_knowledge', arguments: { query: 'onboarding' } });
        assert.notEqual(call.isError, true, JSON.stringify(call.content));
      }
      await modern.close();
      const modernServed = proxy.served.slice(before);
      assert.ok(modernServed.every((s) => !s.session), 'no session header on 2026-07-28');
      assert.deepEqual([...new Set(modernServed.map((s) => s.upstream))].sort(), [0, 1]);

      // The session is a row both processes read: ended through one, it is gone on the other.
      const headers = { authorization, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const init = await fetch(`${procs[0]!.url}/v1/expose/mcp`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }),
      });
      const session = init.headers.get('mcp-session-id')!;
      await init.text();
      const s = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
      const ping = (url: string) => fetch(`${url}/v1/expose/mcp`, { method: 'POST', headers: s, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) });
      assert.equal((await ping(procs[1]!.url)).status, 200, 'opened on A, used on B');
      assert.equal((await fetch(`${procs[1]!.url}/v1/expose/mcp`, { method: 'DELETE', headers: s })).status, 200);
      assert.equal((await ping(procs[0]!.url)).status, 404, 'ended on B, gone on A');

      const audited = await fetch(`${procs[1]!.url}/v1/audit?action=mcp.*&limit=200`, { headers: { authorization: `Bearer ${adminKey}` } }).then((r) => r.json());
      const actions = new Set((audited as { events: { action: string }[] }).events.map((e) => e.action));
      assert.deepEqual([...actions].sort(), ['mcp.listed', 'mcp.resources_read', 'mcp.tool_invoked']);
    } finally {
      await proxy?.close();
      await Promise.all(procs.map((p) => p.stop()));
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});
