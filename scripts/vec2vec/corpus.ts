import fs from 'node:fs/promises';
import path from 'node:path';
import { normalizeText, textHash } from '../../src/vec2vec/index.ts';

export async function readJsonl<T>(file: string): Promise<T[]> {
  const text = await fs.readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

/** Sentences of a text: split after . ! ? followed by space; 20-400 characters each. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+/)
    .map(normalizeText)
    .filter((s) => s.length >= 20 && s.length <= 400);
}

const stripHtml = (s: string) => s.replace(/<[^>]+>/g, ' ').replace(/&[a-z]+;/g, ' ');

/**
 * The parallel corpus: every sentence of the coffee.stackexchange answers and the Slack fixture messages,
 * and `cranfieldMax` Cranfield sentences chosen by text hash (a fixed, unbiased subset).
 */
export async function sentenceCorpus(dataDir: string, opts: { cranfieldMax: number; seed: number }): Promise<string[]> {
  const out = new Set<string>();
  for (const d of await readJsonl<{ text: string }>(path.join(dataDir, 'coffee-stackexchange/corpus.jsonl'))) {
    for (const s of sentences(stripHtml(d.text))) out.add(s);
  }
  for (const m of await readJsonl<{ text: string; subtype: string | null }>(path.join(dataDir, 'slack-export/messages.jsonl'))) {
    const t = normalizeText(m.text.replace(/<[@#!][^>]*>/g, ' '));
    if (!m.subtype && t.length >= 10) out.add(t);
  }
  const cran = new Set<string>();
  for (const d of await readJsonl<{ text: string }>(path.join(dataDir, 'cranfield/corpus.jsonl'))) for (const s of sentences(d.text)) cran.add(s);
  const picked = [...cran].sort((a, b) => textHash(a, opts.seed) - textHash(b, opts.seed)).slice(0, opts.cranfieldMax);
  for (const s of picked) out.add(s);
  return [...out];
}
