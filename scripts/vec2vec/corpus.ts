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

/** Chunk texts exactly as the index embeds them (default chunker settings, title prefix), per BEIR document. */
export async function beirChunks(dir: string): Promise<{ docId: string; text: string }[]> {
  const { chunkDocument } = await import('../../src/documents/chunker.ts');
  const { embeddingText } = await import('../../src/documents/embed.ts');
  const out: { docId: string; text: string }[] = [];
  for (const d of await readJsonl<{ _id: string | number; title?: string | null; text?: string | null }>(path.join(dir, 'corpus.jsonl'))) {
    const title = d.title ?? '';
    for (const c of chunkDocument({ title, content: d.text ?? '', document_type: 'page' }, { maxChars: 1000, overlapChars: 150 })) {
      out.push({ docId: String(d._id), text: embeddingText(title, c.content) });
    }
  }
  return out;
}

/** Cranfield sentences not among the first `skip` by text hash (the rest of the collection). */
export async function cranfieldRest(dataDir: string, opts: { skip: number; seed: number }): Promise<string[]> {
  const cran = new Set<string>();
  for (const d of await readJsonl<{ text: string }>(path.join(dataDir, 'cranfield/corpus.jsonl'))) for (const s of sentences(d.text)) cran.add(s);
  return [...cran].sort((a, b) => textHash(a, opts.seed) - textHash(b, opts.seed)).slice(opts.skip);
}

/**
 * Prose of the SAP Fiori documentation chunks shipped by @sap-ux/fiori-docs-embeddings (Apache-2.0): code
 * blocks and markup labels removed, then sentences (20-400 characters) and chunk-length windows of
 * consecutive sentences (400-1000 characters, like the index's chunks).
 */
export async function fioriProse(records: readonly string[]): Promise<{ sentences: string[]; windows: string[] }> {
  const sents = new Set<string>();
  const windows = new Set<string>();
  for (const r of records) {
    const prose = r
      .replace(/```[\s\S]*?(```|$)/g, ' ')
      .replace(/\*\*[A-Z ]+\*\*:|\b(STEP|DESCRIPTION|LANGUAGE|CODE):/g, ' ')
      .replace(/[#*`|>]+/g, ' ');
    const ss = sentences(prose).filter((s) => /[a-z]{3,}/.test(s) && !/[{};=<>]/.test(s));
    for (const s of ss) sents.add(s);
    let cur = '';
    for (const s of ss) {
      cur = cur ? `${cur} ${s}` : s;
      if (cur.length >= 400) {
        windows.add(cur.slice(0, 1000));
        cur = '';
      }
    }
  }
  return { sentences: [...sents], windows: [...windows] };
}
