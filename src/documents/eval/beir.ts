import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { z } from 'zod';
import type { Qrels } from './metrics.ts';

const corpusLine = z.object({ _id: z.union([z.string(), z.number()]), title: z.string().nullish(), text: z.string().nullish() });
const queryLine = z.object({ _id: z.union([z.string(), z.number()]), text: z.string() });

export interface BeirDoc {
  readonly id: string;
  readonly title: string;
  readonly text: string;
}
export interface BeirQuery {
  readonly id: string;
  readonly text: string;
}

/**
 * The non-blank lines of a JSONL file, parsed; a line that is not JSON yields its `error` instead. A UTF-8 byte
 * order mark before the first line (editors on Windows write one) is not part of it.
 */
export async function* jsonlValues(file: string): AsyncGenerator<{ line: number; value: unknown } | { line: number; error: string }> {
  const rl = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  for await (const raw of rl) {
    n++;
    const text = n === 1 && raw.startsWith('\uFEFF') ? raw.slice(1) : raw;
    if (!text.trim()) continue;
    try {
      yield { line: n, value: JSON.parse(text) };
    } catch (err) {
      yield { line: n, error: `invalid JSON (${(err as Error).message})` };
    }
  }
}

/** The non-blank lines of a JSONL file, parsed; throws at the first line that is not JSON. */
export async function* readJsonl(file: string): AsyncGenerator<{ line: number; value: unknown }> {
  for await (const r of jsonlValues(file)) {
    if ('error' in r) throw new Error(`${file}:${r.line}: ${r.error}`);
    yield r;
  }
}

/** Loads a BEIR-layout folder: corpus.jsonl, queries.jsonl and qrels.tsv (or qrels/test.tsv). */
export async function loadBeir(dir: string): Promise<{ docs: BeirDoc[]; queries: BeirQuery[]; qrels: Qrels }> {
  const docs: BeirDoc[] = [];
  for await (const { line, value } of readJsonl(path.join(dir, 'corpus.jsonl'))) {
    const d = corpusLine.safeParse(value);
    if (!d.success) throw new Error(`corpus.jsonl:${line}: ${d.error.issues[0]?.message ?? 'invalid'}`);
    docs.push({ id: String(d.data._id), title: d.data.title ?? '', text: d.data.text ?? '' });
  }
  const queries: BeirQuery[] = [];
  for await (const { line, value } of readJsonl(path.join(dir, 'queries.jsonl'))) {
    const q = queryLine.safeParse(value);
    if (!q.success) throw new Error(`queries.jsonl:${line}: ${q.error.issues[0]?.message ?? 'invalid'}`);
    queries.push({ id: String(q.data._id), text: q.data.text });
  }
  const qrelsFile = [path.join(dir, 'qrels.tsv'), path.join(dir, 'qrels', 'test.tsv')].find((f) => fs.existsSync(f));
  if (!qrelsFile) throw new Error(`${dir}: no qrels.tsv`);
  const qrels = new Map<string, Map<string, number>>();
  const lines = fs.readFileSync(qrelsFile, 'utf8').split(/\r?\n/);
  for (const [i, l] of lines.entries()) {
    const cols = l.split('\t');
    if (cols.length < 3 || (i === 0 && Number.isNaN(Number(cols[2])))) continue;
    const [qid, did, score] = cols as [string, string, string];
    let m = qrels.get(qid);
    if (!m) {
      m = new Map();
      qrels.set(qid, m);
    }
    m.set(did, Number(score));
  }
  return { docs, queries, qrels };
}
