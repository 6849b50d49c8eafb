import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const BENCH_FILE = path.resolve(import.meta.dirname, '../docs/benchmarks.md');

/** One line naming the machine and date, for the top of every section. */
export function machineLine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `Machine: ${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}, load average ${os.loadavg()[0]?.toFixed(1)} at the start (other work on the machine inflates wall-clock numbers). Date: ${new Date().toISOString()}.`;
}

/**
 * Replaces (or appends) the section `name` of docs/benchmarks.md, delimited by HTML comments,
 * so every benchmark owns its section and re-running one leaves the others as they were.
 */
export async function writeBenchSection(name: string, markdown: string): Promise<void> {
  const begin = `<!-- bench:${name}:begin -->`;
  const end = `<!-- bench:${name}:end -->`;
  let doc = '';
  try {
    doc = await fs.readFile(BENCH_FILE, 'utf8');
  } catch {
    doc = '# Benchmarks\n\nWritten by `npm run bench` (all) or `npm run bench -- <name>`. Numbers are from the machine named in each section.\n';
  }
  const block = `${begin}\n${markdown.trim()}\n${end}`;
  const i = doc.indexOf(begin);
  const j = doc.indexOf(end);
  doc = i >= 0 && j > i ? doc.slice(0, i) + block + doc.slice(j + end.length) : `${doc.trimEnd()}\n\n${block}\n`;
  await fs.writeFile(BENCH_FILE, doc);
}
