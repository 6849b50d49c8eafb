// Measurement helpers shared by the engines of the peers benchmark.
import fs from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { ndcgAt, percentile } from '../../src/documents/eval/metrics.ts';
import type { EvalSet } from './corpus.ts';

export type Mode = 'lexical' | 'vector' | 'hybrid';
export const MODES: readonly Mode[] = ['lexical', 'vector', 'hybrid'];

export interface Latency {
  readonly p50: number;
  readonly p99: number;
  /** 4 clients at once: throughput and the per-request p50 they saw. */
  readonly c4Qps: number;
  readonly c4P50: number;
}

export interface IngestStats {
  readonly docs: number;
  readonly wallS: number;
  readonly cpuS: number;
  /** docs/s (wall) of the first and the last batch, and their CPU docs/s. */
  readonly firstDps: number;
  readonly lastDps: number;
  readonly firstCpuDps: number;
  readonly lastCpuDps: number;
  /** Seconds spent after the last batch building indexes / persisting (peers that index at the end). */
  readonly finishS: number;
  /** docs/s (wall) of every batch, for the report's curve. */
  readonly batchDps: readonly number[];
}

export interface EngineResult {
  readonly engine: string;
  readonly ingest: IngestStats;
  readonly diskBytes: number;
  readonly peakRssBytes: number;
  readonly latency: Record<Mode, Latency>;
  readonly coldOpen?: { healthMs?: number; firstHybridMs: number };
  readonly ndcg?: Record<string, Partial<Record<Mode, number>>>;
  readonly notes: string[];
  readonly load: string;
}

export const loadNow = () => os.loadavg().map((x) => x.toFixed(1)).join(' / ');

/** CPU seconds of this process, or of `pid` (its /proc stat: utime + stime at 100 Hz). */
export function cpuSeconds(pid?: number): number {
  if (pid === undefined) {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1e6;
  }
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** Peak resident set of this process or of `pid`, bytes. */
export function peakRss(pid?: number): number {
  if (pid === undefined) return process.resourceUsage().maxRSS * 1024;
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) * 1024;
}

/** Records batch timings; `cpu()` reads the CPU clock that counts (the engine's process). */
export function ingestClock(cpu: () => number) {
  const wall0 = performance.now();
  const cpu0 = cpu();
  const batches: { n: number; wall: number; cpu: number }[] = [];
  return {
    async batch(n: number, f: () => Promise<unknown>) {
      const w = performance.now();
      const c = cpu();
      await f();
      batches.push({ n, wall: (performance.now() - w) / 1000, cpu: cpu() - c });
    },
    async finish(f: () => Promise<unknown>): Promise<IngestStats> {
      const w = performance.now();
      await f();
      const finishS = (performance.now() - w) / 1000;
      const first = batches[0] ?? { n: 0, wall: 1, cpu: 1 };
      const last = batches[batches.length - 1] ?? first;
      return {
        docs: batches.reduce((a, b) => a + b.n, 0),
        wallS: (performance.now() - wall0) / 1000,
        cpuS: cpu() - cpu0,
        firstDps: first.n / first.wall,
        lastDps: last.n / last.wall,
        firstCpuDps: first.n / Math.max(first.cpu, 0.01),
        lastCpuDps: last.n / Math.max(last.cpu, 0.01),
        finishS,
        batchDps: batches.map((b) => b.n / b.wall),
      };
    },
  };
}

/** p50/p99 of `count` sequential calls, then throughput and p50 with 4 concurrent clients over the same queries. */
export async function latency(count: number, run: (i: number) => Promise<unknown>): Promise<Latency> {
  const seq: number[] = [];
  for (let i = 0; i < count; i++) {
    const s = performance.now();
    await run(i);
    seq.push(performance.now() - s);
  }
  const conc: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let i = next++; i < count; i = next++) {
        const s = performance.now();
        await run(i);
        conc.push(performance.now() - s);
      }
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  return { p50: percentile(seq, 50), p99: percentile(seq, 99), c4Qps: count / wall, c4P50: percentile(conc, 50) };
}

/** Mean nDCG@10 of a search function over a shared set's judged queries. */
export async function ndcg(set: EvalSet, search: (q: string, v: Float32Array) => Promise<string[]>): Promise<number> {
  let sum = 0;
  for (const [i, q] of set.queries.entries()) {
    const ranked = await search(q.text, set.queryVectors[i] ?? new Float32Array(0));
    sum += ndcgAt(ranked, set.qrels.get(q.id) ?? new Map(), 10);
  }
  return sum / Math.max(1, set.queries.length);
}
