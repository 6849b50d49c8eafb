import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { after, describe, it } from 'node:test';
import { cosine, createUseProvider } from '../../src/embeddings/index.ts';
import { WorkerPool } from '../../src/embeddings/use/pool.ts';
import { startTsWorker } from '../../src/platform/worker-thread.ts';

const echo = (data: Record<string, unknown> = {}) => () => startTsWorker(new URL('../fixtures/echo-worker.ts', import.meta.url), data);

describe('WorkerPool', () => {
  it('runs tasks on worker threads and serves urgent tasks before queued bulk ones', async () => {
    const pool = new WorkerPool<{ texts: string[] }>({ size: 1, maxQueue: 100, start: echo() });
    try {
      await pool.run({ texts: ['warm'] }); // the worker is up: b1 starts as soon as it is queued
      const order: string[] = [];
      const track = (p: Promise<{ texts: string[] }>) => p.then((r) => order.push(r.texts[0]!));
      const bulk = ['b1', 'b2', 'b3'].map((t) => track(pool.run({ texts: [t], delayMs: 30 })));
      const urgent = track(pool.run({ texts: ['q'] }, { urgent: true }));
      await Promise.all([...bulk, urgent]);
      assert.equal(order[0], 'B1', 'the running task finishes first');
      assert.equal(order[1], 'Q', 'the urgent task jumps the bulk queue');
      assert.deepEqual(order.slice(2), ['B2', 'B3']);
    } finally {
      await pool.close();
    }
  });

  it('applies back-pressure: bulk callers wait while the queue is full', async () => {
    const pool = new WorkerPool<{ texts: string[] }>({ size: 1, maxQueue: 1, start: echo() });
    try {
      const runs = Array.from({ length: 4 }, (_, i) => pool.run({ texts: [`t${i}`], delayMs: 20 }));
      await new Promise((r) => setTimeout(r, 5));
      assert.ok(pool.queued <= 1, `queue stays bounded (${pool.queued})`);
      assert.deepEqual((await Promise.all(runs)).map((r) => r.texts[0]), ['T0', 'T1', 'T2', 'T3']);
    } finally {
      await pool.close();
    }
  });

  it('drops an aborted queued task, fails the task of a crashed worker and replaces the worker', async () => {
    const pool = new WorkerPool<{ texts: string[] }>({ size: 1, maxQueue: 10, start: echo() });
    try {
      const first = pool.run({ texts: ['a'], delayMs: 50 });
      const controller = new AbortController();
      const aborted = pool.run({ texts: ['never'] }, { signal: controller.signal });
      controller.abort(new Error('user cancelled'));
      await assert.rejects(aborted, /user cancelled/);
      assert.equal((await first).texts[0], 'A');
      await assert.rejects(pool.run({ texts: ['x'], crash: true }), /exited while running/);
      assert.equal((await pool.run({ texts: ['after'] })).texts[0], 'AFTER');
    } finally {
      await pool.close();
    }
  });

  it('lets go of a long-lived abort signal once each task is done (no listener leak across batches)', async () => {
    const pool = new WorkerPool<{ texts: string[] }>({ size: 1, maxQueue: 100, start: echo() });
    try {
      const job = new AbortController();
      for (let i = 0; i < 25; i++) await pool.run({ texts: [`t${i}`] }, { signal: job.signal });
      assert.equal(getEventListeners(job.signal, 'abort').length, 0);
    } finally {
      await pool.close();
    }
  });

  it('reports a model that cannot load instead of hanging', async () => {
    const pool = new WorkerPool<{ texts: string[] }>({ size: 1, maxQueue: 10, start: echo({ failStart: true }) });
    try {
      await assert.rejects(pool.run({ texts: ['x'] }), /failed to start: model files missing/);
      await assert.rejects(pool.run({ texts: ['y'] }), /failed to start/);
    } finally {
      await pool.close();
    }
  });
});

describe('builtin/use-lite-512d (Universal Sentence Encoder in a worker thread)', () => {
  const use = createUseProvider({ workers: 1 });
  after(() => use.close!());

  it('embeds sentences off the main thread into unit 512-d vectors with sensible similarity', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const [cat, kitten, table] = await use.embed([
      'The cat rested on the carpet.',
      'The kitten slept on the rug.',
      'Quarterly revenue grew by eight percent.',
    ]);
    clearInterval(timer);
    assert.ok(ticks >= 3, `the event loop kept running while the model worked (${ticks} ticks)`);
    for (const v of [cat, kitten, table]) {
      assert.equal(v?.length, 512);
      assert.ok(Math.abs(Math.hypot(...v!) - 1) < 1e-4);
    }
    assert.ok(cosine(cat!, kitten!) > cosine(cat!, table!) + 0.2);
  });

  it('is deterministic across calls and handles empty text', async () => {
    const [a, empty] = await use.embed(['same words', '']);
    const [b] = await use.embed(['same words']);
    assert.ok(cosine(a!, b!) > 0.9999);
    assert.equal(empty?.length, 512);
  });
});
