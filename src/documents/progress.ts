/** Progress lines for long CLI work (ingest, embed, eval): count, rate and ETA, on stderr. */

export function formatProgress(label: string, done: number, total: number | null, elapsedMs: number): string {
  const secs = Math.max(elapsedMs / 1000, 1e-3);
  const rate = done / secs;
  const rateText = rate >= 100 ? rate.toFixed(0) : rate.toFixed(1);
  if (total === null) return `${label}: ${done} (${rateText}/s)`;
  const pct = total > 0 ? Math.floor((done / total) * 100) : 100;
  const eta = rate > 0 && total > done ? formatDuration(((total - done) / rate) * 1000) : '0s';
  return `${label}: ${done}/${total} ${pct}% (${rateText}/s, ETA ${eta})`;
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

export interface ProgressReporter {
  update(done: number, total?: number | null): void;
  done(message?: string): void;
}

/** Writes at most ~5 updates a second; on a TTY it rewrites one line. `quiet` writes nothing. */
export function createProgress(
  label: string,
  opts: { stream?: NodeJS.WritableStream & { isTTY?: boolean }; quiet?: boolean; now?: () => number } = {},
): ProgressReporter {
  const stream = opts.stream ?? process.stderr;
  const now = opts.now ?? Date.now;
  const start = now();
  let last = 0;
  let lastDone = 0;
  let lastTotal: number | null = null;
  const write = (line: string, final: boolean) => {
    if (opts.quiet) return;
    if (stream.isTTY) stream.write(`\r\x1b[K${line}${final ? '\n' : ''}`);
    else stream.write(`${line}\n`);
  };
  return {
    update(done, total = lastTotal) {
      lastDone = done;
      lastTotal = total ?? null;
      const t = now();
      if (t - last < (stream.isTTY ? 200 : 2000)) return;
      last = t;
      write(formatProgress(label, done, lastTotal, t - start), false);
    },
    done(message) {
      write(message ?? formatProgress(label, lastDone, lastTotal, now() - start), true);
    },
  };
}
