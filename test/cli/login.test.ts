import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, type Served, spawnServer } from '../support/spawn.ts';

/** The CLI against a running service by URL, with a key saved by `atrium login`, from a folder with no data. */
describe('atrium --url / ATRIUM_URL and atrium login', () => {
  const ADMIN = 'atr_cli_login_admin_key_0123456789abcdef';
  let dir: string;
  let served: Served;
  let env: Record<string, string>;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-cli-login-'));
    served = await spawnServer({ ATRIUM_DATA_DIR: path.join(dir, 'data'), ATRIUM_ADMIN_API_KEY: ADMIN });
    // Another folder, another HOME: nothing local to find, and a config folder of its own.
    await fs.mkdir(path.join(dir, 'elsewhere'));
    env = { HOME: path.join(dir, 'home'), XDG_CONFIG_HOME: '', ATRIUM_DATA_DIR: path.join(dir, 'elsewhere', 'data'), ATRIUM_API_KEY: '', LOG_LEVEL: 'silent' };
  });
  after(async () => {
    await served.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('refuses a wrong key, saves a right one 0600, then commands reach the service with neither key nor data folder', async () => {
    const wrong = await runCli(['login', '--url', served.url, '--api-key', 'atr_wrong_key_000000000000'], env);
    assert.equal(wrong.code, 5, wrong.stderr);
    assert.match(wrong.stderr, /401/);
    const ok = await runCli(['login', '--url', served.url, '--api-key', ADMIN], env);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /logged in to http:\/\/127\.0\.0\.1:\d+ as bootstrap-admin \(tenant default; .*admin/);
    const file = path.join(dir, 'home', '.config', 'atrium', 'credentials.json');
    assert.equal((await fs.stat(file)).mode & 0o777, 0o600);
    assert.equal((await fs.stat(path.dirname(file))).mode & 0o777, 0o700);

    const keys = await runCli(['keys', 'list', '--url', served.url], env);
    assert.equal(keys.code, 0, keys.stderr);
    assert.match(keys.stderr, /sending this through http:\/\/127\.0\.0\.1/);
    assert.match(keys.stdout, /bootstrap-admin/);
    // ATRIUM_URL works like --url; a command that needs the folder itself refuses instead of opening a local one.
    const search = await runCli(['search', 'anything', '--json'], { ...env, ATRIUM_URL: served.url });
    assert.equal(search.code, 0, search.stderr);
    const migrate = await runCli(['migrate', '--url', served.url], env);
    assert.equal(migrate.code, 2);
    assert.match(migrate.stderr, /works on the data folder itself, not through a service/);
    await assert.rejects(fs.stat(path.join(dir, 'elsewhere', 'data')), 'no local data folder was created');

    const out = await runCli(['logout', '--url', served.url], env);
    assert.match(out.stdout, /forgot 1 saved login/);
    const after = await runCli(['keys', 'list', '--url', served.url], env);
    assert.equal(after.code, 5);
    assert.match(after.stderr, /no API key for http:\/\/127\.0\.0\.1:\d+: .*atrium login/);
  });
});
