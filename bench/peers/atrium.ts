// Atrium as a peer: `atrium serve` as its own process (embedded PGlite in a temp data folder, or
// production mode against PostgreSQL), documents pushed through the HTTP push API in batches of 1,000,
// searched through POST /v1/search. Server CPU and peak RSS are read from /proc of the server process.
import { type ChildProcess, spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { freePort } from '../../test/support/spawn.ts';
import type { PeerDoc } from './corpus.ts';
import { cpuSeconds, type Mode } from './measure.ts';

export const ADMIN_KEY = 'atr_bench_peers_admin_key_abcdefghijklmnopqrstu';
const BIN = new URL('../../bin/atrium', import.meta.url).pathname;

export interface Server {
  readonly url: string;
  readonly pid: number;
  /** ms from spawn to the first 200 of /v1/health. */
  readonly healthMs: number;
  readonly spawnedAt: number;
  stop(): Promise<void>;
  output(): string;
}

export async function startServer(env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const spawnedAt = performance.now();
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve'], {
    // The per-key rate limit (600/min) would answer 429 to the benchmark's own load.
    env: { ...process.env, LOG_LEVEL: 'warn', ATRIUM_ADMIN_API_KEY: ADMIN_KEY, ATRIUM_RATE_LIMIT_PER_MINUTE: '10000000', ATRIUM_RATE_LIMIT_BURST: '100000', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => { out = (out + d.toString()).slice(-20_000); });
  child.stderr?.on('data', (d: Buffer) => { out = (out + d.toString()).slice(-20_000); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${out}`);
    const ok = await fetch(`${url}/v1/health`).then((r) => r.ok, () => false);
    if (ok) break;
    if (performance.now() - spawnedAt > 600_000) throw new Error(`server not healthy:\n${out}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url,
    pid: child.pid ?? 0,
    healthMs: performance.now() - spawnedAt,
    spawnedAt,
    output: () => out,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function call<T>(url: string, method: string, p: string, body?: unknown): Promise<T> {
  const res = await fetch(`${url}${p}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

export async function createConnector(url: string): Promise<string> {
  const r = await call<{ connector_id: string }>(url, 'POST', '/v1/connectors', { connector_type: 'api', display_name: 'peers bench' });
  return r.connector_id;
}

export async function push(url: string, connector: string, docs: readonly PeerDoc[]): Promise<void> {
  const r = await call<{ added: number; embed_job_id?: string | null }>(url, 'POST', `/v1/connectors/${connector}/documents`, {
    documents: docs.map((d) => ({ external_id: d.id, title: d.title, content: d.content })),
  });
  if (r.embed_job_id) throw new Error('expected GloVe vectors to be written with the chunks (no embed job)');
}

export async function search(url: string, mode: Mode, query: string, k = 10): Promise<string[]> {
  const r = await call<{ passages: { external_id?: string; document_id?: string }[] }>(url, 'POST', '/v1/search', { query, mode, limit: k });
  return r.passages.map((p) => String(p.external_id ?? p.document_id));
}

/** Sum of CPU seconds of the PostgreSQL backends serving `database` now (production mode). */
export async function backendCpu(adminUrl: string, database: string): Promise<number> {
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const r = await c.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
    let s = 0;
    for (const { pid } of r.rows) {
      try {
        s += cpuSeconds(pid);
      } catch {
        // gone meanwhile
      }
    }
    return s;
  } finally {
    await c.end();
  }
}
