import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LOCK_FILE, openPglite, readLock } from '../../src/platform/db/index.ts';
import { BIN, runCli, type Served, spawnServer } from '../support/spawn.ts';

const ADMIN = 'atr_storage_owner_admin_key_abcdefghijkl';
const auth = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };

/** Documents of one source, read by opening the (unheld) folder directly. */
async function externalIds(dataDir: string, source: string): Promise<Set<string>> {
  const db = await openPglite(dataDir, { command: 'test' });
  try {
    return new Set((await db.query<{ e: string }>('SELECT external_id AS e FROM documents WHERE source_node = $1', [source])).rows.map((r) => r.e));
  } finally {
    await db.close();
  }
}

const docs = (prefix: string, n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ external_id: `${prefix}${from + i}`, title: `${prefix} ${from + i}`, content: `quokka ${prefix} number ${from + i}` }));

describe('embedded storage has one owner (CLI and service as processes on one folder)', () => {
  let root: string;
  let dataDir: string;
  let env: Record<string, string>;
  let server: Served | undefined;
  before(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-owner-'));
    dataDir = path.join(root, 'data');
    // The CLI's running-services folder is not the service's, as for another user of the machine: no local key.
    env = { ATRIUM_DATA_DIR: dataDir, LOG_LEVEL: 'warn', XDG_STATE_HOME: path.join(root, 'cli-state') };
    await fs.mkdir(path.join(root, 'folder'));
    await fs.writeFile(path.join(root, 'folder', 'a.md'), '# A\n\nWombats dig burrows.');
    await fs.writeFile(path.join(root, 'kb.jsonl'), `${JSON.stringify({ id: 'k1', title: 'Printers', content: 'the numbat printer jams' })}\n`);
  });
  after(async () => {
    if (server?.child.exitCode === null) server.child.kill('SIGKILL');
    await fs.rm(root, { recursive: true, force: true });
  });

  it('every data-changing command refuses beside a running service, naming it; none opens the folder a second time', async () => {
    server = await spawnServer({ ...env, ATRIUM_ADMIN_API_KEY: ADMIN, XDG_STATE_HOME: path.join(root, 'service-state') });
    const holder = await readLock(dataDir);
    assert.equal(holder?.url, server.url, 'the lock names the service URL');
    assert.equal(holder?.command, 'serve');
    // An api source, so a refused ingest could not have created it.
    const src = (await fetch(`${server.url}/v1/connectors`, { method: 'POST', headers: auth, body: JSON.stringify({ connector_type: 'api', display_name: 'owned' }) }).then((r) => r.json())) as { connector_id: string };
    const refused: string[][] = [
      ['migrate'],
      ['tenants', 'create', 'acme'],
      ['tenants', 'reset-origin', 'default'],
      ['keys', 'create', '--name', 'x', '--permissions', 'admin'],
      ['keys', 'revoke', 'key_bootstrap'],
      ['ingest', path.join(root, 'folder'), '--no-embed'],
      ['ingest', path.join(root, 'kb.jsonl'), '--source', src.connector_id, '--no-embed'],
      ['backup', path.join(root, 'nokey.tar.gz')],
      ['restore', path.join(root, 'kb.jsonl')],
      ['serve'],
    ];
    for (const args of refused) {
      const r = await runCli(args, { ...env, ATRIUM_API_KEY: '', PORT: '0' });
      assert.equal(r.code, 3, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`in use by \`atrium serve\` \\(pid ${server.child.pid} .*\\) at ${server.url}`), args.join(' '));
      assert.match(r.stderr, /stop the service|stop it first|Pass an API key/i, args.join(' '));
    }
    const lock = await readLock(dataDir);
    assert.equal(lock?.pid, server.child.pid, 'the service still holds the folder');
    const keys = (await fetch(`${server.url}/v1/api-keys`, { headers: auth }).then((r) => r.json())) as { api_keys: { name: string; revoked_at: string | null }[] };
    assert.deepEqual(keys.api_keys.map((k) => [k.name, k.revoked_at]), [['bootstrap-admin', null]], 'no refused command wrote');
    assert.ok(!(await fs.stat(path.join(root, 'nokey.tar.gz')).catch(() => null)));
  });

  it('goes through the running service with a key: JSONL ingest, search, keys, backup', async () => {
    assert.ok(server);
    const withKey = { ...env, ATRIUM_API_KEY: ADMIN };
    const ingested = await runCli(['ingest', path.join(root, 'kb.jsonl'), '--json'], withKey);
    assert.equal(ingested.code, 0, ingested.stderr);
    assert.match(ingested.stderr, new RegExp(`sending this through ${server.url}`));
    const summary = JSON.parse(ingested.stdout) as { source: string; added: number };
    assert.equal(summary.added, 1);
    const again = JSON.parse((await runCli(['ingest', path.join(root, 'kb.jsonl'), '--json'], withKey)).stdout) as { source: string; unchanged: number };
    assert.deepEqual([again.source, again.unchanged], [summary.source, 1], 'a second run updates the same source');
    const found = await runCli(['search', 'numbat', '--mode', 'lexical', '--json'], withKey);
    assert.equal(found.code, 0, found.stderr);
    assert.deepEqual(JSON.parse(found.stdout).passages.map((p: { external_id: string }) => p.external_id), ['k1']);
    const created = await runCli(['keys', 'create', '--name', 'through', '--permissions', 'query', '--json'], withKey);
    assert.equal(created.code, 0, created.stderr);
    assert.match(JSON.parse(created.stdout).key, /^atr_/);
    const wrongTenant = await runCli(['keys', 'list', '--tenant', 'acme'], withKey);
    assert.notEqual(wrongTenant.code, 0);
    assert.match(wrongTenant.stderr, /belongs to tenant 'default'/);
    const badKey = await runCli(['search', 'x'], { ...env, ATRIUM_API_KEY: 'atr_not_a_key_at_all_0000000000' });
    assert.equal(badKey.code, 5);
    assert.match(badKey.stderr, /answered 401/);
    const backup = await runCli(['backup', path.join(root, 'online.tar.gz')], withKey);
    assert.equal(backup.code, 0, backup.stderr);
    assert.match(backup.stdout, new RegExp(`backup of ${dataDir} written to ${path.join(root, 'online.tar.gz')}`));
  });

  it('ingests a folder through the running service: changed files only on the next run, removed files deleted', async () => {
    assert.ok(server);
    const withKey = { ...env, ATRIUM_API_KEY: ADMIN };
    const folder = path.join(root, 'pushed-folder');
    await fs.mkdir(folder);
    await fs.writeFile(path.join(folder, 'a.md'), '# A\n\nWombats dig burrows.');
    const first = await runCli(['ingest', folder, '--json'], withKey);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, new RegExp(`sending this through ${server.url}`));
    const one = JSON.parse(first.stdout) as { source: string; added: number; deleted: number };
    assert.deepEqual([one.added, one.deleted], [1, 0]);
    const lexical = async (q: string) =>
      (JSON.parse((await runCli(['search', q, '--mode', 'lexical', '--json'], withKey)).stdout) as { passages: { external_id: string }[] }).passages.map((p) => p.external_id);
    assert.deepEqual(await lexical('wombats'), ['a.md']);
    await fs.writeFile(path.join(folder, 'b.md'), '# B\n\nEchidnas lay eggs.');
    await fs.rm(path.join(folder, 'a.md'));
    const second = await runCli(['ingest', folder, '--json'], withKey);
    assert.equal(second.code, 0, second.stderr);
    const two = JSON.parse(second.stdout) as { source: string; added: number; deleted: number; unchanged: number };
    assert.deepEqual([two.source, two.added, two.deleted], [one.source, 1, 1], 'the same source; b.md sent, a.md deleted');
    assert.deepEqual(await lexical('echidnas'), ['b.md']);
    assert.deepEqual(await lexical('wombats'), [], 'the removed file is gone from search');
    const third = JSON.parse((await runCli(['ingest', folder, '--json'], withKey)).stdout) as { added: number; updated: number; unchanged: number };
    assert.deepEqual([third.added, third.updated, third.unchanged], [0, 0, 1], 'nothing changed: nothing sent');
    const empty = path.join(root, 'empty-folder');
    await fs.mkdir(empty);
    const none = await runCli(['ingest', empty], withKey);
    assert.notEqual(none.code, 0);
    assert.match(none.stderr, /nothing to ingest/);
  });

  it('kill -9 of the service mid-write: the folder opens and every acknowledged push is there', async () => {
    assert.ok(server);
    const src = (await fetch(`${server.url}/v1/connectors`, { method: 'POST', headers: auth, body: JSON.stringify({ connector_type: 'api', display_name: 'killed' }) }).then((r) => r.json())) as { connector_id: string };
    const acked = new Set<string>();
    let sent = 0;
    const pushes: Promise<void>[] = [];
    // Two writers at once, so the kill lands while a batch is in flight.
    for (let w = 0; w < 2; w++) {
      pushes.push(
        (async () => {
          for (;;) {
            const batch = docs(`w${w}-`, 50, sent);
            sent += 50;
            const res = await fetch(`${server?.url}/v1/connectors/${src.connector_id}/documents`, { method: 'POST', headers: auth, body: JSON.stringify({ documents: batch }) }).catch(() => null);
            if (!res?.ok) return;
            for (const d of batch) acked.add(d.external_id);
          }
        })(),
      );
    }
    while (acked.size < 1000) await new Promise((r) => setTimeout(r, 20));
    server.child.kill('SIGKILL');
    await Promise.all(pushes);
    await server.stop();
    assert.ok((await readLock(dataDir))?.pid === server.child.pid, 'the dead service left its lock');
    // The next opener sees the lock is stale (its pid is gone) and opens the folder.
    const stored = await externalIds(dataDir, src.connector_id);
    const lost = [...acked].filter((id) => !stored.has(id));
    assert.deepEqual(lost, [], `${acked.size} acknowledged`);
  });

  it('kill -9 of the CLI mid-write: a service then starts on the folder and every acknowledged write is there', async () => {
    // Acknowledged: a finished ingest.
    const first = await runCli(['ingest', path.join(root, 'folder'), '--no-embed', '--json'], env);
    assert.equal(first.code, 0, first.stderr);
    const acknowledged = JSON.parse(first.stdout) as { source: string };
    const big = path.join(root, 'big.jsonl');
    await fs.writeFile(big, docs('big', 6000).map((d) => JSON.stringify(d)).join('\n'));
    const child = spawn(process.execPath, [BIN, 'ingest', big, '--source', 'api-big', '--no-embed'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    const exited = new Promise((r) => child.once('exit', r));
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    // Killed once it is storing (its progress line past the check).
    while (!/ingest: \d+\/6000/.test(err)) {
      if (child.exitCode !== null) assert.fail(`ingest ended before it was killed: ${err}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill('SIGKILL');
    await exited;
    assert.equal((await readLock(dataDir))?.pid, child.pid, 'the killed CLI left its lock');
    server = await spawnServer({ ...env, ATRIUM_ADMIN_API_KEY: ADMIN });
    const found = (await fetch(`${server.url}/v1/search`, { method: 'POST', headers: auth, body: JSON.stringify({ query: 'wombats burrows', mode: 'lexical', sources: [acknowledged.source] }) }).then((r) => r.json())) as { passages: { external_id: string }[] };
    assert.deepEqual(found.passages.map((p) => p.external_id), ['a.md']);
    assert.equal((await readLock(dataDir))?.pid, server.child.pid);
    assert.equal(await server.stop(), 0);
    assert.equal(await readLock(dataDir), null, 'a clean stop releases the lock');
  });

  it('restores a backup (refused while the service runs), keeping the replaced folder beside it', async () => {
    const before = await externalIds(dataDir, 'api-big');
    const restored = await runCli(['restore', path.join(root, 'online.tar.gz')], env);
    assert.equal(restored.code, 0, restored.stderr);
    const aside = /kept at (\S+)/.exec(restored.stdout)?.[1];
    assert.ok(aside, restored.stdout);
    assert.ok((await fs.stat(path.join(aside, 'PG_VERSION'))).isFile());
    assert.deepEqual(await externalIds(aside, 'api-big'), before, 'the replaced folder is intact');
    assert.equal((await externalIds(dataDir, 'api-big')).size, 0, 'the backup predates the big ingest');
    assert.equal((await fs.stat(path.join(dataDir, 'secret.key'))).mode & 0o777, 0o600);
    assert.equal(await readLock(dataDir), null);
    const search = await runCli(['search', 'numbat', '--mode', 'lexical', '--json'], env);
    assert.deepEqual(JSON.parse(search.stdout).passages.map((p: { external_id: string }) => p.external_id), ['k1'], 'what the backup held is back');
    const notABackup = await runCli(['restore', path.join(root, 'kb.jsonl')], env);
    assert.equal(notABackup.code, 2);
    assert.match(notABackup.stderr, /not a backup made by atrium backup/);
  });

  it('names the folder it uses, and refuses to read one that is not there instead of creating it', async () => {
    const elsewhere = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-cwd-'));
    try {
      const r = await runCli(['search', 'x'], { ATRIUM_DATA_DIR: '', LOG_LEVEL: 'warn' }, elsewhere);
      assert.equal(r.code, 4);
      assert.match(r.stderr, new RegExp(`no data folder at ${path.join(await fs.realpath(elsewhere), 'data')}|no data folder at ${path.join(elsewhere, 'data')}`));
      assert.ok(!(await fs.stat(path.join(elsewhere, 'data')).catch(() => null)), 'no empty folder created');
      const here = await runCli(['keys', 'list'], env);
      assert.match(here.stderr, new RegExp(`atrium: data folder ${dataDir}\\n`));
    } finally {
      await fs.rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('a damaged folder gets the cause and the backup to restore, not a bare Aborted(); a newer one is refused with the versions', async () => {
    const damaged = path.join(root, 'damaged');
    await fs.cp(dataDir, damaged, { recursive: true });
    await fs.rm(path.join(damaged, 'pg_wal'), { recursive: true });
    await fs.mkdir(path.join(damaged, 'pg_wal'));
    await fs.writeFile(path.join(damaged, 'atrium-backups.json'), JSON.stringify([{ file: path.join(root, 'online.tar.gz'), at: '2026-01-01T00:00:00Z', bytes: 1 }]));
    const r = await runCli(['serve'], { ATRIUM_DATA_DIR: damaged, PORT: '0', LOG_LEVEL: 'warn' });
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`the data folder ${damaged} cannot be opened: its write-ahead log \\(pg_wal\\) is missing`));
    assert.match(r.stderr, new RegExp(`atrium restore ${path.join(root, 'online.tar.gz')}`));
    assert.equal(await readLock(damaged), null, 'a failed open releases the lock');

    const db = await openPglite(dataDir, { command: 'test' });
    await db.query("INSERT INTO schema_migrations (name) VALUES ('999_from_the_future')");
    await db.close();
    const newer = await runCli(['serve'], { ...env, PORT: '0' });
    assert.equal(newer.code, 1);
    assert.match(newer.stderr, /written by a newer Atrium: it has migration 999_from_the_future .* this Atrium \d+\.\d+\.\d+ knows migrations up to \d{3}/);
    assert.equal(await readLock(dataDir), null);
    assert.ok(!(await fs.stat(path.join(dataDir, LOCK_FILE)).catch(() => null)));
  });
});
