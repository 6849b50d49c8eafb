import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cosine, createOnnxProvider, writeStaticModelFolder } from '../../src/embeddings/index.ts';

// The optional package is loaded on demand; without it (npm install --omit=optional) there is nothing to run.
let transformersMissing: string | false = false;
try {
  await import('@huggingface/transformers');
} catch {
  transformersMissing = 'the optional @huggingface/transformers package is not installed';
}

describe('onnx provider over a local Hugging Face-style folder', { skip: transformersMissing }, () => {
  let dir = '';
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atrium-onnx-'));
    // A real (tiny) ONNX model written by the test: a static embedding table behind a Gather node,
    // with a WordLevel tokenizer, run by onnxruntime-node exactly like MiniLM/BGE/E5 folders.
    await writeStaticModelFolder(
      path.join(dir, 'tiny-static'),
      ['coffee', 'espresso', 'beans', 'aircraft', 'wing'],
      [
        [1, 0, 0, 0],
        [0.9, 0.2, 0, 0],
        [0.7, 0, 0.3, 0],
        [0, 0, 0, 1],
        [0, 0, 0.4, 0.9],
      ],
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads the dimensions from config.json and names the model after the folder', () => {
    const p = createOnnxProvider({ path: path.join(dir, 'tiny-static') });
    assert.equal(p.id, 'onnx/tiny-static');
    assert.equal(p.dimensions, 4);
  });

  it('tokenizes, runs the ONNX graph, mean-pools over the attention mask and normalizes', async () => {
    const p = createOnnxProvider({ path: path.join(dir, 'tiny-static'), batchSize: 2 });
    try {
      const [coffee, pair, flight, unknown] = await p.embed(['Coffee', 'coffee espresso', 'aircraft wing', 'nothing known']);
      assert.deepEqual(Array.from(coffee!), [1, 0, 0, 0]);
      // mean of [1,0,0,0] and [0.9,0.2,0,0] = [0.95,0.1,0,0], normalized
      const n = Math.hypot(0.95, 0.1);
      assert.ok(Math.abs(pair![0]! - 0.95 / n) < 1e-6 && Math.abs(pair![1]! - 0.1 / n) < 1e-6);
      assert.ok(cosine(coffee!, pair!) > cosine(coffee!, flight!));
      // unknown words map to [UNK], whose row is zero
      assert.deepEqual(Array.from(unknown!), [0, 0, 0, 0]);
      // a padded batch (different lengths) pools each text over its own tokens only
      const [short, long] = await p.embed(['coffee', 'coffee coffee coffee espresso']);
      assert.deepEqual(Array.from(short!), [1, 0, 0, 0]);
      assert.ok(long![1]! > 0);
    } finally {
      await p.close?.();
    }
  });

  it('refuses a folder without the model files, naming what is missing', () => {
    fs.mkdirSync(path.join(dir, 'empty'));
    assert.throws(() => createOnnxProvider({ path: path.join(dir, 'empty') }), /lacks config\.json, tokenizer\.json, tokenizer_config\.json, onnx\/model\.onnx/);
  });
});
