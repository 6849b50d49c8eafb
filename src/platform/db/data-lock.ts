import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

/**
 * The owner of an embedded data folder. PGlite is one connection in one process: a second process that
 * opens the same folder loses writes and can leave it unopenable (PGlite's own `postmaster.pid` stops
 * nobody), so whoever opens it first holds `<folder>/atrium.lock` and every other process reads it to find
 * the holder (and its URL, once a service listens) or refuses.
 */
export const LOCK_FILE = 'atrium.lock';

const holderSchema = z.object({
  pid: z.number().int(),
  host: z.string(),
  /** The service's base URL once it listens; null for a CLI command or a service still starting. */
  url: z.string().nullable(),
  command: z.string(),
  version: z.string(),
  started_at: z.string(),
});
export type LockHolder = z.infer<typeof holderSchema>;

/** The folder is held by another live process. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(describeHeld(dataDir, holder));
    this.name = 'DataDirLockedError';
  }
}

/** "in use by `atrium serve` (pid 12, since …) at http://…" */
export function describeHolder(h: LockHolder): string {
  return `\`atrium ${h.command}\` (pid ${h.pid} on ${h.host}, since ${h.started_at})${h.url ? ` at ${h.url}` : ''}`;
}

function describeHeld(dataDir: string, h: LockHolder): string {
  const what = h.command === 'serve' || h.command.startsWith('serve ')
    ? h.url
      ? `stop it first, or use it over HTTP (${h.url})`
      : 'it is still starting; stop it first'
    : 'wait for it to finish';
  return (
    `the data folder ${dataDir} is in use by ${describeHolder(h)}: embedded storage belongs to one process; ${what}. ` +
    `If that process is gone, delete ${path.join(dataDir, LOCK_FILE)}`
  );
}

export interface DataLock {
  readonly file: string;
  /** Records the URL other processes reach this one at (a service, once it listens). */
  setUrl(url: string): Promise<void>;
  /** Removes the lock file if it is still this process's; idempotent. */
  release(): Promise<void>;
}

/** Whether `pid` on this host is a live process (EPERM: alive, another user's). */
function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A lock is stale when its process is gone: its pid is not alive here, or it was taken on another host
 * (a container recreated over the same volume gets a new hostname and often the same pid, 1). A lock
 * this process wrote in a previous life (same host, same pid, not the one we hold) is stale too.
 */
export function isStale(h: LockHolder, held: ReadonlySet<string>, self = { pid: process.pid, host: os.hostname() }): boolean {
  if (h.host !== self.host || h.pid <= 0) return true;
  if (h.pid === self.pid) return !held.has(h.started_at);
  return !alive(h.pid);
}

/** Lock files this process holds (by `started_at`), so its own lock is never taken for a stale one. */
const heldHere = new Set<string>();

/** The lock file's holder, or null when there is none (or it is unreadable: a half-written file is treated as absent only if stale). */
export async function readLock(dataDir: string): Promise<LockHolder | null> {
  let text: string;
  try {
    text = await fs.readFile(path.join(dataDir, LOCK_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw err;
  }
  try {
    const parsed = holderSchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  } catch {
    // fall through: unreadable
  }
  // Written by `wx` + one write: an unparsable file is one whose writer died between the two.
  return { pid: 0, host: os.hostname(), url: null, command: 'unknown', version: 'unknown', started_at: 'unknown' };
}

/** The live holder of the folder's lock, or null when it is free or its holder is gone. */
export async function liveHolder(dataDir: string): Promise<LockHolder | null> {
  const h = await readLock(dataDir);
  return h && !isStale(h, heldHere) ? h : null;
}

async function writeAtomically(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, text, { mode: 0o644 });
  await fs.rename(tmp, file);
}

/**
 * Takes the folder's lock (creating the folder), or throws DataDirLockedError naming the live holder.
 * A stale lock is replaced; two processes replacing one at once are serialized by a second `wx` file.
 */
export async function acquireDataLock(dataDir: string, opts: { command: string; version: string; url?: string | null }): Promise<DataLock> {
  await fs.mkdir(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  const holder: LockHolder = {
    pid: process.pid,
    host: os.hostname(),
    url: opts.url ?? null,
    command: opts.command,
    version: opts.version,
    started_at: new Date().toISOString(),
  };
  for (let attempt = 0; ; attempt++) {
    try {
      const fh = await fs.open(file, 'wx', 0o644);
      try {
        await fh.writeFile(JSON.stringify(holder));
        await fh.sync();
      } finally {
        await fh.close();
      }
      // A process that found our file still empty (just created) took it for stale: it holds the folder now.
      const mine = await readLock(dataDir);
      if (mine && mine.pid === holder.pid && mine.started_at === holder.started_at) break;
      if (mine) throw new DataDirLockedError(dataDir, mine);
      if (attempt >= 3) throw new Error(`could not take the lock ${file}: another process keeps removing it`);
      continue;
    } catch (err) {
      if (err instanceof DataDirLockedError) throw err;
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const current = await readLock(dataDir);
    if (current && !isStale(current, heldHere)) throw new DataDirLockedError(dataDir, current);
    if (attempt >= 3) throw new Error(`could not take the lock ${file}: another process keeps replacing it`);
    await replaceStale(file, current);
  }
  heldHere.add(holder.started_at);
  let released = false;
  let url = holder.url;
  return {
    file,
    async setUrl(u: string) {
      url = u;
      await writeAtomically(file, JSON.stringify({ ...holder, url }));
    },
    async release() {
      if (released) return;
      released = true;
      heldHere.delete(holder.started_at);
      const now = await readLock(dataDir).catch(() => null);
      // Only our own lock: a restore may have replaced the folder, or an operator removed the file.
      if (now && now.pid === holder.pid && now.started_at === holder.started_at) await fs.rm(file, { force: true });
    },
  };
}

/** Removes a stale lock under a short-lived `wx` guard, so a process that took the lock meanwhile keeps it. */
async function replaceStale(file: string, seen: LockHolder | null): Promise<void> {
  const guard = `${file}.takeover`;
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(guard, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // A takeover guard older than a few seconds was left by a process that died mid-takeover.
    const st = await fs.stat(guard).catch(() => null);
    if (st && Date.now() - st.mtimeMs > 10_000) await fs.rm(guard, { force: true });
    await new Promise((r) => setTimeout(r, 50));
    return;
  }
  try {
    const again = await readLock(path.dirname(file));
    // Unchanged since we judged it stale: nobody took it in between.
    if (again && seen && again.pid === seen.pid && again.started_at === seen.started_at) await fs.rm(file, { force: true });
  } finally {
    await fh.close();
    await fs.rm(guard, { force: true });
  }
}
