import type { LinearMap, NeuralMap, TranslationMap } from './map.ts';

// Binary form of a map: "V2V1", u32 LE header length, JSON header (space-padded to 4 bytes), then the
// tensors as little-endian float32 in header order. Compact (4 bytes a weight) and loadable without copies.
const MAGIC = 'V2V1';

interface Header {
  readonly kind: 'linear' | 'neural';
  readonly method: LinearMap['method'];
  readonly sourceDim: number;
  readonly targetDim: number;
  readonly hidden?: number;
  readonly tensors: readonly (readonly [string, number])[];
}

function tensorsOf(map: TranslationMap): [string, Float32Array][] {
  if (map.kind === 'linear') return [['weight', map.weight], ['bias', map.bias]];
  return [
    ['weight', map.linear.weight],
    ['bias', map.linear.bias],
    ['w1', map.w1],
    ['b1', map.b1],
    ['w2', map.w2],
    ['b2', map.b2],
  ];
}

export function encodeMap(map: TranslationMap): Uint8Array {
  const tensors = tensorsOf(map);
  const header: Header = {
    kind: map.kind,
    method: map.kind === 'linear' ? map.method : map.linear.method,
    sourceDim: map.sourceDim,
    targetDim: map.targetDim,
    ...(map.kind === 'neural' ? { hidden: map.hidden } : {}),
    tensors: tensors.map(([name, t]) => [name, t.length] as const),
  };
  let json = JSON.stringify(header);
  while ((8 + json.length) % 4 !== 0) json += ' ';
  const total = 8 + json.length + tensors.reduce((s, [, t]) => s + t.length * 4, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  for (let i = 0; i < 4; i++) out[i] = MAGIC.charCodeAt(i);
  view.setUint32(4, json.length, true);
  out.set(new TextEncoder().encode(json), 8);
  let off = 8 + json.length;
  for (const [, t] of tensors) {
    for (let i = 0; i < t.length; i++) view.setFloat32(off + i * 4, t[i]!, true);
    off += t.length * 4;
  }
  return out;
}

export function decodeMap(bytes: Uint8Array): TranslationMap {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 8 || String.fromCharCode(...bytes.subarray(0, 4)) !== MAGIC) throw new Error('not a translation map (bad magic)');
  const len = view.getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + len))) as Header;
  const t = new Map<string, Float32Array>();
  let off = 8 + len;
  for (const [name, n] of header.tensors) {
    if (off + n * 4 > bytes.byteLength) throw new Error('translation map is truncated');
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = view.getFloat32(off + i * 4, true);
    t.set(name, a);
    off += n * 4;
  }
  const need = (name: string, n: number): Float32Array => {
    const a = t.get(name);
    if (!a || a.length !== n) throw new Error(`translation map tensor '${name}' is missing or has the wrong size`);
    return a;
  };
  const { sourceDim: dx, targetDim: dy } = header;
  const linear: LinearMap = { kind: 'linear', method: header.method, sourceDim: dx, targetDim: dy, weight: need('weight', dx * dy), bias: need('bias', dy) };
  if (header.kind === 'linear') return linear;
  const h = header.hidden ?? 0;
  const neural: NeuralMap = { kind: 'neural', sourceDim: dx, targetDim: dy, hidden: h, linear, w1: need('w1', dx * h), b1: need('b1', h), w2: need('w2', h * dy), b2: need('b2', dy) };
  return neural;
}
