import type { z } from 'zod';
import { type Config, loadConfig } from '../config/index.ts';
import { openDatabase } from '../main/runtime.ts';
import { type DatabaseExecutor, describeHolder, hasDatabase, liveHolder, migrate } from '../platform/db/index.ts';
import { createLogger, type Logger } from '../platform/log.ts';
import { normalizeServiceUrl, savedKey } from './login.ts';

/**
 * How a CLI command reaches storage. Embedded storage belongs to one process: when a live process
 * holds the data folder's lock, a command either goes through that service over HTTP (those with an
 * HTTP API, given a key) or refuses, naming the service. It never opens the folder a second time.
 */

/** A refusal the user can act on; `exitCode` 3 means "the data folder is held by another process". */
export class CliRefusal extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'CliRefusal';
  }
}

/** The running service refused a forwarded request (`status` is its HTTP status). */
export class ServiceError extends CliRefusal {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message, status === 401 || status === 403 ? 5 : status === 404 ? 4 : 1);
    this.name = 'ServiceError';
  }
}

export interface Service {
  readonly url: string;
  readonly key: string;
}

export interface StorageTarget {
  readonly config: Config;
  /** Set when the command goes through the running service instead of opening storage. */
  readonly service?: Service;
}

export interface StorageRequest {
  /** The command as the user typed it (`ingest`, `keys create`), named in the lock and in refusals. */
  readonly command: string;
  /** Set when the command can go through the service: the permission its key needs, and the key if given. */
  readonly forward?: { readonly permission: string; readonly apiKey: string | undefined };
  /** Why this command cannot go through the service (said in the refusal). */
  readonly whyNot?: string;
  /** Refuse when there is no database in the folder yet (reads), instead of creating one. */
  readonly mustExist?: boolean;
}

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Resolves where a command's data lives, once, and says so on stderr (the folder's absolute path). */
export async function storageFor(env: NodeJS.ProcessEnv, req: StorageRequest): Promise<StorageTarget> {
  const config = loadConfig(env);
  // A service named by --url / ATRIUM_URL: commands with an HTTP API go there; the others need the folder itself.
  if (env.ATRIUM_URL) {
    const url = normalizeServiceUrl(env.ATRIUM_URL);
    if (!req.forward) {
      throw new CliRefusal(
        `\`atrium ${req.command}\` works on the data folder itself, not through a service (--url / ATRIUM_URL ${url})${req.whyNot ? `: ${req.whyNot}` : ''}. Run it where the data folder is, without --url`,
        2,
      );
    }
    const key = req.forward.apiKey || (await savedKey(env, url));
    if (!key) throw new CliRefusal(`no API key for ${url}: pass --api-key (or ATRIUM_API_KEY), or run \`atrium login --url ${url}\` once`, 5);
    process.stderr.write(`atrium: sending this through ${url}\n`);
    return { config, service: { url, key } };
  }
  if (config.storage === 'postgres') return { config };
  const dir = config.dataDir;
  const holder = await liveHolder(dir);
  if (holder) {
    const key = req.forward?.apiKey || (req.forward && holder.url ? await savedKey(env, holder.url) : undefined);
    if (req.forward && holder.url && key) {
      process.stderr.write(`atrium: data folder ${dir} is held by the running service: sending this through ${holder.url}\n`);
      return { config, service: { url: holder.url, key } };
    }
    const isService = holder.command === 'serve';
    const how = !isService
      ? 'Wait for it to finish and run this again'
      : req.forward
        ? holder.url
          ? `Pass an API key with the '${req.forward.permission}' permission (ATRIUM_API_KEY or --api-key, or save one with \`atrium login\`) to send it through the service, or stop the service and run it again`
          : 'The service is still starting: run it again once it listens (with an API key), or stop the service'
        : `${req.whyNot ? `${capitalized(req.whyNot)}: ` : ''}stop the service and run it again`;
    throw new CliRefusal(`\`atrium ${req.command}\` did nothing: the data folder ${dir} is in use by ${describeHolder(holder)}. ${how}`, 3);
  }
  if (!(await hasDatabase(dir))) {
    if (req.mustExist) {
      throw new CliRefusal(
        `no data folder at ${dir} (ATRIUM_DATA_DIR, default ./data from the current directory ${process.cwd()}): ` +
          'run the command from the folder you start Atrium in, or set ATRIUM_DATA_DIR to its data folder',
        4,
      );
    }
    process.stderr.write(`atrium: no data folder at ${dir}: creating a new one (set ATRIUM_DATA_DIR to use another)\n`);
  } else {
    process.stderr.write(`atrium: data folder ${dir}\n`);
  }
  return { config };
}

export function cliLogger(env: NodeJS.ProcessEnv): Logger {
  return createLogger({ level: env.LOG_LEVEL ?? 'warn', destination: process.stderr as never });
}

/** Opens the resolved storage for one command (taking the folder's lock), migrates, runs `fn`, closes. */
export async function withStorage<T>(target: StorageTarget, env: NodeJS.ProcessEnv, command: string, fn: (ctx: { db: DatabaseExecutor; log: Logger; config: Config }) => Promise<T>): Promise<T> {
  const log = cliLogger(env);
  const db = await openDatabase(target.config, log, command);
  try {
    await migrate(db, log);
    return await fn({ db, log, config: target.config });
  } finally {
    await db.close();
  }
}

/** One request to the running service; its error answer becomes an Error with the service's message. */
export async function callService<S extends z.ZodType>(service: Service, schema: S, method: string, path: string, body?: unknown): Promise<z.infer<S>> {
  let res: Response;
  try {
    res = await fetch(`${service.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${service.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new Error(`the service at ${service.url} did not answer (${(err as Error).message}): is it still running?`);
  }
  const text = await res.text();
  if (!res.ok) {
    let message = text.slice(0, 500);
    try {
      const e = JSON.parse(text) as { error?: { code?: string; message?: string } };
      if (e.error?.message) message = `${e.error.message} (${e.error.code ?? res.status})`;
    } catch {
      // not the documented error shape: show the start of the body
    }
    throw new ServiceError(`the service at ${service.url} answered ${res.status} to ${method} ${path}: ${message}`, res.status);
  }
  const parsed = schema.safeParse(text ? JSON.parse(text) : undefined);
  if (!parsed.success) throw new Error(`the service at ${service.url} answered ${method} ${path} with an unexpected body: ${parsed.error.message}`);
  return parsed.data;
}
