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

/**
 * Loads a BEIR-layout folder: corpus.jsonl, queries.jsonl and qrels.tsv (or qrels/test.tsv). Refused with the
 * file and line: an empty corpus, a duplicate document or query id (one would silently replace the other and
 * skew the metrics), a qrels line that is neither `query-id corpus-id score` nor TREC's
 * `query-id iteration corpus-id score` (tabs or spaces) or whose score is not a number (a first-line header is
 * skipped), and qrels that judge none of the queries.
 */
export async function loadBeir(dir: string): Promise<{ docs: BeirDoc[]; queries: BeirQuery[]; qrels: Qrels }> {
  const docs: BeirDoc[] = [];
  const docLines = new Map<string, number>();
  for await (const { line, value } of readJsonl(path.join(dir, 'corpus.jsonl'))) {
    const d = corpusLine.safeParse(value);
    if (!d.success) throw new Error(`corpus.jsonl:${line}: ${d.error.issues[0]?.message ?? 'invalid'}`);
    const id = String(d.data._id);
    const first = docLines.get(id);
    if (first !== undefined) throw new Error(`corpus.jsonl:${line}: duplicate _id '${id}' (first on line ${first})`);
    docLines.set(id, line);
    docs.push({ id, title: d.data.title ?? '', text: d.data.text ?? '' });
  }
  if (docs.length === 0) throw new Error(`${path.join(dir, 'corpus.jsonl')}: the corpus is empty`);
  const queries: BeirQuery[] = [];
  const queryLines = new Map<string, number>();
  for await (const { line, value } of readJsonl(path.join(dir, 'queries.jsonl'))) {
    const q = queryLine.safeParse(value);
    if (!q.success) throw new Error(`queries.jsonl:${line}: ${q.error.issues[0]?.message ?? 'invalid'}`);
    const id = String(q.data._id);
    const first = queryLines.get(id);
    if (first !== undefined) throw new Error(`queries.jsonl:${line}: duplicate _id '${id}' (first on line ${first})`);
    queryLines.set(id, line);
    queries.push({ id, text: q.data.text });
  }
  const qrelsFile = [path.join(dir, 'qrels.tsv'), path.join(dir, 'qrels', 'test.tsv')].find((f) => fs.existsSync(f));
  if (!qrelsFile) throw new Error(`${dir}: no qrels.tsv`);
  const qrels = new Map<string, Map<string, number>>();
  const lines = fs.readFileSync(qrelsFile, 'utf8').split(/\r?\n/);
  for (const [i, l] of lines.entries()) {
    if (!l.trim()) continue;
    const cols = l.includes('\t') ? l.split('\t') : l.trim().split(/\s+/);
    const row = cols.length === 3 ? cols : cols.length === 4 ? [cols[0], cols[2], cols[3]] : null;
    const score = row ? Number(row[2]) : Number.NaN;
    if (!row || Number.isNaN(score)) {
      if (i === 0) continue; // the header: query-id corpus-id score
      throw new Error(`${qrelsFile}:${i + 1}: expected 'query-id<TAB>corpus-id<TAB>score' with a numeric score, got '${l.slice(0, 80)}'`);
    }
    const [qid, did] = row as [string, string];
    let m = qrels.get(qid);
    if (!m) {
      m = new Map();
      qrels.set(qid, m);
    }
    m.set(did, score);
  }
  if (!queries.some((q) => qrels.has(q.id))) throw new Error(`${qrelsFile}: judges none of the ${queries.length} queries in queries.jsonl`);
  return { docs, queries, qrels };
}
