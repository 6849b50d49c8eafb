import fs from 'node:fs/promises';
import path from 'node:path';
import { staticEmbeddingOnnx } from './static-model.ts';

/**
 * Writes a Hugging Face-style folder for a static word-level model: a WordLevel tokenizer over
 * `vocab` (index 0 = [UNK], 1 = [PAD] are added) and an ONNX Gather over `vectors` (one per word).
 */
export async function writeStaticModelFolder(dir: string, vocab: readonly string[], vectors: readonly (readonly number[])[]): Promise<void> {
  const dims = vectors[0]?.length ?? 0;
  if (vectors.length !== vocab.length || dims === 0) throw new Error('one non-empty vector per word is required');
  const words = ['[UNK]', '[PAD]', ...vocab];
  const table = new Float32Array(words.length * dims);
  for (const [i, v] of vectors.entries()) table.set(v, (i + 2) * dims);
  await fs.mkdir(path.join(dir, 'onnx'), { recursive: true });
  await fs.writeFile(path.join(dir, 'onnx', 'model.onnx'), staticEmbeddingOnnx(table, words.length, dims));
  const special = (id: number, content: string) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [special(0, '[UNK]'), special(1, '[PAD]')],
    normalizer: { type: 'Lowercase' },
    pre_tokenizer: { type: 'Whitespace' },
    post_processor: null,
    decoder: null,
    model: { type: 'WordLevel', vocab: Object.fromEntries(words.map((w, i) => [w, i])), unk_token: '[UNK]' },
  };
  await fs.writeFile(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
  await fs.writeFile(
    path.join(dir, 'tokenizer_config.json'),
    JSON.stringify({ tokenizer_class: 'PreTrainedTokenizerFast', model_max_length: 512, pad_token: '[PAD]', unk_token: '[UNK]' }),
  );
  await fs.writeFile(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'bert', hidden_size: dims, architectures: ['BertModel'] }));
}
