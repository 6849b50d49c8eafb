// The peers benchmark's corpus: N documents of ~1 KB built only from text already on disk (the shared
// sets under ../shared/data: cranfield abstracts, coffee.stackexchange answers, the Slack fixture), and
// the same GloVe vectors for every engine. How: every sentence (> 30 characters) of those texts goes in
// one pool (~9k sentences); document i takes a title of 4-8 words cut from one pool sentence and a body
// of pool sentences drawn with a seeded generator until it passes 900 characters (cut at 990), so every
// document is one Atrium chunk and the vocabulary and term statistics are those of real English text.
// Vectors: Atrium's default model (builtin/glove-100d) over `embeddingText(title, content)`, the text
// Atrium embeds for the chunk, computed once here and handed to LanceDB and Orama. Cached under
// .cache/peers/ (JSONL + raw float32), so a second run starts at once.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../../src/config/index.ts';
import { embeddingText } from '../../src/documents/embed.ts';
import { type BeirDoc, type BeirQuery, loadBeir, readJsonl } from '../../src/documents/eval/beir.ts';
import type { Qrels } from '../../src/documents/eval/metrics.ts';
import { createEmbeddingRegistry } from '../../src/embeddings/index.ts';
import { createLogger } from '../../src/platform/log.ts';
import { seededRandom } from '../../src/vec2vec/index.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const DATA = path.resolve(ROOT, '../shared/data');
export const CACHE = path.join(ROOT, '.cache/peers');
export const MODEL = 'builtin/glove-100d';
export const DIMS = 100;
export const EVAL_SETS = ['cranfield', 'coffee-stackexchange'] as const;

export interface PeerDoc {
  readonly id: string;
  readonly title: string;
  readonly content: string;
}

export interface EvalSet {
  readonly name: string;
  readonly docs: readonly BeirDoc[];
  readonly queries: readonly BeirQuery[];
  readonly qrels: Qrels;
  readonly docVectors: readonly Float32Array[];
  readonly queryVectors: readonly Float32Array[];
}

/** The GloVe model in this process (for the corpus's and the queries' vectors). */
export async function embedder(): Promise<{ embed(texts: string[]): Promise<Float32Array[]>; close(): Promise<void> }> {
  const log = createLogger({ level: 'warn' });
  const registry = createEmbeddingRegistry(loadConfig({ ...process.env, LOG_LEVEL: 'warn' }), log);
  const p = registry.get(MODEL);
  if (!p) throw new Error(`${MODEL} is not available`);
  return { embed: (t) => p.embed(t), close: () => registry.close() };
}

async function sentencePool(): Promise<string[]> {
  const pool: string[] = [];
  const add = (text: string) => {
    for (const s of text.split(/(?<=[.!?])\s+/)) if (s.trim().length > 30) pool.push(s.trim().replace(/\s+/g, ' '));
  };
  for (const set of EVAL_SETS) for (const d of (await loadBeir(path.join(DATA, set))).docs) add(d.text);
  for await (const { value } of readJsonl(path.join(DATA, 'slack-export/messages.jsonl'))) {
    const text = (value as { text?: unknown }).text;
    if (typeof text === 'string') add(text);
  }
  return pool;
}

/** The corpus of `n` documents and their vectors (row i of the Float32Array block is document i), cached. */
export async function loadCorpus(n: number): Promise<{ docs: PeerDoc[]; vectors: Float32Array; file: string; vecFile: string }> {
  const file = path.join(CACHE, `corpus-${n}.jsonl`);
  const vecFile = path.join(CACHE, `corpus-${n}.f32`);
  if (!fs.existsSync(vecFile)) {
    await fsp.mkdir(CACHE, { recursive: true });
    const pool = await sentencePool();
    const r = seededRandom(29);
    const pick = () => pool[Math.floor(r() * pool.length)] ?? '';
    const docs: PeerDoc[] = [];
    for (let i = 0; i < n; i++) {
      const words = pick().split(' ');
      const title = words.slice(0, 4 + Math.floor(r() * 5)).join(' ').replace(/[.,;:!?]+$/, '');
      let content = '';
      while (content.length < 900) content += `${pick()} `;
      docs.push({ id: `d${i}`, title, content: content.trim().slice(0, 990) });
    }
    const e = await embedder();
    const vectors = new Float32Array(n * DIMS);
    for (let i = 0; i < n; i += 2000) {
      const vs = await e.embed(docs.slice(i, i + 2000).map((d) => embeddingText(d.title, d.content)));
      for (const [j, v] of vs.entries()) vectors.set(v, (i + j) * DIMS);
    }
    await e.close();
    await fsp.writeFile(`${file}.tmp`, `${docs.map((d) => JSON.stringify(d)).join('\n')}\n`);
    await fsp.rename(`${file}.tmp`, file);
    await fsp.writeFile(`${vecFile}.tmp`, Buffer.from(vectors.buffer));
    await fsp.rename(`${vecFile}.tmp`, vecFile);
  }
  const docs = (await fsp.readFile(file, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as PeerDoc);
  const buf = await fsp.readFile(vecFile);
  return { docs, vectors: new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4), file, vecFile };
}

export const vectorOf = (vectors: Float32Array, i: number) => vectors.subarray(i * DIMS, (i + 1) * DIMS);

/** The latency queries: the shared sets' query texts (cranfield then coffee), the first `n`. */
export async function latencyQueries(n: number): Promise<string[]> {
  const out: string[] = [];
  for (const set of EVAL_SETS) out.push(...(await loadBeir(path.join(DATA, set))).queries.map((q) => q.text));
  return out.slice(0, n);
}

/** A shared set with GloVe vectors of its documents (title + text, as Atrium embeds them) and queries. */
export async function loadEvalSet(name: string, e: { embed(texts: string[]): Promise<Float32Array[]> }): Promise<EvalSet> {
  const b = await loadBeir(path.join(DATA, name));
  const queries = b.queries.filter((q) => b.qrels.has(q.id));
  return {
    name,
    docs: b.docs,
    queries,
    qrels: b.qrels,
    docVectors: await e.embed(b.docs.map((d) => embeddingText(d.title, d.text))),
    queryVectors: await e.embed(queries.map((q) => q.text)),
  };
}

/** Bytes under a path (files only, recursively). */
export function diskBytes(p: string): number {
  const st = fs.statSync(p, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.size;
  let n = 0;
  for (const e of fs.readdirSync(p)) n += diskBytes(path.join(p, e));
  return n;
}
