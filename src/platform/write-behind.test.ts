import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createWriteBehind } from './write-behind.ts';

describe('write-behind queue', () => {
  it('writes items pushed in the same step together, and later ones in the next write', async () => {
    const writes: number[][] = [];
    let release: (() => void) | undefined;
    const q = createWriteBehind<number>(async (batch) => {
      writes.push([...batch]);
      if (writes.length === 1) await new Promise<void>((r) => (release = r));
    });
    q.push(1);
    q.push(2);
    await Promise.resolve();
    await Promise.resolve();
    assert.deepEqual(writes, [[1, 2]]);
    q.push(3);
    q.push(4);
    assert.equal(q.pending, 4);
    const drained = q.drain();
    release?.();
    await drained;
    assert.deepEqual(writes, [[1, 2], [3, 4]]);
    assert.equal(q.pending, 0);
  });

  it('waits delayMs to batch, and drain writes at once', async () => {
    const writes: string[][] = [];
    const q = createWriteBehind<string>(async (batch) => void writes.push([...batch]), { delayMs: 60_000 });
    q.push('a');
    await new Promise((r) => setTimeout(r, 5));
    q.push('b');
    assert.deepEqual(writes, [], 'nothing written before the delay');
    await q.drain();
    assert.deepEqual(writes, [['a', 'b']]);
    await q.drain();
    assert.deepEqual(writes, [['a', 'b']], 'an empty drain writes nothing');
  });

  it('splits at maxBatch and reports a failed batch without losing the next one', async () => {
    const writes: number[][] = [];
    const errors: number[] = [];
    const q = createWriteBehind<number>(
      async (batch) => {
        if (batch.includes(0)) throw new Error('boom');
        writes.push([...batch]);
      },
      { maxBatch: 2, delayMs: 60_000, onError: (_err, lost) => errors.push(lost) },
    );
    for (const n of [0, 1, 2, 3, 4]) q.push(n);
    // The second pair reached maxBatch: written without waiting for the delay.
    await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(errors, [2]);
    assert.deepEqual(writes, [[2, 3], [4]]);
  });
});
