// Foundation benchmarks: cold start to healthy on an existing embedded data dir, and authenticated
// request throughput on a trivial endpoint (autocannon, loopback).
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../test/support/spawn.ts';
import { machineLine, writeBenchSection } from './report.ts';

const BIN = path.resolve(import.meta.dirname, '../bin/atrium');
const ADMIN = 'atr_bench_admin_key_0123456789abcdef';

async function startOnce(dataDir: string): Promise<{ ms: number; url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, ATRIUM_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', ATRIUM_ADMIN_API_KEY: ADMIN, ATRIUM_RATE_LIMIT_PER_MINUTE: '100000000', ATRIUM_RATE_LIMIT_BURST: '100000000' },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    try {
      if ((await fetch(`${url}/v1/health`)).ok) break;
    } catch {
      // starting
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const ms = performance.now() - t0;
  return {
    ms,
    url,
    stop: () => new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); }),
  };
}

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-bench-'));
const first = await startOnce(dataDir);
await first.stop();
const starts: number[] = [];
for (let i = 0; i < 5; i++) {
  const s = await startOnce(dataDir);
  starts.push(s.ms);
  await s.stop();
}
starts.sort((a, b) => a - b);

const srv = await startOnce(dataDir);
const run = (url: string, auth: boolean) =>
  autocannon({ url, connections: 10, duration: 10, headers: auth ? { authorization: `Bearer ${ADMIN}` } : {} });
const health = await run(`${srv.url}/v1/health`, false);
const authed = await run(`${srv.url}/v1/connectors`, true);
await srv.stop();
await fs.rm(dataDir, { recursive: true, force: true });

const row = (name: string, r: autocannon.Result) =>
  `| ${name} | ${Math.round(r.requests.average)} | ${r.latency.p50} | ${r.latency.p99} | ${r.non2xx} |`;
const md = `## Foundation: start-up and request throughput

${machineLine()}
Command: \`npm run bench -- foundation\`.

Cold start to a healthy \`/v1/health\` with an existing embedded data dir (process spawn → first 200), 5 runs:
first-ever start (creates the data dir) ${Math.round(first.ms)} ms; existing data dir median ${Math.round(starts[2]!)} ms, min ${Math.round(starts[0]!)} ms, max ${Math.round(starts[4]!)} ms (target ≤ 3,000 ms).

autocannon, 10 connections, 10 s, loopback, embedded storage:

| endpoint | req/s | p50 ms | p99 ms | non-2xx |
|---|---|---|---|---|
${row('GET /v1/health (public, one SQL round-trip)', health)}
${row('GET /v1/connectors (API key lookup + permission + one query)', authed)}
`;
await writeBenchSection('foundation', md);
console.log(md);
