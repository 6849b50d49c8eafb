import { AtriumApiError, type AtriumClient, createAtriumClient, type SuccessData, unwrap } from '../../packages/client/src/index.ts';
import { type Config, loadConfig } from '../config/index.ts';
import { openDatabase } from '../main/runtime.ts';
import { type DatabaseExecutor, describeHolder, hasDatabase, liveHolder, migrate } from '../platform/db/index.ts';
import { createLogger, type Logger } from '../platform/log.ts';
import { runningServices } from '../platform/running.ts';
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
    const key = await keyFor(env, req.forward.apiKey, url);
    if (!key) throw new CliRefusal(`no API key for ${url}: pass --api-key (or ATRIUM_API_KEY), or run \`atrium login --url ${url}\` once`, 5);
    process.stderr.write(`atrium: sending this through ${url}\n`);
    return { config, service: { url, key } };
  }
  if (config.storage === 'postgres') return { config };
  const dir = config.dataDir;
  const holder = await liveHolder(dir);
  if (!holder && !env.ATRIUM_DATA_DIR && req.forward) {
    // No folder named and the default one is free: a service running on this machine from another folder.
    const found = await discoveredService(env);
    const key = found && (await keyFor(env, req.forward.apiKey, found.url));
    if (found && key) {
      process.stderr.write(`atrium: sending this through ${found.url}, the service running on this machine (data folder ${found.data_dir})\n`);
      // The service's folder, not ./data: what a command records about the folder (a backup) goes there.
      return { config: { ...config, dataDir: found.data_dir }, service: { url: found.url, key } };
    }
  }
  if (holder) {
    const key = req.forward && holder.url ? await keyFor(env, req.forward.apiKey, normalizeServiceUrl(holder.url)) : undefined;
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

/** The key for a service: the one given, else the one `atrium login` saved, else the local key of a service this user runs here. */
async function keyFor(env: NodeJS.ProcessEnv, given: string | undefined, url: string): Promise<string | undefined> {
  if (given) return given;
  const saved = await savedKey(env, url);
  if (saved) return saved;
  return (await runningServices(env)).find((s) => normalizeServiceUrl(s.url) === url)?.local_key;
}

/**
 * The one service running on this machine (src/platform/running.ts), or undefined when there is none. Several is a
 * refusal naming them: the CLI does not guess which one a command is for.
 */
export async function discoveredService(env: NodeJS.ProcessEnv): Promise<{ url: string; data_dir: string } | undefined> {
  const found = await runningServices(env);
  if (found.length > 1) {
    const list = found.map((s) => `${s.url} (data folder ${s.data_dir})`).join(', ');
    throw new CliRefusal(`${found.length} Atrium services are running on this machine: ${list}. Name one with --url (or ATRIUM_URL), or its folder with ATRIUM_DATA_DIR`, 2);
  }
  const one = found[0];
  return one ? { url: normalizeServiceUrl(one.url), data_dir: one.data_dir } : undefined;
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

/**
 * One typed call to the running service through the generated client (packages/client): answers the success body;
 * an error answer becomes a ServiceError with the service's own code and message.
 *
 *     const me = await callService(service, (atrium) => atrium.GET('/v1/me'));
 */
export async function callService<R extends { data?: unknown; error?: unknown; response: Response }>(service: Service, call: (atrium: AtriumClient) => Promise<R>): Promise<SuccessData<R>> {
  try {
    return await unwrap(call(createAtriumClient({ baseUrl: service.url, apiKey: service.key })));
  } catch (err) {
    if (!(err instanceof AtriumApiError)) throw err;
    if (err.status === 0) throw new Error(`the service at ${service.url} did not answer: ${err.message}. Is it still running?`);
    const where = err.url ? ` to ${new URL(err.url).pathname}` : '';
    throw new ServiceError(`the service at ${service.url} answered ${err.status}${where}: ${err.message} (${err.code})`, err.status);
  }
}
