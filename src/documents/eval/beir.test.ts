import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadBeir } from './beir.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'atrium-beir-'));
let n = 0;
function dataset(files: { corpus?: string; queries?: string; qrels?: string; qrelsPath?: string }): string {
  const dir = path.join(root, String(++n));
  fs.mkdirSync(path.join(dir, 'qrels'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'corpus.jsonl'), files.corpus ?? '{"_id":"d1","title":"A","text":"alpha"}\n{"_id":"d2","text":"beta"}\n');
  fs.writeFileSync(path.join(dir, 'queries.jsonl'), files.queries ?? '{"_id":"q1","text":"alpha"}\n{"_id":"q2","text":"gamma"}\n');
  fs.writeFileSync(path.join(dir, files.qrelsPath ?? 'qrels.tsv'), files.qrels ?? 'query-id\tcorpus-id\tscore\nq1\td1\t1\n');
  return dir;
}

describe('BEIR dataset loading', () => {
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('reads the BEIR layout, qrels/test.tsv and TREC-style (4 columns, spaces) qrels', async () => {
    const plain = await loadBeir(dataset({}));
    assert.deepEqual([plain.docs.length, plain.queries.length, plain.qrels.get('q1')?.get('d1')], [2, 2, 1]);
    const nested = await loadBeir(dataset({ qrelsPath: 'qrels/test.tsv' }));
    assert.equal(nested.qrels.get('q1')?.get('d1'), 1);
    const trec = await loadBeir(dataset({ qrels: 'q1 0 d1 2\nq1 0 d2 0\n' }));
    assert.deepEqual([...(trec.qrels.get('q1') ?? [])], [['d1', 2], ['d2', 0]]);
    const spaced = await loadBeir(dataset({ qrels: 'q1 d1 1\n' }));
    assert.equal(spaced.qrels.get('q1')?.get('d1'), 1);
  });

  it('refuses what would silently skew the metrics, naming the file and line', async () => {
    await assert.rejects(loadBeir(dataset({ corpus: '{"_id":"d1","text":"a"}\n{"_id":"d1","text":"tea"}\n' })), /corpus\.jsonl:2: duplicate _id 'd1' \(first on line 1\)/);
    await assert.rejects(loadBeir(dataset({ queries: '{"_id":"q1","text":"a"}\n{"_id":"q1","text":"b"}\n' })), /queries\.jsonl:2: duplicate _id 'q1'/);
    await assert.rejects(loadBeir(dataset({ corpus: '\n' })), /the corpus is empty/);
    await assert.rejects(loadBeir(dataset({ qrels: 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\tx\n' })), /qrels\.tsv:3: expected .*numeric score/);
    await assert.rejects(loadBeir(dataset({ qrels: 'query-id\tcorpus-id\tscore\nq9\td1\t1\n' })), /judges none of the 2 queries/);
  });
});
