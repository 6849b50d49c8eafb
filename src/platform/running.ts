import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

/**
 * Running services on this machine, so the CLI finds one from any folder: `atrium serve` on embedded storage writes
 * `<state>/atrium/running/<pid>.json` (`$XDG_STATE_HOME`, default `~/.local/state`; the folder 0700, the file 0600)
 * with its URL, data folder and a per-run local key, and removes it when it stops. The local key is accepted only by
 * that process while it runs, as an admin of tenant `default`: whoever can read the file is the user who runs the
 * service, who can read the data folder itself anyway. Records of processes that are gone are ignored and removed.
 */
const recordSchema = z.object({
  pid: z.number().int(),
  host: z.string(),
  url: z.string(),
  data_dir: z.string(),
  version: z.string(),
  started_at: z.string(),
  local_key: z.string().optional(),
});
export type RunningService = z.infer<typeof recordSchema>;

export function runningDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_STATE_HOME || path.join(env.HOME || os.homedir(), '.local', 'state');
  return path.join(base, 'atrium', 'running');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Records this process as a running service; answers the function that removes the record (idempotent). */
export async function announceRunning(env: NodeJS.ProcessEnv, record: Omit<RunningService, 'pid' | 'host'>): Promise<() => Promise<void>> {
  const dir = runningDir(env);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  await fs.chmod(dir, 0o700);
  const file = path.join(dir, `${process.pid}.json`);
  const tmp = `${file}.tmp`;
  await fs.writeFile(tmp, JSON.stringify({ ...record, pid: process.pid, host: os.hostname() }), { mode: 0o600 });
  await fs.rename(tmp, file);
  let removed = false;
  return async () => {
    if (removed) return;
    removed = true;
    await fs.rm(file, { force: true });
  };
}

/** The live services recorded on this host, newest first (stale records are removed on the way). */
export async function runningServices(env: NodeJS.ProcessEnv): Promise<RunningService[]> {
  const dir = runningDir(env);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const out: RunningService[] = [];
  for (const name of names.filter((n) => /^\d+\.json$/.test(n))) {
    const file = path.join(dir, name);
    const parsed = recordSchema.safeParse(await fs.readFile(file, 'utf8').then((t) => JSON.parse(t) as unknown, () => null));
    if (!parsed.success) continue;
    const r = parsed.data;
    if (r.host !== os.hostname()) continue;
    if (!alive(r.pid)) {
      await fs.rm(file, { force: true }).catch(() => undefined);
      continue;
    }
    out.push(r);
  }
  return out.sort((a, b) => b.started_at.localeCompare(a.started_at));
}
