// Distils USE lite into a static token-vector table, model2vec-style: every one of its 8,000
// SentencePiece tokens is embedded alone by the real model (in worker threads), the common
// component (mean vector) is removed, and the table is stored Int8-quantized (~4 MB) at
// models/use-distilled-512d.i8.bin. At run time a text is the SIF-weighted mean of its tokens'
// vectors (weights from the vocabulary's log-probabilities). Reproduce: `node --import tsx scripts/distill-use.ts`.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DISTILLED_FILE } from '../src/embeddings/distilled/provider.ts';
import { readUseVocabulary } from '../src/embeddings/distilled/vocabulary.ts';
import { encodeWordVectors } from '../src/embeddings/glove/format.ts';
import { createUseProvider } from '../src/embeddings/index.ts';

const RESERVED = 6; // <unk>, <s>, </s>, extra ids: no text of their own
const vocabulary = await readUseVocabulary();
const dims = 512;
const texts = vocabulary.map(([piece], i) => (i < RESERVED ? '' : piece.replace(/▁/g, ' ').trim() || piece));
const use = createUseProvider({ workers: os.availableParallelism(), batchSize: 32, maxQueue: 64 });
const table = new Float32Array(vocabulary.length * dims);
const started = Date.now();
const step = 256;
for (let i = RESERVED; i < texts.length; i += step) {
  const batch = texts.slice(i, i + step);
  const vectors = await use.embed(batch);
  vectors.forEach((v, j) => {
    table.set(v, (i + j) * dims);
  });
  const done = i + batch.length;
  const rate = (done - RESERVED) / ((Date.now() - started) / 1000);
  console.error(`${done}/${texts.length} tokens, ${rate.toFixed(1)}/s, ETA ${Math.round((texts.length - done) / rate)} s`);
}
await use.close!();

// Remove the direction every token shares (it carries no meaning and dominates averages).
const mean = new Float32Array(dims);
const n = texts.length - RESERVED;
for (let i = RESERVED; i < texts.length; i++) for (let d = 0; d < dims; d++) mean[d]! += table[i * dims + d]! / n;
for (let i = RESERVED; i < texts.length; i++) for (let d = 0; d < dims; d++) table[i * dims + d]! -= mean[d]!;

const out = path.resolve(import.meta.dirname, '..', DISTILLED_FILE);
await fs.mkdir(path.dirname(out), { recursive: true });
await fs.writeFile(out, encodeWordVectors(vocabulary.map(([p]) => p), table, dims));
console.error(`wrote ${out} in ${Math.round((Date.now() - started) / 1000)} s`);
