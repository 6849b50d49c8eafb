// `npm run bench -- coldstart [--docs N] [--runs R] [--baseline /other/checkout/bin/atrium]`: how long a fresh
// `atrium serve` takes, on an existing embedded data folder of N documents (default 100,000; the shared corpus of
// scripts/bench-corpus.ts, built once and cached), to answer /v1/health and then its first hybrid search
// (issue 29: both within 3 s). Wall time from spawn, and the server's CPU seconds (all its threads, from /proc)
// at each point; the stages the server logs ('atrium started': open storage, migrations, compose, listen) and
// its model load. Variants run interleaved, R times each: the compiled build (dist/atrium.js, rebuilt first),
// the TypeScript sources through tsx (ATRIUM_FROM_SOURCE=1), and optionally another checkout's bin/atrium.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchCorpusDir, openBenchCorpus } from '../scripts/bench-corpus.ts';
// @ts-expect-error: a plain ES module of the build tooling
import { buildServer } from '../scripts/build-server.mjs';
import { freePort } from '../test/support/spawn.ts';
import { cpuSeconds, loadNow } from './peers/measure.ts';
import { machineLine, writeBenchSection } from './report.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const DOCS = Number(arg('docs') ?? 100_000);
const RUNS = Number(arg('runs') ?? 5);
const BASELINE = arg('baseline');
const BIN = path.resolve(import.meta.dirname, '../bin/atrium');
const KEY = 'atr_bench_coldstart_admin_key_abcdefghijklmnop';
// Words of the corpus vocabulary (GloVe's, Zipf-drawn), so the hybrid query has lexical and vector hits.
const QUERY = 'government market report';

interface Run {
  readonly variant: string;
  readonly healthMs: number;
  readonly healthCpuS: number;
  readonly firstMs: number;
  readonly firstCpuS: number;
  readonly vectorUsed: boolean;
  readonly stages: Record<string, number>;
  readonly modelMs: number | null;
  readonly load: string;
}

const variants: { name: string; bin: string; env: Record<string, string> }[] = [
  { name: 'compiled (dist/atrium.js)', bin: BIN, env: {} },
  { name: 'sources through tsx', bin: BIN, env: { ATRIUM_FROM_SOURCE: '1' } },
  ...(BASELINE ? [{ name: `baseline (${BASELINE})`, bin: path.resolve(BASELINE), env: {} }] : []),
];

async function waitExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise((resolve) => child.once('exit', resolve));
}

async function coldStart(variant: (typeof variants)[number], dataDir: string): Promise<Run> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const load = loadNow();
  const t0 = performance.now();
  const child = spawn(process.execPath, [variant.bin, 'serve'], {
    env: { ...process.env, LOG_LEVEL: 'info', ATRIUM_ADMIN_API_KEY: KEY, ATRIUM_DATA_DIR: dataDir, ...variant.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr?.on('data', (d: Buffer) => { out += d.toString(); });
  const pid = child.pid ?? 0;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${out}`);
      if (await fetch(`${url}/v1/health`).then((r) => r.ok, () => false)) break;
      if (performance.now() - t0 > 300_000) throw new Error(`not healthy after 300 s:\n${out}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const healthMs = performance.now() - t0;
    const healthCpuS = cpuSeconds(pid);
    const res = await fetch(`${url}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: QUERY, mode: 'hybrid', limit: 10 }),
    });
    const body = (await res.json()) as { passages?: { semantic_score: number | null }[] };
    const firstMs = performance.now() - t0;
    const firstCpuS = cpuSeconds(pid);
    if (!res.ok || !body.passages?.length) throw new Error(`first search: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    // The 'atrium started' line can follow the first answers by a little.
    for (let i = 0; i < 200 && !out.includes('"atrium started"'); i++) await new Promise((r) => setTimeout(r, 25));
    const started = JSON.parse(out.split('\n').find((l) => l.includes('"atrium started"')) ?? '{}') as { stages?: Record<string, number> };
    const model = JSON.parse(out.split('\n').find((l) => l.includes('"embedding model loaded"')) ?? '{}') as { ms?: number };
    return {
      variant: variant.name,
      healthMs,
      healthCpuS,
      firstMs,
      firstCpuS,
      vectorUsed: body.passages.some((p) => p.semantic_score !== null),
      stages: started.stages ?? {},
      modelMs: model.ms ?? null,
      load,
    };
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    await waitExit(child);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2 : Number.NaN;
};
const range = (xs: number[], f: (x: number) => string) => `${f(median(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`;
const ms = (x: number) => (x / 1000).toFixed(2);
const s2 = (x: number) => x.toFixed(2);

// The folder: built once (cached by scripts/bench-corpus.ts), copied so these starts never touch the cache.
const corpus = await openBenchCorpus({ chunks: DOCS, onProgress: (l) => process.stderr.write(`\r${l}   `) });
const buildNote = corpus.buildNote;
await corpus.close();
const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'atrium-coldstart-'));
fs.cpSync(benchCorpusDir(DOCS), copy, { recursive: true });
const built = await (buildServer as () => Promise<{ inputs: number; ms: number }>)();
process.stderr.write(`\ncompiled build: ${built.inputs} inputs in ${built.ms} ms\n`);

const runs: Run[] = [];
const loads: string[] = [loadNow()];
try {
  // One start that is not counted: the copy's first open (page cache, any pending migration).
  await coldStart(variants[0]!, copy);
  for (let r = 0; r < RUNS; r++) {
    for (const v of variants) {
      const run = await coldStart(v, copy);
      runs.push(run);
      process.stderr.write(`${v.name}: health ${ms(run.healthMs)} s (${s2(run.healthCpuS)} s CPU), first hybrid ${ms(run.firstMs)} s (${s2(run.firstCpuS)} s CPU), load ${run.load}\n`);
    }
  }
  loads.push(loadNow());
} finally {
  fs.rmSync(copy, { recursive: true, force: true });
}

const rows = variants.map((v) => {
  const rs = runs.filter((r) => r.variant === v.name);
  const stage = (k: string) => {
    const xs = rs.map((r) => r.stages[k]).filter((x): x is number => typeof x === 'number');
    return xs.length ? median(xs).toFixed(0) : '–';
  };
  const model = rs.map((r) => r.modelMs).filter((x): x is number => x !== null);
  return `| ${v.name} | ${range(rs.map((r) => r.healthMs), ms)} | ${range(rs.map((r) => r.healthCpuS), s2)} | ${range(rs.map((r) => r.firstMs), ms)} | ${range(rs.map((r) => r.firstCpuS), s2)} | ${rs.filter((r) => r.vectorUsed).length}/${rs.length} | ${stage('openMs')} / ${stage('migrateMs')} / ${stage('composeMs')} / ${stage('listenMs')} | ${model.length ? median(model).toFixed(0) : '–'} |`;
});

const md = `## Cold start

${machineLine()}

Command: \`npm run bench -- coldstart --docs ${DOCS} --runs ${RUNS}${BASELINE ? ` --baseline ${BASELINE}` : ''}\`. A new \`atrium serve\` process on an
existing embedded data folder of ${DOCS.toLocaleString('en-US')} documents (scripts/bench-corpus.ts: ${buildNote}), timed from spawn to
the first 200 of \`/v1/health\` and then to the answer of its first hybrid search (\`${QUERY}\`, top 10). CPU is the server
process's (all threads, /proc), at those two moments. ${RUNS} runs per variant, interleaved, after one uncounted start;
median (min–max). Stages: wall ms the server logs in \`atrium started\` (open storage / migrations check / compose the
app / listen); model: the GloVe load it logs. Load average before and after the runs: ${loads.join(' → ')} (2 cores shared
with other work: wall times carry that load; CPU seconds less so).

| variant | → /v1/health (s) | CPU at health (s) | → first hybrid answer (s) | CPU at first answer (s) | answer used the vector | stages, median ms | model load (ms) |
| --- | --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}
`;
await writeBenchSection('coldstart', md);
process.stdout.write(md);
