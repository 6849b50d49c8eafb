import os from 'node:os';

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
  /** Number of words (rows). */
  readonly count: number;
  /** Words in corpus-frequency order: the index is the frequency rank (decoded on first read). */
  readonly words: readonly string[];
  /** The vocabulary as stored: UTF-8 words joined by '\n'; word i spans bytes [starts[i], starts[i + 1] - 1). */
  readonly vocabulary: Uint8Array;
  readonly starts: Int32Array;
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

/**
 * Reads a table in place: the vectors and scales are views of `buf` (no copy, no object per word; issue 29,
 * the 38 MB GloVe cache opens in tens of ms). `words` is decoded only when read.
 */
export function decodeWordVectors(buf: Buffer): WordVectorTable {
  if (buf.length < 20 || buf.toString('latin1', 0, 8) !== MAGIC) throw new Error('not an Atrium word-vector cache (bad magic)');
  const dims = buf.readUInt32LE(8);
  const count = buf.readUInt32LE(12);
  const wordBytes = buf.readUInt32LE(16);
  const padded = Math.ceil(wordBytes / 4) * 4;
  const scalesAt = 20 + padded;
  const valuesAt = scalesAt + count * 4;
  if (buf.length !== valuesAt + count * dims) throw new Error('word-vector cache is truncated or corrupt');
  const vocabulary = new Uint8Array(buf.buffer, buf.byteOffset + 20, wordBytes);
  const starts = wordStarts(vocabulary, count);
  if (!starts) throw new Error('word-vector cache vocabulary does not match its header');
  // A view where the bytes are aligned and little-endian (readFileSync of a file this size gets its own
  // buffer at offset 0); a copy otherwise (a Buffer from the shared pool, a big-endian machine).
  let scales: Float32Array;
  if ((buf.byteOffset + scalesAt) % 4 === 0 && os.endianness() === 'LE') scales = new Float32Array(buf.buffer, buf.byteOffset + scalesAt, count);
  else {
    scales = new Float32Array(count);
    for (let i = 0; i < count; i++) scales[i] = buf.readFloatLE(scalesAt + i * 4);
  }
  const values = new Int8Array(buf.buffer, buf.byteOffset + valuesAt, count * dims);
  let words: string[] | undefined;
  return {
    dims,
    count,
    vocabulary,
    starts,
    scales,
    values,
    get words() {
      words ??= count === 0 ? [] : buf.toString('utf8', 20, 20 + wordBytes).split('\n');
      return words;
    },
  };
}

const NEWLINE = 0x0a;

/** Where each of the `count` words starts (and a last entry one past the end), or null if the count is wrong. */
function wordStarts(vocabulary: Uint8Array, count: number): Int32Array | null {
  const starts = new Int32Array(count + 1);
  if (count === 0) return vocabulary.length === 0 ? starts : null;
  let n = 1;
  for (let i = 0; i < vocabulary.length; i++) {
    if (vocabulary[i] !== NEWLINE) continue;
    if (n >= count) return null;
    starts[n++] = i + 1;
  }
  if (n !== count) return null;
  starts[count] = vocabulary.length + 1;
  return starts;
}
