import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth.ts';

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('jsonDepthExceeds', () => {
  it('counts nested objects and arrays against the limit', () => {
    assert.equal(jsonDepthExceeds(nested(MAX_JSON_DEPTH)), false);
    assert.equal(jsonDepthExceeds(nested(MAX_JSON_DEPTH + 1)), true);
    assert.equal(jsonDepthExceeds('{"a":{"b":[1,{"c":2}]}}', 3), true);
    assert.equal(jsonDepthExceeds('{"a":{"b":[1,{"c":2}]}}', 4), false);
    assert.equal(jsonDepthExceeds('[[],[],[],[]]', 2), false, 'siblings do not add up');
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    assert.equal(jsonDepthExceeds(JSON.stringify({ a: '[[[[{{{{', b: 'say \\"[[[[' }), 1), false);
    assert.equal(jsonDepthExceeds(JSON.stringify(['\\', [[]]]), 2), true);
  });

  it('scans 100,000 levels without recursion', () => {
    assert.equal(jsonDepthExceeds(nested(100_000)), true);
  });
});
