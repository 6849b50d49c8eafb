// Retrieval through the shipped USE-lite ↔ GloVe translations (translations/manifest.json), both index/query
// directions, dense and hybrid, through the real search code. Writes translations/retrieval-<dataset>.json.
// Usage: node --import tsx scripts/vec2vec/eval-hybrid.ts [dataset …]   (default: both shared BEIR sets)
import fs from 'node:fs/promises';
import path from 'node:path';
import { createGloveProvider, createUseProvider, type EmbeddingProvider } from '../../src/embeddings/index.ts';
import { BUILTIN_DIR, loadBuiltinMap, readBuiltinManifest } from '../../src/translations/builtin.ts';
import { ROOT } from './cache.ts';
import { hybridThroughTranslation, type Side } from './hybrid.ts';

const DATA = process.env.ATRIUM_SHARED_DATA ?? path.resolve(ROOT, '../shared/data');
const sets = process.argv.slice(2).length ? process.argv.slice(2) : ['coffee-stackexchange', 'cranfield'];
const dir = process.env.V2V_TRANSLATIONS ?? BUILTIN_DIR;
const shipped = await readBuiltinManifest(dir);
async function side(a: string, b: string): Promise<Side | null> {
  const ab = shipped.find((t) => t.record.source_model === a && t.record.target_model === b);
  const ba = shipped.find((t) => t.record.source_model === b && t.record.target_model === a);
  if (!ab || !ba) return null;
  return { ab: await loadBuiltinMap(ab), confAB: ab.record.confidence, ba: await loadBuiltinMap(ba), confBA: ba.record.confidence };
}
const glove = createGloveProvider({ cacheDir: path.join(ROOT, 'node_modules/.cache/atrium-embeddings') });
const use = createUseProvider({ workers: 1 });
const pairs: [EmbeddingProvider, EmbeddingProvider][] = [
  [glove, use],
  [use, glove],
];
for (const set of sets) {
  const out = [];
  for (const [a, b] of pairs) {
    const s = await side(a.id, b.id);
    if (!s || (process.env.V2V_INDEX && b.id !== process.env.V2V_INDEX)) continue;
    const r = await hybridThroughTranslation(path.join(DATA, set), { a, b }, { shipped: s });
    out.push(r);
    console.log(`\n${set}: index ${b.id}, query ${a.id} (${r.queries} queries, ${r.chunks} chunks)`);
    const nat = r.ndcg10;
    for (const [k, v] of Object.entries(nat)) {
      const base = k.includes('dense') ? nat['native dense']! : k.includes('federated') ? nat['native federated']! : nat['native hybrid']!;
      console.log(`  ${k.padEnd(62)} ${v.toFixed(4)}  ${k.startsWith('native') || k === 'lexical' ? '' : `${((100 * v) / base).toFixed(1)} %`}`);
    }
  }
  if (!process.env.V2V_INDEX) await fs.writeFile(path.join(dir, `retrieval-${set}.json`), `${JSON.stringify(out, null, 2)}\n`);
}
await use.close?.();
