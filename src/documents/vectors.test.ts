import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseVector, vectorLiteral } from './vectors.ts';

describe('parseVector', () => {
  const v = Float32Array.from([0.25, -1.5, 3e-8, 0]);
  it('reads pgvector text, real[] text, number arrays and already parsed vectors alike', () => {
    for (const raw of [vectorLiteral(v, true), vectorLiteral(v, false), [...v], '0.25,-1.5,3e-8,0']) assert.deepEqual(parseVector(raw), v, String(raw));
    assert.equal(parseVector(v), v, 'a Float32Array is returned as it is');
  });
  it('reads empty vectors, NaN and Infinity (not JSON) and nothing', () => {
    assert.deepEqual(parseVector('[]'), new Float32Array(0));
    assert.deepEqual(parseVector('{}'), new Float32Array(0));
    assert.deepEqual(parseVector('{NaN,Infinity,-Infinity,1}'), Float32Array.from([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1]));
    assert.equal(parseVector(null), null);
    assert.equal(parseVector(undefined), null);
    assert.equal(parseVector(42), null);
  });
});
