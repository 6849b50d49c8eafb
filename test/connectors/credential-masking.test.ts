import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { applyTransition } from '../../src/connectors/store.ts';
import { createWorker, type Worker } from '../../src/platform/jobs/index.ts';
import { createLogger } from '../../src/platform/log.ts';
import { createSyncHandler, createValidateHandler, SYNC_JOB_KIND, VALIDATE_JOB_KIND } from '../../src/sync/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

const GOOD = 'ghp_good_token_000000000000000000';
const LEAKED = 'ghp_leaky_secret_token_1234567890';
const LINEAR_KEY = 'lin_api_leaky_secret_key_0987654321';

/**
 * A vendor that echoes the presented credential in its error bodies, speaking GitHub's REST wire format
 * (`401 {message}`) and Linear's GraphQL one (`errors[].extensions.type = authentication error`). `GET /user`
 * accepts GOOD; every other GitHub path answers `failWith`.
 */
async function startEchoVendor() {
  const state = { failWith: 401 };
  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    req.resume();
    req.on('end', () => {
      const presented = req.headers.authorization ?? '';
      if (req.url === '/graphql') {
        return send(400, {
          errors: [{ message: `Authentication required, not authenticated with ${presented}`, extensions: { type: 'authentication error', code: 'AUTHENTICATION_ERROR', statusCode: 401 } }],
        });
      }
      if (req.url === '/user' && presented === `token ${GOOD}`) return send(200, { login: 'octo', id: 1 });
      const status = req.url === '/user' ? 401 : state.failWith;
      send(status, { message: `${status === 401 ? 'Bad credentials' : 'Server Error'}: the header was '${presented}'` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('connector credentials never leave in vendor error messages', () => {
  let t: TestApp;
  let vendor: Awaited<ReturnType<typeof startEchoVendor>>;
  let worker: Worker;
  const logged: string[] = [];
  before(async () => {
    vendor = await startEchoVendor();
    t = await createTestApp({
      env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ github: vendor.url, linear: vendor.url }), ATRIUM_SYNC_SCHEDULER: 'false' },
    });
    // The worker's own log, as an operator would read it.
    const destination = new Writable({
      write(chunk, _enc, done) {
        logged.push(String(chunk));
        done();
      },
    });
    worker = createWorker({
      db: t.db,
      log: createLogger({ level: 'debug', destination }),
      handlers: new Map([
        [SYNC_JOB_KIND, createSyncHandler(t.deps)],
        [VALIDATE_JOB_KIND, createValidateHandler(t.deps)],
      ]),
      concurrency: 1,
      pollMs: 50,
    });
  });
  after(async () => {
    await t.close();
    await vendor.close();
  });

  const get = async (id: string) => (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
  const create = async (connector_type: string, credentials: Record<string, string>) => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type, display_name: connector_type, credentials } });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().connector_id as string;
  };
  const jobs = async (kind: string, id: string) =>
    (await t.db.query<{ id: string; status: string; last_error: string | null; result: unknown }>('SELECT id, status, last_error, result FROM jobs WHERE kind = $1 AND payload->>\'connectorId\' = $2 ORDER BY created_at', [kind, id])).rows;
  const audit = async () => JSON.stringify((await t.app.inject({ method: 'GET', url: '/v1/audit?action=connector.*&limit=100', headers: t.admin })).json());

  for (const [kind, credentials, secret] of [
    ['github', { access_token: LEAKED }, LEAKED],
    ['linear', { api_key: LINEAR_KEY }, LINEAR_KEY],
  ] as const) {
    it(`${kind}: a rejected validation shows the vendor's message with the credential masked`, async () => {
      const id = await create(kind, credentials);
      await worker.drain();
      const c = await get(id);
      assert.equal(c.status, 'error');
      assert.match(c.last_error, /rejected the credentials: .*\*\*\*/);
      assert.equal(c.status_reason, c.last_error);
      assert.ok(!JSON.stringify(c).includes(secret), JSON.stringify(c));
      const [job] = await jobs(VALIDATE_JOB_KIND, id);
      assert.ok(job);
      const fromApi = (await t.app.inject({ method: 'GET', url: `/v1/jobs/${job.id}`, headers: t.admin })).json();
      assert.equal(fromApi.result.valid, false);
      assert.match(fromApi.result.message, /\*\*\*/);
      assert.ok(!JSON.stringify(job).includes(secret), 'the job result');
      assert.ok(!logged.join('').includes(secret), 'the worker log');
    });
  }

  it('a credential shorter than 8 characters is masked too (last_error, job, log)', async () => {
    const short = 'q7Zk2x';
    const id = await create('github', { access_token: short });
    await worker.drain();
    const c = await get(id);
    assert.equal(c.status, 'error');
    assert.match(c.last_error, /the header was 'token \*\*\*'/);
    assert.ok(!JSON.stringify(c).includes(short), JSON.stringify(c));
    assert.ok(!JSON.stringify(await jobs(VALIDATE_JOB_KIND, id)).includes(short), 'the job');
    assert.ok(!logged.join('').includes(short), 'the worker log');
  });

  it('a sync the vendor rejects (echoing the token) stores masked text in the connector, run, audit, job and log', async () => {
    const id = await create('github', { access_token: GOOD });
    await worker.drain();
    assert.equal((await get(id)).status, 'connected');
    // Validation before the first page passes; the page request is rejected, echoing the token as received.
    vendor.state.failWith = 401;
    assert.equal((await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin })).statusCode, 202);
    await worker.drain();
    const c = await get(id);
    assert.equal(c.status, 'error');
    assert.match(c.last_error, /the header was 'token \*\*\*'/);
    assert.equal(c.sync_runs[0].status, 'failed');
    assert.ok(!JSON.stringify(c).includes(GOOD), JSON.stringify(c));
    assert.ok(!(await audit()).includes(GOOD), 'audit');
    const sync = await jobs(SYNC_JOB_KIND, id);
    assert.deepEqual(sync.map((j) => j.status), ['failed']);
    assert.match(sync[0]?.last_error ?? '', /\*\*\*/);
    assert.ok(!JSON.stringify(sync).includes(GOOD), 'job');
    assert.ok(!logged.join('').includes(GOOD), 'worker log');
  });

  it('a retried vendor failure is masked in the job and log, and so is the final failure', async () => {
    const id = await create('github', { access_token: GOOD });
    await worker.drain();
    vendor.state.failWith = 500;
    assert.equal((await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin })).statusCode, 202);
    await worker.drain();
    let [job] = await jobs(SYNC_JOB_KIND, id);
    assert.equal(job?.status, 'queued', 'a server error is retried (after at least 500 ms: not yet)');
    assert.match(job?.last_error ?? '', /Server Error: the header was 'token \*\*\*'/);
    // The last attempt.
    await t.db.query('UPDATE jobs SET run_at = now(), max_attempts = attempts + 1 WHERE id = $1', [job?.id]);
    await worker.drain();
    [job] = await jobs(SYNC_JOB_KIND, id);
    assert.equal(job?.status, 'failed');
    const c = await get(id);
    assert.equal(c.status, 'error');
    assert.match(c.last_error, /Server Error: the header was 'token \*\*\*'/);
    assert.ok(!JSON.stringify({ c, job }).includes(GOOD));
    assert.ok(!logged.join('').includes(GOOD), 'worker log');
    assert.ok(logged.join('').includes("token ***'"), 'the log still says what happened');
  });

  it('an action the vendor rejects (echoing the token) answers and audits the masked message', async () => {
    const id = await create('github', { access_token: GOOD });
    await worker.drain();
    vendor.state.failWith = 422;
    const res = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/execute`, headers: t.admin, payload: { intent: 'Comment on acme/api #1: "Fixed"' } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().calls[0].status, 'failed');
    assert.match(res.json().calls[0].error, /the header was 'token \*\*\*'/);
    assert.ok(!res.body.includes(GOOD));
    assert.ok(!(await audit()).includes(GOOD), 'audit');
  });

  it('valid replacement credentials clear the old failure: connected with no last_error', async () => {
    const id = await create('github', { access_token: LEAKED });
    await worker.drain();
    assert.ok((await get(id)).last_error);
    const put = await t.app.inject({ method: 'PUT', url: `/v1/connectors/${id}/credentials`, headers: t.admin, payload: { credentials: { access_token: GOOD } } });
    assert.deepEqual(put.json(), { connector_id: id, status: 'connecting' });
    await worker.drain();
    const c = await get(id);
    assert.equal(c.status, 'connected');
    assert.equal(c.last_error, null);
    assert.equal(c.status_reason, 'authenticated as octo');
  });

  it('a completed OAuth reconnection clears the old failure too', async () => {
    const id = await create('github', { access_token: LEAKED });
    await worker.drain();
    assert.equal((await get(id)).status, 'error');
    const moved = await applyTransition(t.db, 'default', id, 'oauth_completed');
    assert.ok(moved.ok);
    const c = await get(id);
    assert.deepEqual({ status: c.status, last_error: c.last_error, status_reason: c.status_reason }, { status: 'connected', last_error: null, status_reason: null });
  });
});
