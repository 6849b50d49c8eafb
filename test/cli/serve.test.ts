import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openPglite } from '../../src/platform/db/index.ts';
import { runCli, spawnServer } from '../support/spawn.ts';

async function grepDir(dir: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  const walk = async (d: string) => {
    for (const e of await fs.readdir(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if ((await fs.readFile(p)).includes(needle)) hits.push(p);
    }
  };
  await walk(dir);
  return hits;
}

describe('atrium serve as a process (embedded storage)', () => {
  const ADMIN = 'atr_e2e_bootstrap_admin_key_abcdefghijklmnop';
  let dataDir: string;
  let logs = '';
  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-e2e-'));
  });
  after(async () => fs.rm(dataDir, { recursive: true, force: true }));

  it('keeps keys and scopes across a restart; plaintext keys are in neither the data dir nor the logs', async () => {
    const env = { ATRIUM_DATA_DIR: dataDir, ATRIUM_ADMIN_API_KEY: ADMIN, LOG_LEVEL: 'debug' };
    const first = await spawnServer(env);
    const h = (await fetch(`${first.url}/v1/health`).then((r) => r.json())) as { storage: string };
    assert.equal(h.storage, 'pglite');
    const created = await fetch(`${first.url}/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'reader', permissions: ['query', 'connector:read'] }),
    }).then((r) => r.json() as Promise<{ key: string }>);
    const key: string = created.key;
    assert.ok(key.startsWith('atr_'));
    const before = await fetch(`${first.url}/v1/connectors`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(before.status, 200);
    assert.equal(await first.stop(), 0, 'SIGTERM exits cleanly');
    logs += first.output();
    assert.match(first.output(), /stopped cleanly/);

    const second = await spawnServer({ ATRIUM_DATA_DIR: dataDir, LOG_LEVEL: 'debug' });
    try {
      const again = await fetch(`${second.url}/v1/connectors`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(again.status, 200);
      const denied = await fetch(`${second.url}/v1/api-keys`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(denied.status, 403, 'scopes survive the restart');
      const noBootstrap = await fetch(`${second.url}/v1/api-keys`, { headers: { authorization: `Bearer ${ADMIN}` } });
      assert.equal(noBootstrap.status, 401, 'started without ATRIUM_ADMIN_API_KEY, the bootstrap key is refused');
    } finally {
      await second.stop();
      logs += second.output();
    }
    assert.deepEqual(await grepDir(dataDir, key), []);
    assert.deepEqual(await grepDir(dataDir, ADMIN), []);
    assert.ok(!logs.includes(key), 'key not in logs');
    assert.ok(!logs.includes(ADMIN), 'bootstrap key not in logs');
  });

  it('manages keys from the CLI against the same data dir', async () => {
    const created = await runCli(['keys', 'create', '--name', 'cli-key', '--permissions', 'query,connector:read', '--json'], { ATRIUM_DATA_DIR: dataDir });
    assert.equal(created.code, 0, created.stderr);
    const k = JSON.parse(created.stdout);
    assert.deepEqual(k.permissions, ['query', 'connector:read']);
    const listed = await runCli(['keys', 'list', '--json'], { ATRIUM_DATA_DIR: dataDir });
    assert.ok(!listed.stdout.includes(k.key));
    assert.ok(JSON.parse(listed.stdout).some((x: { id: string }) => x.id === k.id));
    const bad = await runCli(['keys', 'create', '--name', 'x', '--permissions', 'root'], { ATRIUM_DATA_DIR: dataDir });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /unknown permission 'root'/);
    const revoked = await runCli(['keys', 'revoke', k.id], { ATRIUM_DATA_DIR: dataDir });
    assert.equal(revoked.code, 0, revoked.stderr);
    const missing = await runCli(['keys', 'revoke', 'key_nope'], { ATRIUM_DATA_DIR: dataDir });
    assert.equal(missing.code, 4);
  });

  it('gives a tenant a new federation origin id from the CLI (a copied database is then another instance)', async () => {
    const origin = async () => {
      const db = await openPglite(dataDir);
      try {
        return (await db.query<{ o: string }>("SELECT federation_origin AS o FROM tenants WHERE id = 'default'")).rows[0]?.o;
      } finally {
        await db.close();
      }
    };
    const before = await origin();
    assert.match(before ?? '', /^[0-9a-f-]{36}$/);
    const reset = await runCli(['tenants', 'reset-origin', 'default'], { ATRIUM_DATA_DIR: dataDir });
    assert.equal(reset.code, 0, reset.stderr);
    const after = await origin();
    assert.ok(after && after !== before, `${before} -> ${after}`);
    const unknown = await runCli(['tenants', 'reset-origin', 'nope'], { ATRIUM_DATA_DIR: dataDir });
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /no tenant 'nope'/);
  });
});
