import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { timeoutSignal } from './abort.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('timeoutSignal', () => {
  it('still fires inside AbortSignal.any after garbage collections (AbortSignal.timeout does not on Node 20)', async () => {
    const parent = new AbortController();
    const combined = AbortSignal.any([parent.signal, timeoutSignal(50)]);
    for (let i = 0; i < 5; i++) {
      gc();
      await sleep(5);
    }
    await sleep(120);
    assert.equal(combined.aborted, true);
    assert.equal((combined.reason as Error).name, 'TimeoutError');
    assert.equal(parent.signal.aborted, false, 'the other sources are untouched');
  });
});
