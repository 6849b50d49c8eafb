import { message } from './protobuf.ts';

const FLOAT = 1;
const INT64 = 7;

/** A TypeProto for a tensor of `elemType` with named (symbolic) or fixed dimensions. */
function tensorType(elemType: number, dims: readonly (string | number)[]): Uint8Array {
  const shape = message(dims.map((d) => [1, message([typeof d === 'number' ? [1, d] : [2, d]])] as const));
  return message([[1, message([[1, elemType], [2, shape]])]]);
}

function valueInfo(name: string, elemType: number, dims: readonly (string | number)[]): Uint8Array {
  return message([[1, name], [2, tensorType(elemType, dims)]]);
}

/**
 * An ONNX model of a static embedding table, shaped like a Hugging Face encoder: inputs `input_ids`
 * and `attention_mask` (int64 [batch, sequence]), output `last_hidden_state` = Gather(table, ids)
 * ([batch, sequence, dims]); the pipeline's mean pooling turns it into one vector per text. Used to
 * export distilled static models and to test the ONNX provider with a real model file.
 */
export function staticEmbeddingOnnx(table: Float32Array, vocabSize: number, dims: number): Uint8Array {
  if (table.length !== vocabSize * dims) throw new Error(`table has ${table.length} values, expected ${vocabSize * dims}`);
  const raw = new Uint8Array(table.buffer.slice(table.byteOffset, table.byteOffset + table.byteLength));
  const initializer = message([
    [1, vocabSize],
    [1, dims],
    [2, FLOAT],
    [8, 'embeddings'],
    [9, raw],
  ]);
  // attention_mask is declared so tokenizers' outputs are accepted; Identity keeps it a used input.
  const gather = message([[1, ['embeddings', 'input_ids'].map((s) => new TextEncoder().encode(s))], [2, 'last_hidden_state'], [3, 'gather'], [4, 'Gather']]);
  const keepMask = message([[1, 'attention_mask'], [2, 'mask_out'], [3, 'keep_mask'], [4, 'Identity']]);
  const graph = message([
    [1, [gather, keepMask]],
    [2, 'static_embedding'],
    [5, [initializer]],
    [11, [valueInfo('input_ids', INT64, ['batch', 'sequence']), valueInfo('attention_mask', INT64, ['batch', 'sequence'])]],
    [12, [valueInfo('last_hidden_state', FLOAT, ['batch', 'sequence', dims]), valueInfo('mask_out', INT64, ['batch', 'sequence'])]],
  ]);
  return message([
    [1, 8],
    [2, 'atrium'],
    [7, graph],
    [8, message([[1, ''], [2, 13]])],
  ]);
}
