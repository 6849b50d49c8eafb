// `npm run train:translations`: trains the translations that ship in translations/ (manifest.json + *.bin)
// from a parallel corpus of real, openly licensed text, and evaluates them (held-out metrics, retrieval
// through translation, translation into all-MiniLM-L6-v2 space). Deterministic: same corpus, same seeds,
// same output. Embeddings are cached in node_modules/.cache/atrium-vec2vec so a re-run skips re-embedding.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createGloveProvider, createUseProvider, type EmbeddingProvider, GLOVE_MODEL_ID, USE_MODEL_ID } from '../src/embeddings/index.ts';
import { manifestSchema, type ManifestEntry } from '../src/translations/index.ts';
import { encodeMap, type Mat, normalizeText, type PairMetrics, stack, trainTranslationPair, type TrainedPair } from '../src/vec2vec/index.ts';
import { loadMiniLm, MINILM_MODEL_ID } from './vec2vec/minilm.ts';
import { retrievalThroughTranslation } from './vec2vec/retrieval.ts';
import { readJsonl, sentenceCorpus } from './vec2vec/corpus.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT_DIR = path.join(ROOT, 'translations');
const CACHE_DIR = path.join(ROOT, 'node_modules/.cache/atrium-vec2vec');
const DATA = process.env.ATRIUM_SHARED_DATA ?? path.resolve(ROOT, '../shared/data');
const SPLIT = 0.12;
/** Seed of the held-out split; the Cranfield subset is picked with another seed, so the two are independent. */
const SEED = 7;
const CORPUS_SEED = 42;

/** Embeds with a per-model on-disk cache keyed by the text's SHA-1. */
async function cachedEmbed(p: EmbeddingProvider, texts: readonly string[]): Promise<Float32Array[]> {
  await fs.mkdir(CACHE_DIR, { recursive: true });
  const file = path.join(CACHE_DIR, `${p.id.replace(/\W+/g, '_')}.bin`);
  const rec = 20 + p.dimensions * 4;
  const cache = new Map<string, Float32Array>();
  const buf = await fs.readFile(file).catch(() => Buffer.alloc(0));
  for (let o = 0; o + rec <= buf.length; o += rec) {
    const v = new Float32Array(p.dimensions);
    for (let d = 0; d < p.dimensions; d++) v[d] = buf.readFloatLE(o + 20 + d * 4);
    cache.set(buf.subarray(o, o + 20).toString('hex'), v);
  }
  const key = (t: string) => createHash('sha1').update(t).digest('hex');
  const missing = [...new Set(texts.filter((t) => !cache.has(key(t))))];
  const started = Date.now();
  for (let i = 0; i < missing.length; i += 128) {
    const batch = missing.slice(i, i + 128);
    const vecs = await p.embed(batch);
    const out = Buffer.alloc(batch.length * rec);
    batch.forEach((t, j) => {
      Buffer.from(key(t), 'hex').copy(out, j * rec);
      for (let d = 0; d < p.dimensions; d++) out.writeFloatLE(vecs[j]![d]!, j * rec + 20 + d * 4);
      cache.set(key(t), vecs[j]!);
    });
    await fs.appendFile(file, out);
    const done = Math.min(missing.length, i + 128);
    const rate = done / ((Date.now() - started) / 1000);
    process.stderr.write(`\r${p.id}: embedded ${done}/${missing.length} (${rate.toFixed(1)}/s)   `);
  }
  if (missing.length) process.stderr.write('\n');
  return texts.map((t) => cache.get(key(t))!);
}

function usableRows(...sets: Float32Array[][]): number[] {
  const ok = (v: Float32Array) => v.some((x) => x !== 0) && v.every(Number.isFinite);
  return sets[0]!.map((_, i) => i).filter((i) => sets.every((s) => ok(s[i]!)));
}

const short = (id: string) => id.slice(id.lastIndexOf('/') + 1);

function entry(id: string, source: string, target: string, map: TrainedPair['forward'], m: PairMetrics, dir: 'forward' | 'backward', trainedAt: string): ManifestEntry {
  const d = m[dir];
  return {
    id,
    source_model: source,
    target_model: target,
    file: `${id}.bin`,
    kind: map.kind,
    source_dim: map.sourceDim,
    target_dim: map.targetDim,
    confidence: round(d.confidence),
    sample_count: m.sample_count,
    trained_at: trainedAt,
    metrics: {
      ...Object.fromEntries(Object.entries(d).map(([k, v]) => [k, round(v)])),
      cycle_loss: round(m.cycle_loss),
      held_out_count: m.held_out_count,
      train_count: m.train_count,
      selection_count: m.selection_count,
      linear: m.linear[dir],
      neural: m.neural ? { epochs_run: m.neural.epochs_run, best_epoch: m.neural.best_epoch, used: dir === 'forward' ? m.neural.forward_used : m.neural.backward_used } : null,
      train_seconds: round(m.train_seconds),
    },
  };
}

function round(v: number): number {
  return Math.round(v * 10000) / 10000;
}

async function trainPair(name: string, texts: string[], x: Mat, y: Mat, useNeural: boolean): Promise<TrainedPair> {
  const t = await trainTranslationPair(texts, x, y, { validationSplit: SPLIT, seed: SEED, useNeural, epochs: 30, learningRate: 1e-3 });
  const m = t.metrics;
  console.log(
    `${name} (${m.kind}, ${m.sample_count} pairs, ${m.held_out_count} held out, ${m.train_seconds.toFixed(1)} s): ` +
      `→ conf ${m.forward.confidence.toFixed(3)} cos ${m.forward.mean_cosine.toFixed(3)} (baseline ${m.forward.baseline_mean_cosine.toFixed(3)}) top1 ${m.forward.top1_accuracy.toFixed(3)}/${m.forward.candidates}; ` +
      `← conf ${m.backward.confidence.toFixed(3)} cos ${m.backward.mean_cosine.toFixed(3)} (baseline ${m.backward.baseline_mean_cosine.toFixed(3)}) top1 ${m.backward.top1_accuracy.toFixed(3)}/${m.backward.candidates}; cycle ${m.cycle_loss.toFixed(4)}`,
  );
  return t;
}

async function main(): Promise<void> {
  const trainedAt = new Date().toISOString();
  const glove = createGloveProvider({ cacheDir: path.join(ROOT, 'node_modules/.cache/atrium-embeddings') });
  const use = createUseProvider({ workers: 2 });
  const evalSets = ['coffee-stackexchange', 'cranfield'];
  const queries = new Set<string>();
  for (const set of evalSets) for (const q of await readJsonl<{ text: string }>(path.join(DATA, set, 'queries.jsonl'))) queries.add(normalizeText(q.text));

  // 1. The parallel corpus: sentences of the shared datasets, evaluation queries left out.
  const corpus = (await sentenceCorpus(DATA, { cranfieldMax: Number(process.env.V2V_CRANFIELD_MAX ?? 6000), seed: CORPUS_SEED })).filter((t) => !queries.has(t));
  console.log(`corpus: ${corpus.length} distinct sentences`);
  const g = await cachedEmbed(glove, corpus);
  const u = await cachedEmbed(use, corpus);
  const keep = usableRows(g, u);
  const texts = keep.map((i) => corpus[i]!);
  const gm = stack(keep.map((i) => g[i]!));
  const um = stack(keep.map((i) => u[i]!));
  const useNeural = process.env.V2V_NEURAL !== 'false';
  const builtin = await trainPair('use-lite-512d ↔ glove-100d', texts, um, gm, useNeural);
  // For the record: the linear maps alone on the same split (the shipped ones are whichever the selection split preferred).
  const linearOnly = useNeural ? await trainPair('use-lite-512d ↔ glove-100d, linear only', texts, um, gm, false) : builtin;

  // 2. Translation into all-MiniLM-L6-v2 space from the 778 real vectors of @sap-ux/fiori-docs-embeddings.
  const mini = await loadMiniLm();
  const mg = await cachedEmbed(glove, mini.texts);
  const mu = await cachedEmbed(use, mini.texts);
  const mk = usableRows(mg, mu);
  const miniTexts = mk.map((i) => mini.texts[i]!);
  const miniY = stack(mk.map((i) => mini.vectors[i]!));
  const useMini = await trainPair('use-lite-512d ↔ all-MiniLM-L6-v2', miniTexts, stack(mk.map((i) => mu[i]!)), miniY, false);
  const gloveMini = await trainPair('glove-100d ↔ all-MiniLM-L6-v2', miniTexts, stack(mk.map((i) => mg[i]!)), miniY, false);

  // 3. Retrieval through translation on the shared BEIR sets (queries were never training text).
  const retrieval = [];
  for (const set of evalSets) {
    const r = await retrievalThroughTranslation(path.join(DATA, set), { glove, use }, cachedEmbed, builtin);
    retrieval.push({ dataset: set, ...r });
    console.log(`${set}: ${JSON.stringify(r)}`);
  }

  // 4. Write the shipped translations. MiniLM ones ship only where they measure useful (top-1 ≥ 0.5).
  // Start from an empty directory so a translation that no longer measures useful does not linger.
  await fs.rm(OUT_DIR, { recursive: true, force: true });
  await fs.mkdir(OUT_DIR, { recursive: true });
  const entries: ManifestEntry[] = [];
  const ship = async (id: string, map: TrainedPair['forward'], e: ManifestEntry) => {
    await fs.writeFile(path.join(OUT_DIR, `${id}.bin`), encodeMap(map));
    entries.push(e);
  };
  const pairs: [string, string, TrainedPair][] = [
    [USE_MODEL_ID, GLOVE_MODEL_ID, builtin],
    [USE_MODEL_ID, MINILM_MODEL_ID, useMini],
    [GLOVE_MODEL_ID, MINILM_MODEL_ID, gloveMini],
  ];
  const skipped: string[] = [];
  for (const [s, t, p] of pairs) {
    for (const dir of ['forward', 'backward'] as const) {
      const [from, to] = dir === 'forward' ? [s, t] : [t, s];
      const id = `builtin-${short(from)}-to-${short(to)}`.toLowerCase();
      const map = p[dir];
      const useful = p.metrics[dir].top1_accuracy >= 0.5 || (from !== MINILM_MODEL_ID && to !== MINILM_MODEL_ID);
      if (useful) await ship(id, map, entry(id, from, to, map, p.metrics, dir, trainedAt));
      else skipped.push(`${id} (top-1 ${p.metrics[dir].top1_accuracy.toFixed(3)})`);
    }
  }
  const manifest = manifestSchema.parse({
    version: 1,
    generated_by: 'npm run train:translations (scripts/train-translations.ts)',
    corpus: {
      description:
        'Sentences of /work/shared/data: cranfield abstracts (research use), coffee.stackexchange answers (CC BY-SA 3.0), slack-export-viewer fixture messages (MIT); evaluation queries excluded. MiniLM pairs: the 778 chunks and all-MiniLM-L6-v2 vectors of @sap-ux/fiori-docs-embeddings 1.2.6 (Apache-2.0).',
      sentences: texts.length,
      minilm_pairs: miniTexts.length,
      held_out_split: SPLIT,
      split_seed: SEED,
      corpus_seed: CORPUS_SEED,
    },
    skipped,
    linear_only: {
      forward: { confidence: round(linearOnly.metrics.forward.confidence), mean_cosine: round(linearOnly.metrics.forward.mean_cosine), top1_accuracy: round(linearOnly.metrics.forward.top1_accuracy) },
      backward: { confidence: round(linearOnly.metrics.backward.confidence), mean_cosine: round(linearOnly.metrics.backward.mean_cosine), top1_accuracy: round(linearOnly.metrics.backward.top1_accuracy) },
      train_seconds: round(linearOnly.metrics.train_seconds),
    },
    retrieval,
    translations: entries,
  });
  await fs.writeFile(path.join(OUT_DIR, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`wrote ${entries.length} translations to ${path.relative(ROOT, OUT_DIR)}/ (skipped: ${skipped.join(', ') || 'none'})`);
  await use.close?.();
}

await main();
