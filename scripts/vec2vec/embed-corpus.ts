// Pre-embeds every text `npm run train:translations` can use into the on-disk cache, in priority order
// (evaluation texts first, then the sentence corpus, then the extra tiers), so a long run can be stopped
// at any point and the training script picks up what was done. Usage: node --import tsx scripts/vec2vec/embed-corpus.ts
import path from 'node:path';
import { createDistilledUseProvider, createGloveProvider, createUseProvider } from '../../src/embeddings/index.ts';
import { cachedEmbed, ROOT, uncached } from './cache.ts';
import { beirChunks, cranfieldRest, fioriProse, readJsonl, sentenceCorpus } from './corpus.ts';
import { loadMiniLm } from './minilm.ts';

const DATA = process.env.ATRIUM_SHARED_DATA ?? path.resolve(ROOT, '../shared/data');
const tiers: [string, string[]][] = [];
const evalSets = ['coffee-stackexchange', 'cranfield'];
for (const set of evalSets) {
  tiers.push([`${set} queries`, (await readJsonl<{ text: string }>(path.join(DATA, set, 'queries.jsonl'))).map((q) => q.text)]);
  tiers.push([`${set} chunks`, (await beirChunks(path.join(DATA, set))).map((c) => c.text)]);
}
tiers.push(['sentences', await sentenceCorpus(DATA, { cranfieldMax: 6000, seed: 42 })]);
const mini = await loadMiniLm();
const fiori = await fioriProse(mini.records);
tiers.push(['cranfield rest', await cranfieldRest(DATA, { skip: 6000, seed: 42 })]);
tiers.push(['fiori sentences', fiori.sentences]);
tiers.push(['minilm texts', mini.texts]);
tiers.push(['fiori windows', fiori.windows]);

const glove = createGloveProvider({ cacheDir: path.join(ROOT, 'node_modules/.cache/atrium-embeddings') });
const distilled = createDistilledUseProvider({ root: ROOT });
for (const [name, texts] of tiers) {
  await cachedEmbed(glove, texts, 512);
  await cachedEmbed(distilled, texts, 512);
  console.log(`${name}: ${texts.length} texts`);
}
const use = createUseProvider({ workers: Number(process.env.V2V_WORKERS ?? 2) });
for (const [name, texts] of tiers) {
  const todo = await uncached(use, texts);
  console.log(`${new Date().toISOString()} USE: ${name}: ${texts.length} texts, ${todo.length} to embed`);
  await cachedEmbed(use, texts, 64);
}
console.log(`${new Date().toISOString()} done`);
await use.close?.();
