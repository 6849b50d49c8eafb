import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createWorker } from '../../src/platform/jobs/index.ts';
import { createValidateHandler, VALIDATE_JOB_KIND } from '../../src/sync/index.ts';
import { type FakeGitHub, seededRepo, startFakeGitHub } from '../fakes/github.ts';
import { type FakeLlm, startFakeLlm } from '../fakes/llm.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { silentLog } from '../support/db.ts';

async function githubConnector(t: TestApp, token: string): Promise<string> {
  const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'github', display_name: 'gh', credentials: { access_token: token } } });
  const w = createWorker({ db: t.db, log: silentLog, handlers: new Map([[VALIDATE_JOB_KIND, createValidateHandler(t.deps)]]), concurrency: 1, pollMs: 50 });
  await w.drain();
  return created.json().connector_id;
}

describe('connector actions (execute)', () => {
  let gh: FakeGitHub;
  let llm: FakeLlm;
  let rules: TestApp;
  let withLlm: TestApp;
  before(async () => {
    gh = await startFakeGitHub({ repos: [seededRepo('acme/api', 1)] });
    llm = await startFakeLlm();
    const env = { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ github: gh.url }), ATRIUM_SYNC_SCHEDULER: 'false' };
    rules = await createTestApp({ env });
    withLlm = await createTestApp({ env: { ...env, ATRIUM_LLM_BASE_URL: llm.baseUrl, ATRIUM_LLM_API_KEY: 'sk-fake', ATRIUM_LLM_MODEL: 'fake-model' } });
  });
  after(async () => {
    await rules.close();
    await withLlm.close();
    await gh.close();
    await llm.close();
  });

  it('rule-based planner: dry run plans, a real run creates the issue and is audited', async () => {
    const id = await githubConnector(rules, gh.token);
    const intent = 'Create an issue in acme/api: "Search returns stale results"';
    const dry = await rules.app.inject({ method: 'POST', url: `/v1/connectors/${id}/execute`, headers: rules.admin, payload: { intent, dry_run: true, context: { body: 'Seen twice today.' } } });
    assert.equal(dry.statusCode, 200, dry.body);
    assert.deepEqual(dry.json().calls, [{ action: 'create_issue', parameters: { repository: 'acme/api', title: 'Search returns stale results', body: 'Seen twice today.' }, status: 'planned' }]);
    assert.equal(gh.created.length, 0, 'dry run executes nothing');
    const real = await rules.app.inject({ method: 'POST', url: `/v1/connectors/${id}/execute`, headers: rules.admin, payload: { intent, context: { body: 'Seen twice today.' } } });
    assert.equal(real.statusCode, 200, real.body);
    assert.equal(real.json().planner, 'rules');
    assert.equal(real.json().calls[0].status, 'succeeded');
    assert.deepEqual(gh.created, [{ repo: 'acme/api', title: 'Search returns stale results', body: 'Seen twice today.', number: 2 }]);
    const audit = await rules.app.inject({ method: 'GET', url: '/v1/audit?action=connector.action_executed', headers: rules.admin });
    assert.equal(audit.json().events.length, 1);
    assert.equal(audit.json().events[0].details.action, 'create_issue');
    assert.equal(audit.json().events[0].details.status, 'succeeded');
  });

  it('rule-based planner: 422 for an intent it does not understand or missing parameters', async () => {
    const id = await githubConnector(rules, gh.token);
    const vague = await rules.app.inject({ method: 'POST', url: `/v1/connectors/${id}/execute`, headers: rules.admin, payload: { intent: 'make everything better' } });
    assert.equal(vague.statusCode, 422);
    assert.equal(vague.json().error.code, 'intent_not_understood');
    const missing = await rules.app.inject({ method: 'POST', url: `/v1/connectors/${id}/execute`, headers: rules.admin, payload: { intent: 'comment on #1 please' } });
    assert.equal(missing.statusCode, 422);
    assert.equal(missing.json().error.code, 'invalid_action_parameters');
    assert.match(missing.json().error.message, /repository/);
  });

  it('LLM planner: offers the actions as tools and runs the tool calls it returns', async () => {
    const id = await githubConnector(withLlm, gh.token);
    llm.next = { toolCalls: [{ name: 'comment_on_issue', arguments: { repository: 'acme/api', issue_number: 1, body: 'Fixed in v2.' } }] };
    const res = await withLlm.app.inject({ method: 'POST', url: `/v1/connectors/${id}/execute`, headers: withLlm.admin, payload: { intent: 'tell the reporter of the first issue that it is fixed in v2' } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().planner, 'llm');
    assert.equal(res.json().calls[0].status, 'succeeded');
    assert.deepEqual(gh.comments.at(-1), { repo: 'acme/api', issue: 1, body: 'Fixed in v2.' });
    const req = llm.requests.at(-1);
    assert.ok(req);
    assert.equal(req.headers.authorization, 'Bearer sk-fake');
    assert.equal(req.body.model, 'fake-model');
    const tools = (req.body.tools as { function: { name: string } }[]).map((x) => x.function.name);
    assert.deepEqual(tools.sort(), ['comment_on_issue', 'create_issue']);
    llm.next = { text: 'I cannot do that with these tools.' };
    const refused = await withLlm.app.inject({ method: 'POST', url: `/v1/connectors/${id}/execute`, headers: withLlm.admin, payload: { intent: 'delete the repository' } });
    assert.equal(refused.statusCode, 422);
    assert.match(refused.json().error.message, /cannot do that/);
    llm.next = { toolCalls: [{ name: 'drop_database', arguments: {} }] };
    const invented = await withLlm.app.inject({ method: 'POST', url: `/v1/connectors/${id}/execute`, headers: withLlm.admin, payload: { intent: 'x', dry_run: true } });
    assert.equal(invented.statusCode, 422);
    assert.equal(invented.json().error.code, 'unknown_action');
  });

  it('LLM planner: an LLM that answers an error is a 502 upstream_error naming its status and message, never its key; nothing runs', async () => {
    const id = await githubConnector(withLlm, gh.token);
    const before = { created: gh.created.length, comments: gh.comments.length };
    const execute = () =>
      withLlm.app.inject({ method: 'POST', url: `/v1/connectors/${id}/execute`, headers: withLlm.admin, payload: { intent: 'Create an issue in acme/api: "x"' } });
    llm.next = { status: 401, body: { error: { message: 'Incorrect API key provided: sk-fake. You can find your API key at https://platform.openai.com', type: 'invalid_request_error' } } };
    const rejected = await execute();
    assert.equal(rejected.statusCode, 502, rejected.body);
    assert.equal(rejected.json().error.code, 'upstream_error');
    assert.match(rejected.json().error.message, /LLM endpoint .*HTTP 401: Incorrect API key provided: \*\*\*\. .*ATRIUM_LLM_API_KEY/);
    assert.deepEqual(rejected.json().error.details, { upstream: 'llm', status: 401 });
    assert.ok(!rejected.body.includes('sk-fake'), 'the key is masked');

    llm.next = { status: 400, body: 'model "nope" not found' };
    const plain = await execute();
    assert.equal(plain.statusCode, 502);
    assert.match(plain.json().error.message, /HTTP 400: model "nope" not found/);

    llm.next = { status: 200, body: { unexpected: true } };
    const garbled = await execute();
    assert.equal(garbled.statusCode, 502);
    assert.match(garbled.json().error.message, /not a chat completion/);
    assert.deepEqual({ created: gh.created.length, comments: gh.comments.length }, before, 'no fallback planner ran anything');
  });
});
