import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createWorker } from '../../src/platform/jobs/index.ts';
import { createValidateHandler, VALIDATE_JOB_KIND } from '../../src/sync/index.ts';
import { type FakeGitHub, seededRepo, startFakeGitHub } from '../fakes/github.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { openTestPostgres, silentLog } from '../support/db.ts';

const CHILD = path.resolve(import.meta.dirname, 'sync-worker-child.ts');

function startChild(env: Record<string, string>): { child: ChildProcess; exited: Promise<unknown> } {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr?.on('data', (d: Buffer) => process.stderr.write(d));
  return { child, exited: new Promise((resolve) => child.once('exit', resolve)) };
}

async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('sync survives kill -9 of its worker (PostgreSQL)', () => {
  let pg: Awaited<ReturnType<typeof openTestPostgres>>;
  let t: TestApp;
  let gh: FakeGitHub;
  const children: ChildProcess[] = [];
  before(async () => {
    pg = await openTestPostgres();
    gh = await startFakeGitHub({ repos: [seededRepo('acme/big', 400)] });
    t = await createTestApp({ db: pg.db, env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ github: gh.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
  });
  after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await t.close().catch(() => undefined);
    await gh.close();
    await pg.drop();
  });

  it('resumes from the checkpoint after SIGKILL without losing or duplicating a document', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/connectors',
      headers: t.admin,
      payload: { connector_type: 'github', display_name: 'big', credentials: { access_token: gh.token } },
    });
    const id = created.json().connector_id as string;
    const validator = createWorker({ db: t.db, log: silentLog, handlers: new Map([[VALIDATE_JOB_KIND, createValidateHandler(t.deps)]]), concurrency: 1, pollMs: 50 });
    await validator.drain();
    const sync = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(sync.statusCode, 202, sync.body);
    const { run_id: runId, job_id: jobId } = sync.json();

    gh.delayMs = 40;
    const env = { DATABASE_URL: pg.url, ATRIUM_SECRET_KEY: 'test-secret-key', ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ github: gh.url }), LOG_LEVEL: 'warn' };
    const first = startChild(env);
    children.push(first.child);
    const batchesAtKill = await waitFor('3 committed batches', async () => {
      const r = await t.db.query<{ batches: number }>('SELECT batches FROM connector_sync_runs WHERE id = $1', [runId]);
      const b = Number(r.rows[0]?.batches ?? 0);
      return b >= 3 ? b : null;
    });
    first.child.kill('SIGKILL');
    await first.exited;
    const atKill = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents WHERE source_node = $1', [id]);
    const job = await t.db.query<{ status: string; checkpoint: unknown }>('SELECT status, checkpoint FROM jobs WHERE id = $1', [jobId]);
    assert.equal(job.rows[0]?.status, 'running', 'the killed worker left its lease behind');
    assert.ok(job.rows[0]?.checkpoint, 'a checkpoint was stored');

    const second = startChild(env);
    children.push(second.child);
    await waitFor('the job to complete', async () => {
      const r = await t.db.query<{ status: string }>('SELECT status FROM jobs WHERE id = $1', [jobId]);
      return r.rows[0]?.status === 'completed';
    });
    second.child.kill('SIGTERM');
    await second.exited;

    const expected = ['repo:acme/big', 'file:acme/big:README.md', 'file:acme/big:docs/guide.md', 'discussion:acme/big#1'];
    for (let n = 1; n <= 400; n++) expected.push(n % 5 === 0 ? `pr:acme/big#${n}` : `issue:acme/big#${n}`);
    const docs = await t.db.query<{ external_id: string }>('SELECT external_id FROM documents WHERE source_node = $1 ORDER BY external_id', [id]);
    assert.deepEqual(docs.rows.map((r) => r.external_id), [...expected].sort(), 'exactly the source set');
    const run = await t.db.query<{ status: string; added: number; batches: number }>('SELECT status, added, batches FROM connector_sync_runs WHERE id = $1', [runId]);
    assert.equal(run.rows[0]?.status, 'completed');
    assert.equal(Number(run.rows[0]?.added), expected.length, 'every document added exactly once across both workers');
    const attempts = await t.db.query<{ attempts: number }>('SELECT attempts FROM jobs WHERE id = $1', [jobId]);
    assert.equal(Number(attempts.rows[0]?.attempts), 2, 'the second worker re-leased the same job');
    assert.ok(Number(atKill.rows[0]?.n) < expected.length, `killed mid-sync (${atKill.rows[0]?.n} of ${expected.length}, ${batchesAtKill} batches)`);
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.status, 'idle');
  });
});
