import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createSecretBox, resolveSecretKey } from './secrets.ts';

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
