import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/atrium');

describe('atrium ingest / search / eval', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-doc-cli-'));
    env = { ...process.env, ATRIUM_DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'silent', ATRIUM_SECRET_KEY: 'cli-test' };
    await fs.mkdir(path.join(dir, 'folder'));
    await fs.writeFile(path.join(dir, 'folder', 'leave.md'), '# Leave\n\nEmployees get twenty-five days of paid leave.');
    await fs.writeFile(path.join(dir, 'folder', 'travel.txt'), 'Book trains for trips under four hours.');
    await fs.writeFile(path.join(dir, 'kb.jsonl'), `${JSON.stringify({ _id: 'k1', title: 'Printers', text: 'The third floor printer jams on glossy paper.' })}\n`);
    const beir = path.join(dir, 'beir');
    await fs.mkdir(beir);
    await fs.writeFile(
      path.join(beir, 'corpus.jsonl'),
      ['a', 'b', 'c'].map((id, i) => JSON.stringify({ _id: id, title: '', text: ['red apples and pears', 'blue ocean waves', 'green forest trails'][i] })).join('\n'),
    );
    await fs.writeFile(path.join(beir, 'queries.jsonl'), [JSON.stringify({ _id: 'q1', text: 'ocean' }), JSON.stringify({ _id: 'q2', text: 'forest walk' })].join('\n'));
    await fs.writeFile(path.join(beir, 'qrels.tsv'), 'query-id\tcorpus-id\tscore\nq1\tb\t1\nq2\tc\t1\n');
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  it('ingests a folder and a JSONL file, then finds both', async () => {
    const folder = await run(BIN, ['ingest', path.join(dir, 'folder'), '--no-embed', '--json'], { env });
    const summary = JSON.parse(folder.stdout);
    assert.equal(summary.added, 2);
    assert.match(folder.stderr, /ingest: 2\/2 100%/);
    await run(BIN, ['ingest', path.join(dir, 'kb.jsonl'), '--source', 'api-kb', '--no-embed'], { env });
    const found = JSON.parse((await run(BIN, ['search', 'paid leave printer jams', '--mode', 'lexical', '--json'], { env })).stdout);
    assert.deepEqual(new Set(found.passages.map((p: { external_id: string }) => p.external_id)), new Set(['leave.md', 'k1']));
    assert.deepEqual(new Set(found.passages.map((p: { source_node: string }) => p.source_node)), new Set(['filesystem-folder', 'api-kb']));
    // Again: nothing changed, and the summary says so.
    const again = JSON.parse((await run(BIN, ['ingest', path.join(dir, 'folder'), '--no-embed', '--json'], { env })).stdout);
    assert.deepEqual([again.added, again.updated, again.unchanged, again.deleted], [0, 0, 2, 0]);
  });

  it('says what is wrong when the target or an option is', async () => {
    const fails = async (args: string[]) => {
      const err = (await run(BIN, args, { env }).then(
        () => assert.fail(`${args.join(' ')} succeeded`),
        (e: { code: number; stderr: string }) => e,
      )) as { code: number; stderr: string };
      assert.notEqual(err.code, 0);
      return err.stderr;
    };
    assert.match(await fails(['ingest', path.join(dir, 'nope')]), /nope: no such file or folder/);
    assert.match(await fails(['ingest', path.join(dir, 'folder', 'travel.txt')]), /expected a folder or a \.jsonl file/);
    assert.match(await fails(['search', 'x', '--mode', 'bogus']), /Allowed choices are hybrid, lexical, vector/);
  });

  it('evaluates a BEIR folder and prints the documented JSON keys', async () => {
    const out = await run(BIN, ['eval', '--dataset', path.join(dir, 'beir'), '--lexical-only', '--json'], { env });
    const r = JSON.parse(out.stdout);
    for (const k of ['ndcg_at_10', 'recall_at_100', 'mrr_at_10', 'p50_ms', 'p95_ms', 'docs', 'queries']) assert.ok(k in r, k);
    assert.equal(r.docs, 3);
    assert.equal(r.queries, 2);
    assert.equal(r.ndcg_at_10, 1, 'both queries have their one relevant document first');
  });
});
