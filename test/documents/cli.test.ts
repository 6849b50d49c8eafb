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
    const sources = [...new Set(found.passages.map((p: { source_node: string }) => p.source_node))].sort();
    assert.equal(sources[0], 'api-kb');
    assert.equal(sources[1], summary.source);
    assert.match(summary.source, /^filesystem-folder-[0-9a-f]{8}$/, 'the folder name and a hash of its path');
    // Again: nothing changed, and the summary says so.
    const again = JSON.parse((await run(BIN, ['ingest', path.join(dir, 'folder'), '--no-embed', '--json'], { env })).stdout);
    assert.deepEqual([again.added, again.updated, again.unchanged, again.deleted], [0, 0, 2, 0]);
  });

  it('says what is wrong when the target or an option is', async () => {
    assert.match(await fails(['ingest', path.join(dir, 'nope')]), /nope: no such file or folder/);
    assert.match(await fails(['ingest', path.join(dir, 'folder', 'travel.txt')]), /expected a folder, a \.zip export/);
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

  const fails = async (args: string[]) => {
    const err = (await run(BIN, args, { env }).then(
      () => assert.fail(`${args.join(' ')} succeeded`),
      (e: { code: number; stderr: string }) => e,
    )) as { code: number; stderr: string };
    assert.notEqual(err.code, 0);
    return err.stderr;
  };
  const lexical = async (query: string, source: string) =>
    JSON.parse((await run(BIN, ['search', query, '--mode', 'lexical', '--source', source, '--json'], { env })).stdout).passages.map((p: { external_id: string }) => p.external_id);

  it('gives two folders of the same name two sources, and refuses to point a source at another folder', async () => {
    for (const [sub, word] of [['a', 'okapi'], ['b', 'tapir'], ['c', 'dugong']] as const) {
      await fs.mkdir(path.join(dir, sub, 'docs'), { recursive: true });
      await fs.writeFile(path.join(dir, sub, 'docs', `${word}.md`), `# ${word}\n\nThe ${word} page.`);
    }
    const ingest = async (folder: string, ...args: string[]) => JSON.parse((await run(BIN, ['ingest', folder, '--no-embed', '--json', ...args], { env })).stdout);
    const a = await ingest(path.join(dir, 'a', 'docs'));
    const b = await ingest(path.join(dir, 'b', 'docs'));
    assert.notEqual(a.source, b.source);
    assert.equal(b.deleted, 0, "the first folder's documents are not the second one's to delete");

    const err = await fails(['ingest', path.join(dir, 'b', 'docs'), '--source', a.source, '--no-embed']);
    assert.match(err, new RegExp(`source '${a.source}' indexes .*/a/docs, not .*/b/docs`));
    assert.match(err, /Pass another --source/);
    assert.deepEqual(await lexical('okapi', a.source), ['okapi.md'], "the first folder's documents are still there");

    // A source an older CLI made under the bare folder name keeps being used for its folder.
    await ingest(path.join(dir, 'c', 'docs'), '--source', 'filesystem-docs');
    assert.equal((await ingest(path.join(dir, 'c', 'docs'))).source, 'filesystem-docs');
  });

  it('checks a whole JSONL file before storing any of it and lists every bad line (the first 500 were stored before)', async () => {
    const lines = Array.from({ length: 600 }, (_, i) => JSON.stringify({ id: `p${i}`, title: `Part ${i}`, content: `wallaby part ${i}` }));
    lines[502] = '{"id": "p502", oops}';
    lines[549] = JSON.stringify({ id: 'p549', title: 't', content: 'c', update_at: '2026-01-01' });
    lines[559] = JSON.stringify({ id: { a: 1 }, title: 't', content: 'c' });
    lines[579] = JSON.stringify({ id: 'p579', title: 't', content: 'nul \u0000 here' });
    await fs.writeFile(path.join(dir, 'partial.jsonl'), lines.join('\n'));
    const err = await fails(['ingest', path.join(dir, 'partial.jsonl'), '--source', 'api-partial', '--no-embed']);
    assert.match(err, /partial\.jsonl: 4 invalid lines, nothing stored/);
    assert.match(err, /line 503: invalid JSON/);
    assert.match(err, /line 550: unknown field 'update_at'/);
    assert.match(err, /line 560: id: expected a string or a number/);
    assert.match(err, /line 580: content: contains a NUL character/);
    assert.deepEqual(await lexical('wallaby', 'api-partial'), []);
  });

  it('reads a JSONL file that starts with a byte order mark and has CRLF line ends', async () => {
    const body = [JSON.stringify({ id: 'j1', title: 'One', content: 'bom first lynx' }), JSON.stringify({ _id: 'j2', title: 'Two', text: 'bom second puma' })].join('\r\n');
    await fs.writeFile(path.join(dir, 'bom.jsonl'), `\uFEFF${body}\r\n`);
    const r = JSON.parse((await run(BIN, ['ingest', path.join(dir, 'bom.jsonl'), '--no-embed', '--json'], { env })).stdout);
    assert.equal(r.added, 2);
    assert.deepEqual(await lexical('lynx', r.source), ['j1']);
  });

  it('gives two JSONL files of the same name two sources (their ids would overwrite each other), and re-ingests each into its own', async () => {
    const files = ['east', 'west'].map((d) => path.join(dir, d, 'export.jsonl'));
    for (const [i, f] of files.entries()) {
      await fs.mkdir(path.dirname(f), { recursive: true });
      await fs.writeFile(f, `${JSON.stringify({ id: 'same-id', title: `Export ${i}`, content: i === 0 ? 'eastern heron' : 'western egret' })}\n`);
    }
    const ingest = async (f: string) => JSON.parse((await run(BIN, ['ingest', f, '--no-embed', '--json'], { env })).stdout) as { source: string; added: number; unchanged: number };
    const east = await ingest(files[0]!);
    const west = await ingest(files[1]!);
    assert.match(east.source, /^api-export-[0-9a-f]{8}$/);
    assert.match(west.source, /^api-export-[0-9a-f]{8}$/);
    assert.notEqual(east.source, west.source);
    assert.deepEqual(await lexical('heron', east.source), ['same-id'], 'the first file’s document was not overwritten');
    assert.deepEqual(await lexical('egret', west.source), ['same-id']);
    const again = await ingest(files[0]!);
    assert.deepEqual([again.source, again.added, again.unchanged], [east.source, 0, 1]);
  });
});
