import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { decodeMap, type TranslationMap } from '../vec2vec/index.ts';
import type { TranslationRecord } from './store.ts';

/** Where `npm run train:translations` writes the shipped translations. */
export const BUILTIN_DIR = path.resolve(import.meta.dirname, '../../translations');

export const manifestEntrySchema = z.object({
  id: z.string(),
  source_model: z.string(),
  target_model: z.string(),
  file: z.string(),
  kind: z.enum(['linear', 'neural']),
  source_dim: z.number().int(),
  target_dim: z.number().int(),
  confidence: z.number(),
  sample_count: z.number().int(),
  trained_at: z.string(),
  metrics: z.record(z.string(), z.unknown()),
});

export const manifestSchema = z.object({
  version: z.literal(1),
  translations: z.array(manifestEntrySchema),
}).loose();

export type ManifestEntry = z.infer<typeof manifestEntrySchema>;

export interface BuiltinTranslation {
  readonly record: TranslationRecord;
  readonly file: string;
}

/** Reads the manifest of shipped translations; none when the directory or manifest is absent. */
export async function readBuiltinManifest(dir: string): Promise<BuiltinTranslation[]> {
  let text: string;
  try {
    text = await fs.readFile(path.join(dir, 'manifest.json'), 'utf8');
  } catch {
    return [];
  }
  const manifest = manifestSchema.parse(JSON.parse(text));
  return manifest.translations.map((e) => ({
    file: path.join(dir, e.file),
    record: {
      translation_id: e.id,
      source_model: e.source_model,
      target_model: e.target_model,
      confidence: e.confidence,
      trained_at: e.trained_at,
      sample_count: e.sample_count,
      kind: e.kind,
      source_dim: e.source_dim,
      target_dim: e.target_dim,
      builtin: true,
      metrics: e.metrics,
    },
  }));
}

export async function loadBuiltinMap(b: BuiltinTranslation): Promise<TranslationMap> {
  const map = decodeMap(new Uint8Array(await fs.readFile(b.file)));
  if (map.sourceDim !== b.record.source_dim || map.targetDim !== b.record.target_dim) {
    throw new Error(`shipped translation ${b.record.translation_id} does not match its manifest dimensions`);
  }
  return map;
}
