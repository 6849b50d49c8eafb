/**
 * The compact binary cache of a word-vector table: vocabulary in frequency order plus Int8 vectors
 * with one Float32 scale per word (4× smaller than Float32; the averaged sentence vectors differ by
 * less than 0.1% in cosine, see format.test.ts). Layout, little-endian:
 *   "ATRWV001" | u32 dims | u32 count | u32 wordBytes | words (UTF-8, '\n'-joined, padded to 4)
 *   | f32 scales[count] | i8 values[count × dims]
 */
const MAGIC = 'ATRWV001';

export interface WordVectorTable {
  readonly dims: number;
  /** Words in corpus-frequency order: the index is the frequency rank. */
  readonly words: readonly string[];
  readonly scales: Float32Array;
  readonly values: Int8Array;
}

/** Quantizes `vectors` (count × dims, row-major) and serializes the table. */
export function encodeWordVectors(words: readonly string[], vectors: Float32Array, dims: number): Buffer {
  const count = words.length;
  if (vectors.length !== count * dims) throw new Error(`expected ${count * dims} values, got ${vectors.length}`);
  if (words.some((w) => w.includes('\n'))) throw new Error('a word contains a newline');
  const wordBytes = Buffer.from(words.join('\n'), 'utf8');
  const padded = Math.ceil(wordBytes.length / 4) * 4;
  const header = 8 + 12;
  const buf = Buffer.alloc(header + padded + count * 4 + count * dims);
  buf.write(MAGIC, 0, 'latin1');
  buf.writeUInt32LE(dims, 8);
  buf.writeUInt32LE(count, 12);
  buf.writeUInt32LE(wordBytes.length, 16);
  wordBytes.copy(buf, header);
  const scalesAt = header + padded;
  const valuesAt = scalesAt + count * 4;
  const out = new Int8Array(buf.buffer, buf.byteOffset + valuesAt, count * dims);
  for (let w = 0; w < count; w++) {
    let max = 0;
    for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(vectors[w * dims + d]!));
    const scale = max / 127;
    buf.writeFloatLE(scale, scalesAt + w * 4);
    for (let d = 0; d < dims; d++) {
      const q = scale === 0 ? 0 : Math.round(vectors[w * dims + d]! / scale);
      out[w * dims + d] = Math.max(-127, Math.min(127, q));
    }
  }
  return buf;
}

export function decodeWordVectors(buf: Buffer): WordVectorTable {
  if (buf.length < 20 || buf.toString('latin1', 0, 8) !== MAGIC) throw new Error('not an Atrium word-vector cache (bad magic)');
  const dims = buf.readUInt32LE(8);
  const count = buf.readUInt32LE(12);
  const wordBytes = buf.readUInt32LE(16);
  const padded = Math.ceil(wordBytes / 4) * 4;
  const scalesAt = 20 + padded;
  const valuesAt = scalesAt + count * 4;
  if (buf.length !== valuesAt + count * dims) throw new Error('word-vector cache is truncated or corrupt');
  const words = count === 0 ? [] : buf.toString('utf8', 20, 20 + wordBytes).split('\n');
  if (words.length !== count) throw new Error('word-vector cache vocabulary does not match its header');
  // Copy into aligned typed arrays (the Buffer may sit at an unaligned pool offset).
  const scales = new Float32Array(count);
  for (let i = 0; i < count; i++) scales[i] = buf.readFloatLE(scalesAt + i * 4);
  const values = new Int8Array(buf.buffer.slice(buf.byteOffset + valuesAt, buf.byteOffset + valuesAt + count * dims));
  return { dims, words, scales, values };
}
