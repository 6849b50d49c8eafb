import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

/**
 * `atrium login`: a service URL and an API key kept for the CLI in the user's config folder
 * (`$XDG_CONFIG_HOME/atrium/credentials.json`, default `~/.config/atrium/`), the folder 0700 and the file 0600, so
 * commands reach a service without `--url` / `--api-key` on every line. One saved login per service URL.
 */
const savedSchema = z.object({ logins: z.array(z.object({ url: z.string(), key: z.string(), saved_at: z.string() })) });
export type SavedLogins = z.infer<typeof savedSchema>;

export function credentialsFile(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'atrium', 'credentials.json');
}

/** A service URL as the CLI compares and stores it: no trailing slash, no path, query or credentials. */
export function normalizeServiceUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`'${raw}' is not a URL (e.g. http://127.0.0.1:8080)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`'${raw}': only http and https services`);
  if (u.username || u.password || u.search || u.hash) throw new Error(`'${raw}': a service URL carries no credentials, query or fragment`);
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
}

export async function readLogins(env: NodeJS.ProcessEnv): Promise<SavedLogins> {
  const text = await fs.readFile(credentialsFile(env), 'utf8').catch(() => null);
  if (text === null) return { logins: [] };
  const parsed = savedSchema.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : { logins: [] };
}

/** The saved key for `url`, if `atrium login` stored one. */
export async function savedKey(env: NodeJS.ProcessEnv, url: string): Promise<string | undefined> {
  const target = normalizeServiceUrl(url);
  return (await readLogins(env)).logins.find((l) => l.url === target)?.key;
}

async function writeLogins(env: NodeJS.ProcessEnv, saved: SavedLogins): Promise<string> {
  const file = credentialsFile(env);
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await fs.chmod(path.dirname(file), 0o700);
  // Written whole to a new file, then renamed: a crash leaves the old file or the new one, never half of one.
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  await fs.rename(tmp, file);
  return file;
}

export async function saveLogin(env: NodeJS.ProcessEnv, url: string, key: string, now: Date): Promise<string> {
  const target = normalizeServiceUrl(url);
  const saved = await readLogins(env);
  return writeLogins(env, { logins: [...saved.logins.filter((l) => l.url !== target), { url: target, key, saved_at: now.toISOString() }] });
}

/** Forgets the login for `url` (or every login); answers how many were removed. */
export async function removeLogin(env: NodeJS.ProcessEnv, url: string | undefined): Promise<number> {
  const saved = await readLogins(env);
  const target = url === undefined ? undefined : normalizeServiceUrl(url);
  const kept = saved.logins.filter((l) => target !== undefined && l.url !== target);
  if (kept.length === saved.logins.length) return 0;
  await writeLogins(env, { logins: kept });
  return saved.logins.length - kept.length;
}
