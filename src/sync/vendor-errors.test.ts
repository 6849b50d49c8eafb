import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maskSecrets, secretStrings } from './vendor-errors.ts';

describe('credential masking', () => {
  it('collects every string of 8+ characters, nested values included', () => {
    const secrets = secretStrings({ access_token: 'ghp_abcdefgh', refresh_token: 'short', nested: { list: ['xoxb-12345678', 42, null] } });
    assert.deepEqual([...secrets].sort(), ['ghp_abcdefgh', 'xoxb-12345678']);
  });

  it('masks every occurrence, longest secret first, and URL-encoded forms', () => {
    const secrets = ['abcdefgh', 'abcdefgh-and-more', 'p@ss word!'];
    assert.equal(maskSecrets('token abcdefgh-and-more then abcdefgh and abcdefgh', secrets), 'token *** then *** and ***');
    assert.equal(maskSecrets('https://x/?key=p%40ss%20word!', secrets), 'https://x/?key=***');
    assert.equal(maskSecrets('nothing to hide', secrets), 'nothing to hide');
    assert.equal(maskSecrets('nothing to hide', []), 'nothing to hide');
  });
});
