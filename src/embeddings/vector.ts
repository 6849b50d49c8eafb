/** Scales `v` in place to unit L2 length; a zero vector stays zero. Returns `v`. */
export function l2normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  if (sum === 0) return v;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i]! *= inv;
  return v;
}

/** False for the zero vector (what a text with no word the model knows embeds to): it has no direction. */
export function hasDirection(v: ArrayLike<number>): boolean {
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return true;
  return false;
}

/** Cosine similarity; 0 when either vector is zero. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`dimension mismatch: ${a.length} vs ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** A unit-length Float32Array from any numeric array (remote providers answer with plain numbers). */
export function toUnitVector(values: ArrayLike<number>): Float32Array {
  return l2normalize(Float32Array.from(values));
}

/** Splits `items` into consecutive slices of at most `size`. */
export function chunked<T>(items: readonly T[], size: number): T[][] {
  if (size < 1) throw new Error('batch size must be at least 1');
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
