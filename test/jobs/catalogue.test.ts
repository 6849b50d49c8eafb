import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import type { DatabaseExecutor } from '../../src/platform/db/index.ts';
import { createWorker, defineJobKind, enqueue, getJob, jobHandler, namedByActiveJobs } from '../../src/platform/jobs/index.ts';
import { JOB_CATALOGUE } from '../../src/sync/index.ts';
import { openTestPglite, silentLog } from '../support/db.ts';

const SRC = path.resolve(import.meta.dirname, '../../src');
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => (statSync(path.join(dir, n)).isDirectory() ? files(path.join(dir, n)) : n.endsWith('.ts') && !n.endsWith('.test.ts') ? [path.join(dir, n)] : []));

describe('job catalogue', () => {
  it('names each kind once, and every kind the code defines is in it', () => {
    const kinds = JOB_CATALOGUE.map((e) => e.job.kind);
    assert.equal(new Set(kinds).size, kinds.length);
    const defined = files(SRC).flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/defineJobKind\(\{\s*kind: '([^']+)'/g)].map((m) => m[1]));
    assert.deepEqual([...defined].sort(), [...kinds].sort());
  });

  it('nothing enqueues with the untyped enqueueJob or casts a job payload outside the job queue itself', () => {
    const bad = files(SRC)
      .filter((f) => !f.includes(`${path.sep}platform${path.sep}jobs${path.sep}`))
      .filter((f) => /\benqueueJob\(|job\.payload as\b/.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(SRC, f));
    assert.deepEqual(bad, []);
  });
});

describe('typed jobs', () => {
  let db: DatabaseExecutor;
  before(async () => {
    db = await openTestPglite();
  });
  after(async () => db?.close());
  const ECHO = defineJobKind({
    kind: 'test.echo',
    payload: z.object({ ids: z.array(z.string()), n: z.number().int() }),
    maxAttempts: 4,
    dedupeKey: (tenantId, p) => `echo:${tenantId}:${p.n}`,
  });

  it('enqueue stores the parsed payload with the kind’s attempts and dedupe key; a second request joins the first', async () => {
    const a = await enqueue(db, ECHO, 'default', { ids: ['d1', 'd2'], n: 1 });
    const b = await enqueue(db, ECHO, 'default', { ids: ['d3'], n: 1 });
    assert.equal(a.created, true);
    assert.equal(b.created, false);
    assert.equal(b.job.id, a.job.id);
    assert.equal(a.job.maxAttempts, 4);
    assert.equal(a.job.dedupeKey, 'echo:default:1');
    assert.deepEqual([...(await namedByActiveJobs(db, ECHO, 'default', 'ids', ['d1', 'd3', 'd2']))].sort(), ['d1', 'd2']);
    assert.deepEqual([...(await namedByActiveJobs(db, ECHO, 'other', 'ids', ['d1']))], [], 'another tenant’s jobs name nothing');
    await assert.rejects(enqueue(db, ECHO, 'default', { ids: [], n: 1.5 }), z.ZodError);
  });

  it('a handler gets the parsed payload; a payload that does not match fails the job at once, without retries', async () => {
    const got: unknown[] = [];
    const handlers = new Map([[ECHO.kind, jobHandler(ECHO, async (p) => got.push(p))]]);
    const bad = await db.query<{ id: string }>(
      "INSERT INTO jobs (id, tenant_id, kind, payload, max_attempts) VALUES ('job_bad', 'default', 'test.echo', '{\"ids\": 3}', 4) RETURNING id",
    );
    await createWorker({ db, log: silentLog, handlers, concurrency: 1, pollMs: 50 }).drain();
    assert.deepEqual(got, [{ ids: ['d1', 'd2'], n: 1 }]);
    const failed = await getJob(db, 'default', bad.rows[0]?.id ?? '');
    assert.equal(failed?.status, 'failed');
    assert.equal(failed?.attempts, 1);
    assert.match(failed?.lastError ?? '', /invalid test\.echo job payload: ids: /);
  });
});
