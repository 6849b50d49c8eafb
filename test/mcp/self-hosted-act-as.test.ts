import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { parseSelfHostedConfig, type SelfHostedServer, startSelfHostedServer, WebSocketTransport } from '../../src/mcp/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { silentLog } from '../support/db.ts';
import { listen, openSocket, upgradeStatus } from './support.ts';

/** The self-hosted MCP server forwards the person a WebSocket client names at connect, so the service answers their view. */
describe('self-hosted MCP server: act-as over WebSocket', () => {
  let t: TestApp;
  let mcp: SelfHostedServer;
  let service: string;
  before(async () => {
    t = await createTestApp();
    service = await listen(t);
    const api = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'api', display_name: 'Push' } });
    assert.equal(api.statusCode, 201, api.body);
    const push = await t.app.inject({
      method: 'POST',
      url: `/v1/connectors/${api.json().connector_id}/documents`,
      headers: t.admin,
      payload: { documents: [{ external_id: 'plan', title: 'Plan', content: 'The roadmap codename kestrel for Ada only.', acl: { users: ['ada@acme.test'] } }] },
    });
    assert.equal(push.statusCode, 200, push.body);
    const key = await t.keyWith(['query', 'act_as']);
    mcp = await startSelfHostedServer(parseSelfHostedConfig({ port: 0, service_base_url: service }, { ATRIUM_API_KEY: key.authorization.slice('Bearer '.length) }), silentLog);
  });
  after(async () => {
    await mcp?.close();
    await t.close();
  });

  const found = async (url: string, headers: Record<string, string> = {}) => {
    const c = new Client({ name: 'act-as', version: '1' });
    await c.connect(new WebSocketTransport(await openSocket(url, { authorization: 'Bearer ignored', ...headers })));
    try {
      return JSON.stringify(await c.callTool({ name: 'query_knowledge', arguments: { query: 'roadmap kestrel', limit: 5 } }));
    } finally {
      await c.close();
    }
  };

  it('answers the named person’s view with ?act_as= or the header, and the key’s own (service) view without', async () => {
    const ws = `${mcp.url.replace(/^http/, 'ws')}/v1/expose/mcp/ws`;
    assert.doesNotMatch(await found(ws), /kestrel/);
    assert.match(await found(`${ws}?act_as=ada@acme.test`), /kestrel/);
    assert.match(await found(ws, { 'x-atrium-act-as': 'ada@acme.test' }), /kestrel/);
    assert.doesNotMatch(await found(`${ws}?act_as=bob@acme.test`), /kestrel/);
    assert.equal((await upgradeStatus(`${ws}?act_as=nope`, { authorization: 'Bearer ignored' })).status, 400);
  });

  it('with a key without act_as, the service refuses the name: a tool error, never another view', async () => {
    const plain = await t.keyWith(['query']);
    const other = await startSelfHostedServer(parseSelfHostedConfig({ port: 0, service_base_url: service }, { ATRIUM_API_KEY: plain.authorization.slice('Bearer '.length) }), silentLog);
    try {
      const text = await found(`${other.url.replace(/^http/, 'ws')}/v1/expose/mcp/ws?act_as=ada@acme.test`);
      assert.match(text, /act_as/);
      assert.match(text, /"isError":true/);
      assert.doesNotMatch(text, /kestrel/);
    } finally {
      await other.close();
    }
  });
});
