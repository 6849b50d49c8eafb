import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { EmbeddingProvider, EmbeddingRegistry } from '../../src/embeddings/provider.ts';
import { type App, type AppDeps, buildApp } from '../../src/http/index.ts';
import { createWorker, getJob } from '../../src/platform/jobs/index.ts';
import {
  applyTranslation,
  createTrainJobHandler,
  createTranslationRegistry,
  findTranslation,
  TRAIN_JOB_KIND,
} from '../../src/translations/index.ts';
import { encodeMap, fitRidge, mat } from '../../src/vec2vec/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { silentLog } from '../support/db.ts';

/**
 * A small deterministic embedding model for tests (not a stand-in for a real one): each word gets a fixed
 * pseudo-random vector from its hash; a text is the normalized sum. Two models with different seeds and
 * sizes are related by a near-linear map over a small vocabulary, which is what training must find.
 */
function hashedBagOfWords(id: string, dimensions: number, seed: number, opts: { zeroFor?: RegExp; gate?: Promise<void> } = {}): EmbeddingProvider {
  const wordVec = (word: string) => {
    let h = seed >>> 0;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193) >>> 0;
    const v = new Float32Array(dimensions);
    for (let d = 0; d < dimensions; d++) {
      h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
      v[d] = (h / 2 ** 32) * 2 - 1;
    }
    return v;
  };
  return {
    id,
    dimensions,
    async embed(texts, signal) {
      if (opts.gate) {
        // The listener goes once the gate opens: one job signal serves many batches.
        let onAbort: (() => void) | undefined;
        const aborted = new Promise((_, reject) => {
          onAbort = () => reject(new Error('aborted'));
          signal?.addEventListener('abort', onAbort, { once: true });
        });
        try {
          await Promise.race([opts.gate, aborted]);
        } finally {
          if (onAbort) signal?.removeEventListener('abort', onAbort);
        }
      }
      return texts.map((t) => {
        const out = new Float32Array(dimensions);
        if (opts.zeroFor?.test(t)) return out;
        for (const w of t.toLowerCase().split(/\W+/).filter(Boolean)) {
          const wv = wordVec(w);
          for (let d = 0; d < dimensions; d++) out[d]! += wv[d]!;
        }
        const n = Math.hypot(...out);
        if (n > 0) for (let d = 0; d < dimensions; d++) out[d]! /= n;
        return out;
      });
    },
  };
}

function registryOf(...providers: EmbeddingProvider[]): EmbeddingRegistry {
  return { defaultId: providers[0]!.id, get: (id) => providers.find((p) => p.id === id), list: () => providers };
}

const VOCAB = 'wing lift drag flow shock boundary layer pressure heat plate cone jet nozzle mach wave stress panel buckling flutter load'
  .split(' ')
  .concat('coffee bean roast brew grind espresso milk water cup filter'.split(' '));

function sentences(n: number, seed: number): string[] {
  let s = seed;
  const rnd = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
  const out = new Set<string>();
  while (out.size < n) {
    const len = 3 + Math.floor(rnd() * 6);
    out.add(Array.from({ length: len }, () => VOCAB[Math.floor(rnd() * VOCAB.length)]).join(' '));
  }
  return [...out];
}

describe('vec2vec API', () => {
  let t: TestApp;
  let app: App;
  let deps: AppDeps;
  let builtinDir: string;
  let gateOpen: () => void = () => undefined;
  const texts = sentences(600, 1);
  const a = hashedBagOfWords('test/bow-a-48d', 48, 11);
  const b = hashedBagOfWords('test/bow-b-32d', 32, 22);
  const gate = new Promise<void>((resolve) => {
    gateOpen = resolve;
  });
  const slow = hashedBagOfWords('test/slow-16d', 16, 33, { gate });
  const sparse = hashedBagOfWords('test/sparse-24d', 24, 44, { zeroFor: /coffee|milk/ });
  // Wide enough that the fit itself (λ selection and Procrustes at 768 dimensions) takes seconds.
  const wideA = hashedBagOfWords('test/wide-a-768d', 768, 55);
  const wideB = hashedBagOfWords('test/wide-b-768d', 768, 66);

  before(async () => {
    t = await createTestApp();
    builtinDir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-v2v-'));
    // A shipped translation between two models no tenant trained: listed for everyone, not deletable.
    const ridge = fitRidge(mat(3, 2, Float32Array.from([1, 0, 0, 1, 1, 1])), mat(3, 2, Float32Array.from([0, 1, 1, 0, 1, 1])), 1e-6);
    await fs.writeFile(path.join(builtinDir, 'x-to-y.bin'), encodeMap(ridge));
    await fs.writeFile(
      path.join(builtinDir, 'manifest.json'),
      JSON.stringify({
        version: 1,
        translations: [
          {
            id: 'builtin-x-to-y',
            source_model: 'builtin/x-2d',
            target_model: 'builtin/y-2d',
            file: 'x-to-y.bin',
            kind: 'linear',
            source_dim: 2,
            target_dim: 2,
            confidence: 0.9,
            sample_count: 3,
            trained_at: '2026-01-01T00:00:00.000Z',
            metrics: { mean_cosine: 0.95 },
          },
        ],
      }),
    );
    const embeddings = registryOf(a, b, slow, sparse, wideA, wideB);
    deps = { ...t.deps, embeddings, translations: createTranslationRegistry({ db: t.db, embeddings: () => embeddings, builtinDir }) };
    app = await buildApp(deps);
    await app.ready();
  });
  after(async () => {
    gateOpen();
    await app.close();
    await t.close();
    await fs.rm(builtinDir, { recursive: true, force: true });
  });

  const worker = () =>
    createWorker({ db: t.db, log: silentLog, handlers: new Map([[TRAIN_JOB_KIND, createTrainJobHandler(deps)]]), concurrency: 1, pollMs: 20 });
  const post = (url: string, payload: unknown, headers: Record<string, string> = t.admin) => app.inject({ method: 'POST', url, headers, payload: payload as object });
  const get = (url: string, headers: Record<string, string> = t.admin) => app.inject({ method: 'GET', url, headers });

  it('lists shipped translations and refuses to delete them', async () => {
    const res = await get('/v1/vec2vec/registry');
    assert.equal(res.statusCode, 200);
    const [entry] = res.json().translations;
    assert.equal(entry.translation_id, 'builtin-x-to-y');
    assert.equal(entry.builtin, true);
    const del = await app.inject({ method: 'DELETE', url: '/v1/vec2vec/builtin-x-to-y', headers: t.admin });
    assert.equal(del.statusCode, 409);
    const tr = await post('/v1/vec2vec/translate', { vector: [1, 0], source_model: 'x-2d', target_model: 'builtin/y-2d' });
    assert.equal(tr.statusCode, 200);
    assert.equal(tr.json().translation_applied, true);
    assert.equal(tr.json().translation_id, 'builtin-x-to-y');
    assert.ok(Math.abs(tr.json().vector[1] - 1) < 1e-3, `translated ${tr.json().vector}`);
  });

  it('validates training requests: permission, unknown model, too few usable texts', async () => {
    const query = await t.keyWith(['query']);
    const denied = await post('/v1/vec2vec/train', { source_model: a.id, target_model: b.id, parallel_texts: texts }, { authorization: query.authorization });
    assert.equal(denied.statusCode, 403);
    const unknown = await post('/v1/vec2vec/train', { source_model: 'nope/model', target_model: b.id, parallel_texts: texts });
    assert.equal(unknown.statusCode, 404);
    assert.match(unknown.json().error.message, /nope\/model/);
    const dupes = [...texts.slice(0, 150), ...texts.slice(0, 150).map((x) => `  ${x.replace(/ /g, '   ')} `), '', '  '];
    const few = await post('/v1/vec2vec/train', { source_model: a.id, target_model: b.id, parallel_texts: dupes, config: { min_samples: 200 } });
    assert.equal(few.statusCode, 400);
    assert.equal(few.json().error.code, 'invalid_request');
    assert.match(few.json().error.message, /only 150 usable texts/);
    const defaults = await post('/v1/vec2vec/train', { source_model: a.id, target_model: b.id, parallel_texts: texts });
    assert.equal(defaults.statusCode, 400, 'default min_samples is 1000');
    assert.match(defaults.json().error.message, /min_samples is 1000/);
    const badConfig = await post('/v1/vec2vec/train', { source_model: a.id, target_model: b.id, parallel_texts: texts, config: { validation_split: 2 } });
    assert.equal(badConfig.statusCode, 400);
    assert.match(badConfig.json().error.message, /validation_split/);
  });

  it('trains both directions in a durable job and serves them', async () => {
    const start = await post('/v1/vec2vec/train', {
      source_model: a.id,
      target_model: 'BOW-B-32D', // a short name, in any case, as everywhere in the API
      parallel_texts: texts,
      config: { min_samples: 400, validation_split: 0.15 },
    });
    assert.equal(start.statusCode, 202, start.body);
    const { job_id, status, estimated_time_seconds } = start.json();
    assert.equal(status, 'training');
    assert.ok(Number.isInteger(estimated_time_seconds) && estimated_time_seconds >= 1);
    const again = await post('/v1/vec2vec/train', { source_model: b.id, target_model: a.id, parallel_texts: texts, config: { min_samples: 400 } });
    assert.equal(again.statusCode, 409, 'one job per pair at a time');
    const queued = await get(`/v1/vec2vec/training/${job_id}`);
    assert.equal(queued.json().status, 'queued');
    assert.equal(queued.json().accuracy, null);

    assert.equal(await worker().drain(), 1);
    const done = (await get(`/v1/vec2vec/training/${job_id}`)).json();
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.progress, 1);
    assert.ok(done.accuracy > 0.8, `accuracy ${done.accuracy}`);
    assert.ok(done.confidence > 0.8, `confidence ${done.confidence}`);
    assert.ok(done.cycle_loss >= 0 && Number.isFinite(done.cycle_loss));
    assert.ok(Date.parse(done.completed_at) > 0);
    assert.equal(done.translation_ids.length, 2);
    assert.deepEqual(done.epoch_losses, [], 'a linear map is solved in one step: no epochs');

    const reg = (await get('/v1/vec2vec/registry')).json().translations.filter((x: { builtin: boolean }) => !x.builtin);
    assert.equal(reg.length, 2);
    const fwd = reg.find((x: { source_model: string }) => x.source_model === a.id);
    assert.equal(fwd.target_model, b.id);
    assert.equal(fwd.kind, 'linear');
    assert.equal(fwd.sample_count, 600);
    assert.ok(fwd.metrics.top1_accuracy > 0.8 && fwd.metrics.candidates > 50);
    assert.equal(fwd.confidence, done.confidence);

    const [vec] = await a.embed(['shock wave boundary layer']);
    const tr = await post('/v1/vec2vec/translate', { vector: Array.from(vec!), source_model: a.id, target_model: b.id });
    assert.equal(tr.statusCode, 200);
    const out = tr.json();
    assert.equal(out.translation_applied, true);
    assert.equal(out.translation_id, fwd.translation_id);
    assert.equal(out.vector.length, 32);
    const [native] = await b.embed(['shock wave boundary layer']);
    const cos = out.vector.reduce((s: number, v: number, i: number) => s + v * native![i]!, 0);
    assert.ok(cos > 0.9, `translated vector is close to the native one: cos ${cos}`);

    // The export the federated query uses, through deps and through a bare database.
    const viaDeps = await findTranslation(deps, 'default', a.id, b.id);
    const viaDb = await findTranslation(t.db, 'default', b.id, a.id);
    assert.ok(viaDeps && viaDb);
    assert.equal(applyTranslation(viaDeps, vec!).length, 32);
    assert.equal(viaDb.sourceModel, b.id);
  });

  it('answers translate errors: wrong length, non-finite, unknown model or pair; same model is identity', async () => {
    const bad = await post('/v1/vec2vec/translate', { vector: [1, 2, 3], source_model: a.id, target_model: b.id });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().error.message, /48/);
    const inf = await app.inject({
      method: 'POST',
      url: '/v1/vec2vec/translate',
      headers: { ...t.admin, 'content-type': 'application/json' },
      payload: `{"vector":[1e400${',0'.repeat(47)}],"source_model":"${a.id}","target_model":"${b.id}"}`,
    });
    assert.equal(inf.statusCode, 400);
    // Finite in JSON, past 32-bit floats: refused naming the vector, never a 500 with NaN in the answer.
    const huge = await post('/v1/vec2vec/translate', { vector: [1e200, 0], source_model: 'x-2d', target_model: 'builtin/y-2d' });
    assert.equal(huge.statusCode, 400, huge.body);
    assert.equal(huge.json().error.code, 'invalid_request');
    assert.match(huge.json().error.message, /vector is too large/);
    const str = await post('/v1/vec2vec/translate', { vector: ['NaN'], source_model: a.id, target_model: b.id });
    assert.equal(str.statusCode, 400);
    const unknown = await post('/v1/vec2vec/translate', { vector: [1, 2], source_model: 'who/knows', target_model: b.id });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error.code, 'not_found');
    const noPair = await post('/v1/vec2vec/translate', { vector: new Array(48).fill(0.1), source_model: a.id, target_model: sparse.id });
    assert.equal(noPair.statusCode, 404);
    assert.match(noPair.json().error.message, /no translation/);
    const same = await post('/v1/vec2vec/translate', { vector: new Array(32).fill(0.5), source_model: b.id, target_model: 'bow-b-32d' });
    assert.equal(same.statusCode, 200);
    assert.deepEqual(same.json(), { vector: new Array(32).fill(0.5), source_model: b.id, target_model: b.id, confidence: 1, translation_applied: false, translation_id: 'identity' });
  });

  it('reports a confidence band by short model names', async () => {
    const res = await get('/v1/vec2vec/confidence?source=bow-a-48d&target=bow-b-32d');
    assert.equal(res.statusCode, 200);
    const c = res.json();
    assert.equal(c.source_model, a.id);
    assert.ok(['excellent', 'good', 'fair', 'poor'].includes(c.band));
    assert.equal(c.band, c.confidence >= 0.95 ? 'excellent' : c.confidence >= 0.85 ? 'good' : c.confidence >= 0.7 ? 'fair' : 'poor');
    const same = (await get('/v1/vec2vec/confidence?source=bow-a-48d&target=test/bow-a-48d')).json();
    assert.equal(same.confidence, 1);
    assert.equal(same.band, 'excellent');
    assert.equal((await get('/v1/vec2vec/confidence?source=bow-a-48d&target=sparse-24d')).statusCode, 404);
    assert.equal((await get('/v1/vec2vec/confidence?source=bow-a-48d')).statusCode, 400);
  });

  it('keeps tenants apart', async () => {
    const other = await t.keyWith(['query'], 'other-tenant');
    const reg = (await get('/v1/vec2vec/registry', { authorization: other.authorization })).json().translations;
    assert.deepEqual(
      reg.map((x: { translation_id: string }) => x.translation_id),
      ['builtin-x-to-y'],
    );
    const [vec] = await a.embed(['lift drag']);
    const tr = await post('/v1/vec2vec/translate', { vector: Array.from(vec!), source_model: a.id, target_model: b.id }, { authorization: other.authorization });
    assert.equal(tr.statusCode, 404);
  });

  it('records the loss of each epoch of a neural training in the job status', async () => {
    const start = await post('/v1/vec2vec/train', { source_model: a.id, target_model: b.id, parallel_texts: texts, config: { min_samples: 400, use_neural: true, epochs: 3 } });
    assert.equal(start.statusCode, 202, start.body);
    await worker().drain();
    const s = (await get(`/v1/vec2vec/training/${start.json().job_id}`)).json();
    assert.equal(s.status, 'completed', JSON.stringify(s));
    const losses = s.epoch_losses as { epoch: number; loss: number }[];
    assert.ok(losses.length >= 1 && losses.length <= 3, JSON.stringify(losses));
    assert.deepEqual(
      losses.map((l) => l.epoch),
      losses.map((_, i) => i + 1),
    );
    assert.ok(losses.every((l) => Number.isFinite(l.loss) && l.loss > 0));
  });

  it('fails a job whose texts do not embed in both models, saying how many were usable', async () => {
    const start = await post('/v1/vec2vec/train', { source_model: a.id, target_model: sparse.id, parallel_texts: texts, config: { min_samples: 500 } });
    assert.equal(start.statusCode, 202);
    await worker().drain();
    const s = (await get(`/v1/vec2vec/training/${start.json().job_id}`)).json();
    assert.equal(s.status, 'failed');
    assert.match(s.error, /only \d+ of 600 texts have a usable embedding/);
    const reg = (await get('/v1/vec2vec/registry')).json().translations;
    assert.ok(!reg.some((x: { target_model: string }) => x.target_model === sparse.id), 'nothing half-written');
  });

  it('survives a worker stop mid-job: the job is handed back and completes later, with no partial rows', async () => {
    const start = await post('/v1/vec2vec/train', { source_model: slow.id, target_model: b.id, parallel_texts: texts, config: { min_samples: 400 } });
    const jobId = start.json().job_id;
    const w1 = worker();
    w1.start();
    for (let i = 0; i < 200; i++) {
      const j = await getJob(t.db, 'default', jobId);
      if (j?.status === 'running') break;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal((await get(`/v1/vec2vec/training/${jobId}`)).json().status, 'training');
    await w1.stop();
    const mid = (await get(`/v1/vec2vec/training/${jobId}`)).json();
    assert.equal(mid.status, 'queued');
    const rows = await t.db.query('SELECT id FROM translations WHERE source_model = $1 OR target_model = $1', [slow.id]);
    assert.equal(rows.rows.length, 0);
    gateOpen();
    await worker().drain();
    const done = (await get(`/v1/vec2vec/training/${jobId}`)).json();
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const after = await t.db.query('SELECT id FROM translations WHERE source_model = $1 OR target_model = $1', [slow.id]);
    assert.equal(after.rows.length, 2);
  });

  it('fits in a worker thread: /v1/health answers mid-fit; a stop or a cancel mid-fit writes no rows', async () => {
    const wideRows = async () => (await t.db.query('SELECT id FROM translations WHERE source_model = $1 OR target_model = $1', [wideA.id])).rows.length;
    const start = await post('/v1/vec2vec/train', { source_model: wideA.id, target_model: wideB.id, parallel_texts: texts, config: { min_samples: 400 } });
    assert.equal(start.statusCode, 202, start.body);
    const jobId = start.json().job_id;
    const fitting = async () => {
      for (let i = 0; i < 6000; i++) {
        const j = await getJob(t.db, 'default', jobId);
        if (j?.status === 'running' && (j.checkpoint as { stage?: string } | null)?.stage === 'training') return;
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.fail('the job never reached the fit');
    };
    const w1 = worker();
    w1.start();
    await fitting();
    // The fit runs off the event loop: HTTP answers while it runs (a generous bound, not a timing test).
    const health = await Promise.race([app.inject({ method: 'GET', url: '/v1/health' }), new Promise<null>((r) => setTimeout(() => r(null), 30_000))]);
    assert.ok(health, '/v1/health answered during the fit');
    assert.equal(health.statusCode, 200);
    assert.equal((await getJob(t.db, 'default', jobId))?.status, 'running', 'still fitting when health answered');
    await w1.stop();
    assert.equal((await get(`/v1/vec2vec/training/${jobId}`)).json().status, 'queued');
    assert.equal(await wideRows(), 0, 'a stop mid-fit leaves nothing half-written');

    const w2 = worker();
    w2.start();
    await fitting();
    // Cancelled through the API (DELETE /v1/vec2vec/training/{job_id}), mid-fit.
    const cancel = await app.inject({ method: 'DELETE', url: `/v1/vec2vec/training/${jobId}`, headers: t.admin });
    assert.equal(cancel.statusCode, 200, cancel.body);
    assert.deepEqual(cancel.json(), { job_id: jobId, status: 'cancelled' });
    // The handler notices the cancel (it polls the job), ends the thread and releases the job.
    const released = async () => (await t.db.query('SELECT lease_owner FROM jobs WHERE id = $1', [jobId])).rows[0]?.lease_owner === null;
    for (let i = 0; i < 6000 && !(await released()); i++) await new Promise((r) => setTimeout(r, 10));
    await w2.stop();
    const cancelled = await getJob(t.db, 'default', jobId);
    assert.equal(cancelled?.status, 'cancelled');
    assert.equal(cancelled?.lastError, 'training cancelled', 'the fit was stopped by the cancel, not finished');
    assert.equal(await wideRows(), 0, 'a cancelled fit writes no rows');
    const view = (await get(`/v1/vec2vec/training/${jobId}`)).json();
    assert.equal(view.status, 'cancelled');
    assert.equal((await app.inject({ method: 'DELETE', url: `/v1/vec2vec/training/${jobId}`, headers: t.admin })).statusCode, 409, 'already cancelled');
  });

  it('cancels a queued training job through the API: it never runs and writes nothing; 403, 404 and 409 otherwise', async () => {
    const start = await post('/v1/vec2vec/train', { source_model: a.id, target_model: sparse.id, parallel_texts: texts, config: { min_samples: 200 } });
    assert.equal(start.statusCode, 202, start.body);
    const jobId = start.json().job_id;
    const query = await t.keyWith(['query']);
    assert.equal((await app.inject({ method: 'DELETE', url: `/v1/vec2vec/training/${jobId}`, headers: { authorization: query.authorization } })).statusCode, 403);
    const cancel = await app.inject({ method: 'DELETE', url: `/v1/vec2vec/training/${jobId}`, headers: t.admin });
    assert.equal(cancel.statusCode, 200, cancel.body);
    await worker().drain();
    const view = (await get(`/v1/vec2vec/training/${jobId}`)).json();
    assert.equal(view.status, 'cancelled');
    assert.equal(view.attempts, 0, 'never ran');
    const rows = await t.db.query('SELECT id FROM translations WHERE job_id = $1', [jobId]);
    assert.equal(rows.rows.length, 0);
    const audit = await t.db.query<{ details: { job_id: string } }>("SELECT details FROM audit_events WHERE action = 'vec2vec.training_cancelled'");
    assert.ok(audit.rows.some((r) => r.details.job_id === jobId));
    // The pair can be trained again at once (the dedupe key was released).
    const again = await post('/v1/vec2vec/train', { source_model: a.id, target_model: sparse.id, parallel_texts: texts, config: { min_samples: 200 } });
    assert.equal(again.statusCode, 202, again.body);
    assert.equal((await app.inject({ method: 'DELETE', url: `/v1/vec2vec/training/${again.json().job_id}`, headers: t.admin })).statusCode, 200);
    assert.equal((await app.inject({ method: 'DELETE', url: '/v1/vec2vec/training/job_nope', headers: t.admin })).statusCode, 404);
  });

  it('deletes a trained direction once, then 404', async () => {
    const reg = (await get('/v1/vec2vec/registry')).json().translations;
    const fwd = reg.find((x: { source_model: string; target_model: string }) => x.source_model === a.id && x.target_model === b.id);
    const del = await app.inject({ method: 'DELETE', url: `/v1/vec2vec/${fwd.translation_id}`, headers: t.admin });
    assert.equal(del.statusCode, 200);
    assert.deepEqual(del.json(), { translation_id: fwd.translation_id, deleted: true });
    const again = await app.inject({ method: 'DELETE', url: `/v1/vec2vec/${fwd.translation_id}`, headers: t.admin });
    assert.equal(again.statusCode, 404);
    const [vec] = await a.embed(['lift drag']);
    const tr = await post('/v1/vec2vec/translate', { vector: Array.from(vec!), source_model: a.id, target_model: b.id });
    assert.equal(tr.statusCode, 404, 'the reverse direction stays, this one is gone');
    const audit = await get('/v1/audit?action=vec2vec.*');
    assert.ok(audit.json().events.some((e: { action: string }) => e.action === 'vec2vec.deleted'));
  });
});

describe('vec2vec storage on PostgreSQL', () => {
  it('writes both directions in one transaction and serves them from the registry', async () => {
    const { replaceTranslations } = await import('../../src/translations/store.ts');
    const { openTestPostgres } = await import('../support/db.ts');
    const pg = await openTestPostgres();
    try {
      const f = fitRidge(mat(4, 3, Float32Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1])), mat(4, 2, Float32Array.from([1, 0, 0, 1, 1, 1, 2, 1])), 1e-6);
      const row = (id: string, s: string, t: string, conf: number) => ({
        id,
        tenantId: 'default',
        sourceModel: s,
        targetModel: t,
        kind: 'linear' as const,
        sourceDim: 3,
        targetDim: 2,
        confidence: conf,
        sampleCount: 4,
        metrics: { mean_cosine: 0.9 },
        params: encodeMap(f),
        jobId: null,
      });
      await pg.db.transaction((tx) => replaceTranslations(tx, [row('tr_a', 'm/a', 'm/b', 0.5)]));
      await pg.db.transaction((tx) => replaceTranslations(tx, [row('tr_b', 'm/a', 'm/b', 0.7)]));
      const reg = createTranslationRegistry({ db: pg.db, builtinDir: '/nonexistent' });
      const list = await reg.list('default');
      assert.deepEqual(
        list.map((x) => [x.translation_id, x.confidence]),
        [['tr_b', 0.7]],
        'retraining a pair replaces its row',
      );
      const t = await reg.findTranslation('default', 'm/a', 'm/b');
      assert.ok(t);
      const out = applyTranslation(t, [0, 1, 0]);
      assert.ok(Math.abs(out[1]! - 1) < 1e-3, `decoded map from bytea: ${Array.from(out)}`);
      assert.equal(await reg.findTranslation('other', 'm/a', 'm/b'), null);
      assert.equal(await reg.resolveModel('default', 'b'), 'm/b');
    } finally {
      await pg.drop();
    }
  });
});

describe('shipped translations', () => {
  it('are listed at first start and translate between the built-in models', async () => {
    const t = await createTestApp();
    try {
      const reg = (await t.app.inject({ method: 'GET', url: '/v1/vec2vec/registry', headers: t.admin })).json().translations;
      const ids = reg.filter((x: { builtin: boolean }) => x.builtin).map((x: { translation_id: string }) => x.translation_id);
      assert.ok(ids.includes('builtin-use-lite-512d-to-glove-100d') && ids.includes('builtin-glove-100d-to-use-lite-512d'), ids.join(', '));
      const v = Array.from({ length: 512 }, (_, i) => Math.sin(i));
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/vec2vec/translate',
        headers: t.admin,
        payload: { vector: v, source_model: 'use-lite-512d', target_model: 'builtin/glove-100d' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().vector.length, 100);
      assert.equal(res.json().translation_id, 'builtin-use-lite-512d-to-glove-100d');
      const norm = Math.hypot(...res.json().vector);
      assert.ok(Math.abs(norm - 1) < 1e-4);
      const conf = (await t.app.inject({ method: 'GET', url: '/v1/vec2vec/confidence?source=glove-100d&target=use-lite-512d', headers: t.admin })).json();
      assert.equal(conf.band, conf.confidence >= 0.95 ? 'excellent' : conf.confidence >= 0.85 ? 'good' : conf.confidence >= 0.7 ? 'fair' : 'poor');
      assert.ok(conf.metrics.top1_accuracy > 0.3, 'the shipped metrics travel with the entry');
    } finally {
      await t.close();
    }
  });
});
