import fs from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { normalizeText } from '../../src/vec2vec/index.ts';
import { readJsonl } from './corpus.ts';

export const MINILM_MODEL_ID = 'sentence-transformers/all-MiniLM-L6-v2';
/**
 * all-MiniLM-L6-v2 reads at most 256 word pieces; longer chunks were embedded truncated. Our models read the
 * first 1,600 characters (chosen among 400-2,500 on a held-out split with another seed than the reported one:
 * markdown and code take more word pieces per character than prose).
 */
export const MINILM_TEXT_CHARS = 1600;

/** The 778 real all-MiniLM-L6-v2 vectors (384-d) and their texts shipped by @sap-ux/fiori-docs-embeddings (Apache-2.0). */
export async function loadMiniLm(): Promise<{ texts: string[]; vectors: Float32Array[]; records: string[] }> {
  const require = createRequire(import.meta.url);
  const dir = path.join(path.dirname(require.resolve('@sap-ux/fiori-docs-embeddings/package.json')), 'data/embeddings');
  const meta = JSON.parse(await fs.readFile(path.join(dir, 'metadata.json'), 'utf8')) as { dimensions: number; totalVectors: number; model: string };
  if (meta.dimensions !== 384 || !/all-MiniLM-L6-v2/.test(meta.model)) throw new Error(`unexpected embeddings package: ${JSON.stringify(meta)}`);
  const records = await readJsonl<{ content: string }>(path.join(dir, 'records.jsonl'));
  const bin = await fs.readFile(path.join(dir, 'embeddings.bin'));
  if (records.length !== meta.totalVectors || bin.length !== meta.totalVectors * meta.dimensions * 4) throw new Error('records and vectors disagree');
  const vectors = records.map((_, i) => {
    const v = new Float32Array(meta.dimensions);
    for (let d = 0; d < meta.dimensions; d++) v[d] = bin.readFloatLE((i * meta.dimensions + d) * 4);
    return v;
  });
  return { texts: records.map((r) => normalizeText(r.content).slice(0, MINILM_TEXT_CHARS)), vectors, records: records.map((r) => r.content) };
}
