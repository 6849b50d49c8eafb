import type { DocumentInput, DocumentsDeps } from '../../src/documents/index.ts';
import type { DatabaseExecutor } from '../../src/platform/db/index.ts';
import { silentLog } from '../support/db.ts';
import { hashEmbedder, registryOf } from './hash-embedder.ts';

/** The hashed bag-of-words model, cheap enough to write vectors with the chunks (the inline path GloVe takes). */
export const INLINE_MODEL = { ...hashEmbedder('test/hash-64d', 64), inline: true };

export const annDeps = (db: DatabaseExecutor, extra: Partial<DocumentsDeps> = {}): DocumentsDeps => ({ db, log: silentLog, embeddings: registryOf(INLINE_MODEL), ...extra });

/** Reference deps: the same database searched by pgvector's exact distance (no graph, no HNSW index). */
export const exactDeps = (db: DatabaseExecutor): DocumentsDeps =>
  annDeps(db, { documentIndex: { embeddedVectorIndex: 'pgvector' }, hnswMinVectors: Number.POSITIVE_INFINITY });

const VOCAB = Array.from({ length: 400 }, (_, i) => `w${(i * 7919).toString(36)}x${i}`);

/** `n` documents of 12 words each from a 400-word vocabulary (a fixed pseudo-random draw): vectors rarely tie. */
export function corpus(n: number, prefix: string, acl?: (i: number) => DocumentInput['acl']): DocumentInput[] {
  let seed = [...prefix].reduce((h, c) => (h * 131 + c.charCodeAt(0)) % 2147483648, 12345);
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed;
  };
  return Array.from({ length: n }, (_, i) => {
    const words = Array.from({ length: 12 }, () => VOCAB[next() % VOCAB.length]).join(' ');
    const a = acl?.(i);
    return { external_id: `${prefix}-${i}`, title: '', content: words, ...(a ? { acl: a } : {}) };
  });
}
