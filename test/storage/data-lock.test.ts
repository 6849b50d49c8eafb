import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { acquireDataLock, DataDirLockedError, LOCK_FILE, liveHolder, type LockHolder, readLock } from '../../src/platform/db/index.ts';

/** The pid of a process that has exited (so nothing alive has it, barring reuse within the test). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  const pid = child.pid ?? 0;
  await new Promise((r) => child.once('exit', r));
  return pid;
}

const lockOf = (h: Partial<LockHolder>): string =>
  JSON.stringify({ pid: 1, host: os.hostname(), url: null, command: 'serve', version: '0.0.0', started_at: '2026-01-01T00:00:00.000Z', ...h });

describe('the data folder lock', () => {
  let root: string;
  let n = 0;
  const dir = () => path.join(root, `d${n++}`);
  before(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-lock-'));
  });
  after(() => fs.rm(root, { recursive: true, force: true }));

  it('is exclusive: a second acquire names the holder and its URL; release frees it', async () => {
    const d = dir();
    const lock = await acquireDataLock(d, { command: 'serve', version: '1.2.3' });
    await lock.setUrl('http://127.0.0.1:8123');
    const err = await acquireDataLock(d, { command: 'ingest', version: '1.2.3' }).then(
      () => assert.fail('second acquire succeeded'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof DataDirLockedError);
    assert.equal(err.holder.pid, process.pid);
    assert.match(err.message, /in use by `atrium serve` \(pid \d+ .*\) at http:\/\/127\.0\.0\.1:8123/);
    assert.match(err.message, new RegExp(`delete ${path.join(d, LOCK_FILE).replace(/[/\\.]/g, '\\$&')}`));
    assert.equal((await liveHolder(d))?.url, 'http://127.0.0.1:8123');
    await lock.release();
    assert.equal(await readLock(d), null);
    const again = await acquireDataLock(d, { command: 'ingest', version: '1.2.3' });
    await again.release();
  });

  it('takes over a lock whose process is gone (kill -9), or that another host wrote, or that is half-written', async () => {
    for (const content of [lockOf({ pid: await deadPid() }), lockOf({ pid: process.ppid, host: 'another-container' }), '']) {
      const d = dir();
      await fs.mkdir(d);
      await fs.writeFile(path.join(d, LOCK_FILE), content);
      assert.equal(await liveHolder(d), null, content);
      const lock = await acquireDataLock(d, { command: 'serve', version: '1' });
      assert.equal((await readLock(d))?.pid, process.pid);
      await lock.release();
    }
  });

  it('refuses a lock held by a live process on this host', async () => {
    const d = dir();
    await fs.mkdir(d);
    // The test runner's parent is alive for the whole test.
    await fs.writeFile(path.join(d, LOCK_FILE), lockOf({ pid: process.ppid, url: 'http://127.0.0.1:9' }));
    await assert.rejects(acquireDataLock(d, { command: 'ingest', version: '1' }), (e: unknown) => e instanceof DataDirLockedError && e.holder.pid === process.ppid);
    assert.equal((await readLock(d))?.pid, process.ppid, 'the holder keeps its lock');
  });

  it('releases only its own lock', async () => {
    const d = dir();
    const lock = await acquireDataLock(d, { command: 'restore', version: '1' });
    // e.g. a restore swapped the folder: the file now there is another process's.
    await fs.writeFile(path.join(d, LOCK_FILE), lockOf({ pid: process.ppid }));
    await lock.release();
    assert.equal((await readLock(d))?.pid, process.ppid);
  });
});
