/** 32-bit FNV-1a of a string's UTF-16 code units, mixed with a seed. Deterministic across runs and machines. */
export function textHash(text: string, seed = 0): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // Final avalanche (murmur3 fmix32) so nearby strings land far apart.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

/** Trims and collapses whitespace; texts equal after this are one sample. */
export function normalizeText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The distinct non-empty texts, normalized, in first-seen order. */
export function dedupeTexts(texts: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of texts) {
    const n = normalizeText(t);
    if (!n || seen.has(n)) continue;
    seen.add(n);
    out.push(n);
  }
  return out;
}

/**
 * Splits sample indices by the hash of their text: a text lands in `heldOut` when its hash falls in the
 * lowest `fraction` of the range. The same text always lands on the same side, whatever else is in the
 * set, so re-training on a grown corpus never leaks old held-out texts into training.
 */
export function splitByHash(texts: readonly string[], fraction: number, seed: number): { train: number[]; heldOut: number[] } {
  const train: number[] = [];
  const heldOut: number[] = [];
  const cut = fraction * 2 ** 32;
  texts.forEach((t, i) => {
    if (textHash(t, seed) < cut) heldOut.push(i);
    else train.push(i);
  });
  // Hash order (not input order) so "the first k held-out samples" is itself a fixed, unbiased subset.
  heldOut.sort((a, b) => textHash(texts[a]!, seed + 1) - textHash(texts[b]!, seed + 1));
  return { train, heldOut };
}

/** A small seeded PRNG (mulberry32) for shuffles and initialisation. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal samples by Box-Muller. */
export function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

export function shuffleInPlace<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const t = items[i]!;
    items[i] = items[j]!;
    items[j] = t;
  }
  return items;
}
