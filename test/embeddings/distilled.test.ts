import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { pieceWeight } from '../../src/embeddings/distilled/provider.ts';
import { createUseTokenizer } from '../../src/embeddings/distilled/tokenizer.ts';
import { readUseVocabulary, useTokenizer } from '../../src/embeddings/distilled/vocabulary.ts';
import { cosine, createDistilledUseProvider } from '../../src/embeddings/index.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('USE tokenizer reimplementation', () => {
  it('gives exactly the ids of the upstream tokenizer', async () => {
    const vocabulary = await readUseVocabulary();
    const upstream = useTokenizer(vocabulary);
    const fast = createUseTokenizer(vocabulary);
    const texts = [
      '',
      ' ',
      'Hello world',
      'Café ☕ naïve 😀 emoji 😀😀 ::: :) :-( http://example.com/a?b=c',
      'a  b   c',
      '日本語のテキスト',
      'The kitten slept on the rug. Grind size matters for espresso extraction!',
    ];
    // Plus real prose when the shared evaluation data sits beside the repository.
    const coffee = path.resolve(root, '../shared/data/coffee-stackexchange/corpus.jsonl');
    if (fs.existsSync(coffee)) {
      for (const line of fs.readFileSync(coffee, 'utf8').split('\n').filter(Boolean).slice(0, 60)) {
        texts.push(String((JSON.parse(line) as { text: string }).text));
      }
    }
    for (const t of texts) assert.deepEqual(fast(t), upstream(t), JSON.stringify(t).slice(0, 80));
  });

  it('weights pieces by smooth inverse frequency and ignores specials', () => {
    assert.equal(pieceWeight(null), 0);
    assert.equal(pieceWeight(0), 0);
    assert.ok(pieceWeight(-3.5) < 0.05, 'a very frequent piece ("▁the") is nearly ignored');
    assert.ok(pieceWeight(-12) > 0.99, 'a rare piece counts fully');
  });
});

describe('builtin/use-distilled-512d (static distillation of USE)', () => {
  const p = createDistilledUseProvider({ root });

  it('loads the committed artefact and embeds to unit 512-d vectors', async () => {
    assert.ok(fs.statSync(path.join(root, 'models/use-distilled-512d.i8.bin')).size < 5 * 2 ** 20);
    const [v, empty] = await p.embed(['Fresh espresso tastes better', '']);
    assert.equal(v?.length, 512);
    assert.ok(Math.abs(Math.hypot(...v!) - 1) < 1e-5);
    assert.ok(empty!.every((x) => x === 0));
  });

  it('puts paraphrases closer than unrelated sentences', async () => {
    const [cat, kitten, revenue] = await p.embed(['The cat rested on the carpet.', 'The kitten slept on the rug.', 'Quarterly revenue grew by eight percent.']);
    assert.ok(cosine(cat!, kitten!) > cosine(cat!, revenue!) + 0.2);
  });
});
