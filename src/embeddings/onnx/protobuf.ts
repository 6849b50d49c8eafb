/**
 * Just enough protobuf wire format to write ONNX models (varints, length-delimited fields, packed
 * numbers). Field numbers follow onnx/onnx.proto.
 */
export type Field = readonly [field: number, value: Uint8Array | bigint | number | string | readonly Uint8Array[]];

function varint(n: bigint): number[] {
  const out: number[] = [];
  let v = BigInt.asUintN(64, n);
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return out;
}

function tag(field: number, wireType: number): number[] {
  return varint(BigInt((field << 3) | wireType));
}

/** Encodes one message from its fields, in order. Numbers are varints; strings and bytes are length-delimited. */
export function message(fields: readonly Field[]): Uint8Array {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const push = (bytes: Uint8Array) => {
    chunks.push(bytes);
    size += bytes.length;
  };
  for (const [field, value] of fields) {
    if (typeof value === 'number' || typeof value === 'bigint') {
      push(Uint8Array.from([...tag(field, 0), ...varint(BigInt(value))]));
    } else if (typeof value === 'string') {
      const bytes = new TextEncoder().encode(value);
      push(Uint8Array.from([...tag(field, 2), ...varint(BigInt(bytes.length))]));
      push(bytes);
    } else if (value instanceof Uint8Array) {
      push(Uint8Array.from([...tag(field, 2), ...varint(BigInt(value.length))]));
      push(value);
    } else {
      for (const v of value) {
        push(Uint8Array.from([...tag(field, 2), ...varint(BigInt(v.length))]));
        push(v);
      }
    }
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
