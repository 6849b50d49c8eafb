import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveModelName } from './provider.ts';

describe('model names', () => {
  const ids = ['builtin/glove-100d', 'builtin/use-lite-512d', 'openai/glove-100d-like', 'a/dup', 'b/dup'];
  it('takes the id, or an unambiguous full id or short name in any case', () => {
    assert.equal(resolveModelName('builtin/glove-100d', ids), 'builtin/glove-100d');
    assert.equal(resolveModelName('GLOVE-100D', ids), 'builtin/glove-100d');
    assert.equal(resolveModelName('Builtin/Use-Lite-512d', ids), 'builtin/use-lite-512d');
  });
  it('gives null for an unknown or ambiguous name', () => {
    assert.equal(resolveModelName('glove', ids), null);
    assert.equal(resolveModelName('dup', ids), null);
  });
});
