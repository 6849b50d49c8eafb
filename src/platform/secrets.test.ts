import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createSecretBox, maskSecrets, resolveSecretKey, secretStrings } from './secrets.ts';

describe('secret box', () => {
  it('round-trips, uses a fresh IV each time and never contains the plaintext', () => {
    const box = createSecretBox('k1');
    const a = box.seal('xoxb-very-secret-token');
    const b = box.seal('xoxb-very-secret-token');
    assert.notEqual(a, b);
    assert.ok(!a.includes('very-secret'));
    assert.equal(box.open(a), 'xoxb-very-secret-token');
  });

  it('refuses a tampered ciphertext or the wrong key', () => {
    const box = createSecretBox('k1');
    const sealed = box.seal('hello');
    const parts = sealed.split(':');
    const data = Buffer.from(parts[3]!, 'base64');
    data[0] = (data[0] ?? 0) ^ 1;
    parts[3] = data.toString('base64');
    assert.throws(() => box.open(parts.join(':')));
    assert.throws(() => createSecretBox('k2').open(sealed));
  });
});

describe('resolveSecretKey', () => {
  it('prefers the configured key, else creates one file with mode 0600 and reuses it', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-secret-'));
    assert.equal(await resolveSecretKey('given', dir), 'given');
    const k1 = await resolveSecretKey(undefined, dir);
    const k2 = await resolveSecretKey(undefined, dir);
    assert.equal(k1, k2);
    assert.ok(k1.length >= 40);
    const st = await fs.stat(path.join(dir, 'secret.key'));
    assert.equal(st.mode & 0o777, 0o600);
    await fs.rm(dir, { recursive: true });
  });
});

describe('credential masking', () => {
  it('collects every non-empty credential string whatever its length, nested values included, but not OAuth scopes', () => {
    const secrets = secretStrings({ access_token: 'ghp_abcdefgh', refresh_token: 'short', empty: '', scope: 'repo read:org', nested: { list: ['xoxb-12345678', 42, null] } });
    assert.deepEqual([...secrets].sort(), ['ghp_abcdefgh', 'short', 'xoxb-12345678']);
  });

  it('masks a credential shorter than 8 characters where it stands alone, not inside longer words', () => {
    const secrets = ['q7Zk2x', 'ab'];
    assert.equal(maskSecrets("Bad credentials: the header was 'token q7Zk2x' (q7Zk2x)", secrets), "Bad credentials: the header was 'token ***' (***)");
    assert.equal(maskSecrets('{"token":"q7Zk2x","about":"table, abstain, q7Zk2xy"}', secrets), '{"token":"***","about":"table, abstain, q7Zk2xy"}');
    assert.equal(maskSecrets('key=ab&x=1 cab', secrets), 'key=***&x=1 cab');
  });

  it('masks every occurrence, longest secret first, and URL-encoded forms', () => {
    const secrets = ['abcdefgh', 'abcdefgh-and-more', 'p@ss word!'];
    assert.equal(maskSecrets('token abcdefgh-and-more then abcdefgh and abcdefgh', secrets), 'token *** then *** and ***');
    assert.equal(maskSecrets('https://x/?key=p%40ss%20word!', secrets), 'https://x/?key=***');
    assert.equal(maskSecrets('nothing to hide', secrets), 'nothing to hide');
    assert.equal(maskSecrets('nothing to hide', []), 'nothing to hide');
  });
});
