import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_JSON_DEPTH } from '../../src/platform/json-depth.ts';
import { createWorker } from '../../src/platform/jobs/index.ts';
import { createValidateHandler, VALIDATE_JOB_KIND } from '../../src/sync/index.ts';
import { type FakeGitHub, seededRepo, startFakeGitHub } from '../fakes/github.ts';
import { httpClient, listen, openSocket } from '../mcp/support.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { silentLog } from '../support/db.ts';

const deep = (levels: number) => `{"query":${'['.repeat(levels)}${']'.repeat(levels)},"user_id":"u"}`;

describe('deeply nested JSON bodies', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await createTestApp({ env: { ATRIUM_SYNC_SCHEDULER: 'false' } });
    base = await listen(t);
  });
  after(() => t.close());

  it('answers 400 naming the limit on authenticated, public and MCP routes, never 500', async () => {
    const routes: { url: string; headers: Record<string, string> }[] = [
      { url: '/v1/federate', headers: t.admin },
      { url: '/v1/search', headers: t.admin },
      { url: '/v1/auth/logout', headers: {} }, // a route anyone may reach
      { url: '/v1/expose/mcp', headers: { ...t.admin, accept: 'application/json, text/event-stream' } },
    ];
    for (const { url, headers } of routes) {
      const res = await t.app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, payload: deep(8000) });
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.equal(res.json().error.code, 'json_too_deep', url);
      assert.match(res.json().error.message, new RegExp(`more than ${MAX_JSON_DEPTH} levels`));
      assert.equal(res.json().error.details.max_depth, MAX_JSON_DEPTH);
    }
    // At the limit the body is parsed and validated as usual (a schema 400, not the depth refusal).
    const atLimit = await t.app.inject({ method: 'POST', url: '/v1/federate', headers: { ...t.admin, 'content-type': 'application/json' }, payload: deep(MAX_JSON_DEPTH - 1) });
    assert.equal(atLimit.statusCode, 400);
    assert.equal(atLimit.json().error.code, 'invalid_request');
  });

  it('over WebSocket MCP: a JSON-RPC error naming the limit, and the socket stays usable', async () => {
    const ws = await openSocket(`${base.replace(/^http/, 'ws')}/v1/expose/mcp/ws`, t.admin);
    try {
      const answers: unknown[] = [];
      const next = () => new Promise<unknown>((resolve) => ws.once('message', (d) => resolve(JSON.parse(String(d)))));
      const first = next();
      ws.send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${'['.repeat(8000)}${']'.repeat(8000)}}}`);
      answers.push(await first);
      const second = next();
      ws.send('{"jsonrpc":"2.0","id":2,"method":"ping"}');
      answers.push(await second);
      const [refused, ok] = answers as { id: unknown; error?: { code: number; message: string }; result?: unknown }[];
      assert.equal(refused?.error?.code, -32600);
      assert.match(refused?.error?.message ?? '', new RegExp(`more than ${MAX_JSON_DEPTH} levels`));
      assert.equal(ok?.id, 2);
      assert.ok(ok?.result, JSON.stringify(ok));
    } finally {
      ws.close();
    }
  });
});

describe('lone UTF-16 surrogates', () => {
  let gh: FakeGitHub;
  let t: TestApp;
  let base: string;
  let connectorId = '';
  before(async () => {
    gh = await startFakeGitHub({ repos: [seededRepo('acme/api', 1)] });
    t = await createTestApp({ env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ github: gh.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
    base = await listen(t);
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'github', display_name: 'gh', credentials: { access_token: gh.token } } });
    assert.equal(created.statusCode, 201, created.body);
    connectorId = created.json().connector_id;
    await createWorker({ db: t.db, log: silentLog, handlers: new Map([[VALIDATE_JOB_KIND, createValidateHandler(t.deps)]]), concurrency: 1, pollMs: 50 }).drain();
  });
  after(async () => {
    await t.close();
    await gh.close();
  });

  const expect400 = (res: { statusCode: number; body: string; json(): { error: { code: string; message: string; details: { problems: { path: string }[] } } } }, path: string) => {
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error.code, 'invalid_request');
    assert.match(res.json().error.message, new RegExp(`invalid ${path.replace(/[.\\]/g, '\\$&')}: contains a lone UTF-16 surrogate`));
    assert.equal(res.json().error.details.problems[0]?.path, path);
  };
  const auditCount = async (action: string) => Number((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_events WHERE action = $1', [action])).rows[0]?.n);

  it('an action intent holding one is refused with 400 before the vendor is called or anything is audited', async () => {
    const intent = 'Create an issue in acme/api: "Broken \ud800 search"';
    const res = await t.app.inject({ method: 'POST', url: `/v1/connectors/${connectorId}/execute`, headers: t.admin, payload: { intent } });
    expect400(res, 'body.intent');
    const inContext = await t.app.inject({
      method: 'POST',
      url: `/v1/connectors/${connectorId}/execute`,
      headers: t.admin,
      payload: { intent: 'Create an issue in acme/api: "Broken search"', context: { body: 'x\udc00' } },
    });
    expect400(inContext, 'body.context.body');
    assert.deepEqual(gh.created, [], 'the vendor action did not run');
    assert.equal(await auditCount('connector.action_executed'), 0);
  });

  it('over MCP the same intent is an invalid argument naming the field, and the vendor action does not run', async () => {
    const client = await httpClient(base, t.admin.authorization);
    try {
      const res = await client.callTool({ name: 'execute_action', arguments: { connector_id: connectorId, intent: 'Create an issue in acme/api: "a \ud83d b"' } });
      assert.equal(res.isError, true);
      const text = (res.content as { text: string }[])[0]?.text ?? '';
      assert.match(text, /intent: contains a lone UTF-16 surrogate/);
      assert.doesNotMatch(text, /internal error|try again/);
      assert.deepEqual(gh.created, []);
    } finally {
      await client.close();
    }
  });

  it('an unknown MCP tool whose name holds one is still audited (the name stored with U+FFFD)', async () => {
    const before = await auditCount('mcp.tool_invoked');
    const client = await httpClient(base, t.admin.authorization);
    try {
      const res = await client.callTool({ name: 'search\udfff', arguments: {} }).catch((err: Error) => err);
      assert.ok(res instanceof Error || res.isError === true);
    } finally {
      await client.close();
    }
    assert.equal(await auditCount('mcp.tool_invoked'), before + 1);
    const row = await t.db.query<{ details: { tool: string; outcome: string } }>(
      "SELECT details FROM audit_events WHERE action = 'mcp.tool_invoked' ORDER BY occurred_at DESC, id DESC LIMIT 1",
    );
    assert.equal(row.rows[0]?.details.tool, 'search\ufffd');
    assert.equal(row.rows[0]?.details.outcome, 'unknown_tool');
  });

  it('document metadata (values and keys) and forget.reason are refused with 400 naming the field, and nothing is stored', async () => {
    const writer = await t.keyWith(['connector:write']);
    await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'api', display_name: 'push' } });
    const api = (await t.app.inject({ method: 'GET', url: '/v1/connectors', headers: t.admin })).json().connectors.find((c: { connector_type: string }) => c.connector_type === 'api');
    const push = (metadata: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: `/v1/connectors/${api.connector_id}/documents`, headers: writer, payload: { documents: [{ external_id: 'd1', title: 'T', content: 'c', metadata }] } });
    expect400(await push({ team: 'a\ud800' }), 'body.documents.0.metadata.team');
    expect400(await push({ 'k\ud800': 1 }), 'body.documents.0.metadata.k\\ud800');
    const docs = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents');
    assert.equal(docs.rows[0]?.n, 0);
    const ok = await push({ team: 'a \ud83d\ude00 pair is fine' });
    assert.equal(ok.statusCode, 200, ok.body);
    const docId = (await t.db.query<{ id: string }>('SELECT id FROM documents LIMIT 1')).rows[0]?.id;
    const forget = await t.app.inject({ method: 'POST', url: '/v1/forget', headers: writer, payload: { document_ids: [docId], reason: 'GDPR \udc00' } });
    expect400(forget, 'body.reason');
    assert.equal((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM federation_tombstones')).rows[0]?.n, 0);
  });
});
