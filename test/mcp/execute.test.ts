import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createWorker } from '../../src/platform/jobs/index.ts';
import { createValidateHandler, VALIDATE_JOB_KIND } from '../../src/sync/index.ts';
import { type FakeGitHub, seededRepo, startFakeGitHub } from '../fakes/github.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { silentLog } from '../support/db.ts';
import { httpClient, listen } from './support.ts';

describe('execute_action end to end through a connector', () => {
  let gh: FakeGitHub;
  let t: TestApp;
  let base: string;
  before(async () => {
    gh = await startFakeGitHub({ repos: [seededRepo('acme/api', 1)] });
    t = await createTestApp({ env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ github: gh.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
    base = await listen(t);
  });
  after(async () => {
    await t.close();
    await gh.close();
  });

  async function connector(payload: Record<string, unknown>): Promise<string> {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload });
    assert.equal(created.statusCode, 201, created.body);
    const w = createWorker({ db: t.db, log: silentLog, handlers: new Map([[VALIDATE_JOB_KIND, createValidateHandler(t.deps)]]), concurrency: 1, pollMs: 50 });
    await w.drain();
    return created.json().connector_id;
  }

  it('creates an issue on the connected tool from an MCP tool call, and audits both layers', async () => {
    const id = await connector({ connector_type: 'github', display_name: 'gh', credentials: { access_token: gh.token } });
    const k = await t.keyWith(['connector:write']);
    const client = await httpClient(base, k.authorization);
    try {
      const res = await client.callTool({
        name: 'execute_action',
        arguments: { connector_id: id, intent: 'Create an issue in acme/api: "Search returns stale results"', context: { body: 'Seen twice today.' } },
      });
      assert.notEqual(res.isError, true, JSON.stringify(res));
      const structured = res.structuredContent as { calls: { action: string; status: string }[]; planner: string };
      assert.deepEqual(structured.calls.map((c) => `${c.action}:${c.status}`), ['create_issue:succeeded']);
      assert.match((res.content as { text: string }[])[0]!.text, /Done on .*create_issue/s);
      assert.deepEqual(gh.created, [{ repo: 'acme/api', title: 'Search returns stale results', body: 'Seen twice today.', number: 2 }]);

      const vague = await client.callTool({ name: 'execute_action', arguments: { connector_id: id, intent: 'make everything better' } });
      assert.equal(vague.isError, true);
      assert.equal(gh.created.length, 1);
    } finally {
      await client.close();
    }
    const audit = await t.app.inject({ method: 'GET', url: '/v1/audit?limit=100', headers: t.admin });
    const actions = audit.json().events.filter((e: { actor_id: string }) => e.actor_id === k.id).map((e: { action: string; outcome?: string }) => `${e.action}:${e.outcome ?? ''}`);
    assert.deepEqual(actions, ['mcp.tool_invoked:error', 'mcp.tool_invoked:success', 'connector.action_executed:']);
  });

  it('explains when a connector has no actions or does not exist', async () => {
    const id = await connector({ connector_type: 'api', display_name: 'push source' });
    const k = await t.keyWith(['connector:write']);
    const client = await httpClient(base, k.authorization);
    try {
      const none = await client.callTool({ name: 'execute_action', arguments: { connector_id: id, intent: 'create an issue' } });
      assert.equal(none.isError, true);
      assert.match((none.content as { text: string }[])[0]!.text, /declare no actions/);
      const missing = await client.callTool({ name: 'execute_action', arguments: { connector_id: 'github-nope', intent: 'x' } });
      assert.equal(missing.isError, true);
      assert.match((missing.content as { text: string }[])[0]!.text, /not found/);
    } finally {
      await client.close();
    }
  });
});
