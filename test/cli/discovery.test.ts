import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, type Served, spawnServer } from '../support/spawn.ts';

/**
 * The CLI finds the service running on this machine by itself: no --url, no ATRIUM_DATA_DIR, no key, from a folder
 * that is not the service's, it goes over HTTP with the service's local key (src/platform/running.ts).
 */
describe('atrium finds the local running service', () => {
  let dir: string;
  let served: Served | undefined;
  let env: Record<string, string>;
  let elsewhere: string;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-discovery-'));
    elsewhere = path.join(dir, 'elsewhere');
    await fs.mkdir(elsewhere);
    await fs.writeFile(path.join(dir, 'kb.jsonl'), `${JSON.stringify({ id: 'q1', title: 'Quokkas', content: 'the quokka smiles at visitors' })}\n`);
    // One user's state and config folders; ATRIUM_DATA_DIR unset for the CLI (the default folder, ./data, is empty).
    env = { HOME: path.join(dir, 'home'), XDG_CONFIG_HOME: '', XDG_STATE_HOME: path.join(dir, 'state'), ATRIUM_API_KEY: '', ATRIUM_URL: '', LOG_LEVEL: 'silent' };
  });
  after(async () => {
    if (served?.child.exitCode === null) served.child.kill('SIGKILL');
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('refuses to guess between several running services and forgets records of dead ones', async () => {
    const running = path.join(dir, 'state', 'atrium', 'running');
    await fs.mkdir(running, { recursive: true });
    const record = (pid: number, port: number) => ({ pid, host: os.hostname(), url: `http://127.0.0.1:${port}`, data_dir: `/srv/${port}`, version: 'x', started_at: new Date().toISOString(), local_key: 'atr_local_x' });
    // Two live processes (this test and its parent) recorded as services, and one that is gone.
    await fs.writeFile(path.join(running, `${process.pid}.json`), JSON.stringify(record(process.pid, 1)));
    await fs.writeFile(path.join(running, `${process.ppid}.json`), JSON.stringify(record(process.ppid, 2)));
    await fs.writeFile(path.join(running, '99999999.json'), JSON.stringify(record(99_999_999, 3)));
    const r = await runCli(['search', 'x'], env, elsewhere);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /2 Atrium services are running on this machine: .*Name one with --url/);
    assert.match(r.stderr, /http:\/\/127\.0\.0\.1:1 \(data folder \/srv\/1\)/);
    assert.match(r.stderr, /http:\/\/127\.0\.0\.1:2 \(data folder \/srv\/2\)/);
    assert.deepEqual((await fs.readdir(running)).sort(), [`${process.pid}.json`, `${process.ppid}.json`].sort(), 'the dead record was removed');
    await fs.rm(running, { recursive: true });
  });

  it('search and ingest with no flags go to the running service; after it stops, nothing is found and nothing is opened', async () => {
    // A loaded machine can take over a minute to start a service (the first compile of every module).
    served = await spawnServer({ ATRIUM_DATA_DIR: path.join(dir, 'data'), XDG_STATE_HOME: path.join(dir, 'state') }, 180_000);
    const running = path.join(dir, 'state', 'atrium', 'running');
    // The record is written once the service listens, just after /v1/health starts answering.
    let names: string[] = [];
    for (let i = 0; i < 300 && names.length === 0; i++) {
      // The record is written to a temporary name and renamed: only the renamed `<pid>.json` counts.
      names = (await fs.readdir(running).catch(() => [] as string[])).filter((n) => n.endsWith('.json'));
      if (names.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    const [name] = names;
    assert.equal(name, `${served.child.pid}.json`);
    const file = path.join(running, name ?? '');
    assert.equal((await fs.stat(file)).mode & 0o777, 0o600, 'the record holds a key: owner only');
    assert.equal((await fs.stat(running)).mode & 0o777, 0o700);
    const rec = JSON.parse(await fs.readFile(file, 'utf8')) as { url: string; data_dir: string; local_key: string };
    assert.equal(rec.url, served.url);
    assert.equal(rec.data_dir, path.join(dir, 'data'));
    assert.match(rec.local_key, /^atr_local_/);

    const ingest = await runCli(['ingest', path.join(dir, 'kb.jsonl'), '--json'], env, elsewhere);
    assert.equal(ingest.code, 0, ingest.stderr);
    assert.match(ingest.stderr, new RegExp(`sending this through ${served.url}, the service running on this machine \\(data folder ${path.join(dir, 'data')}\\)`));
    const search = await runCli(['search', 'quokka', '--mode', 'lexical', '--json'], env, elsewhere);
    assert.equal(search.code, 0, search.stderr);
    assert.deepEqual(JSON.parse(search.stdout).passages.map((p: { external_id: string }) => p.external_id), ['q1']);
    // Only this process accepts its local key, and only as a bearer of it: a wrong one is a 401.
    const wrong = await fetch(`${served.url}/v1/me`, { headers: { authorization: `Bearer ${rec.local_key}x` } });
    assert.equal(wrong.status, 401);
    const me = (await fetch(`${served.url}/v1/me`, { headers: { authorization: `Bearer ${rec.local_key}` } }).then((r) => r.json())) as { user_id: string; tenant_id: string };
    assert.deepEqual([me.user_id, me.tenant_id], ['local-cli', 'default']);
    await assert.rejects(fs.stat(path.join(elsewhere, 'data')), 'no data folder was opened or created where the CLI ran');

    assert.equal(await served.stop(), 0);
    assert.deepEqual(await fs.readdir(running), [], 'a stopped service removes its record');
    const after = await runCli(['search', 'quokka'], env, elsewhere);
    assert.equal(after.code, 4, after.stderr);
    assert.match(after.stderr, /no data folder at/);
    await assert.rejects(fs.stat(path.join(elsewhere, 'data')));
  });
});
