import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkDocument, overlapTail, splitBlocks, splitLong } from './chunker.ts';

const opts = { maxChars: 200, overlapChars: 40 };

describe('chunker', () => {
  it('keeps a short document in one chunk with its heading path', () => {
    const chunks = chunkDocument({ title: 'T', content: '# Guide\n\nShort text.' }, opts);
    assert.equal(chunks.length, 1);
    assert.equal(chunks[0]?.heading, 'Guide');
    assert.equal(chunks[0]?.content, '# Guide\n\nShort text.');
  });

  it('starts a new chunk at a heading once the current one is substantial, and tracks nested headings', () => {
    const para = 'Words about the topic here. '.repeat(3).trim();
    const md = `# A\n\n${para}\n\n## B\n\n${para}\n\n# C\n\n${para}`;
    const chunks = chunkDocument({ title: '', content: md }, opts);
    assert.deepEqual(chunks.map((c) => c.heading), ['A', 'A › B', 'C']);
    assert.ok(chunks[1]?.content.startsWith('## B'));
  });

  it('never leaves a heading alone at the end of a chunk: it opens the chunk of the text under it', () => {
    const long = Array.from({ length: 12 }, (_, i) => `Steam sentence ${i} about milk.`).join(' ');
    for (const intro of ['', 'Intro line.\n\n', `${'A first paragraph that fills part of the chunk, well past a quarter of it. '.repeat(2)}\n\n`]) {
      for (const body of [long, '```sh\n' + 'echo steam\n'.repeat(30) + '```', 'Short text under it, though the chunk before is full. '.repeat(3)]) {
        const chunks = chunkDocument({ title: '', content: `${intro}# Milk steaming\n\n## Pitcher\n\n${body}` }, opts);
        const i = chunks.findIndex((c) => c.content.includes('# Milk steaming'));
        const c = chunks[i]!;
        assert.ok(c.content.includes('## Pitcher'), 'nested headings stay together');
        assert.ok(c.content.trimEnd().length > c.content.indexOf('## Pitcher') + '## Pitcher'.length, `text follows the headings: ${JSON.stringify(c.content)}`);
        assert.equal(c.heading, 'Milk steaming › Pitcher');
        for (const x of chunks) assert.ok(x.content.length <= opts.maxChars, `chunk of ${x.content.length} chars`);
        if (intro.trim()) assert.ok(chunks.some((x) => x.content.includes(intro.trim().slice(0, 20))), 'the intro is kept');
        // Nothing lost, nothing duplicated beyond the overlap.
        assert.ok(chunks.map((x) => x.content).join(' ').includes(body.split('\n')[0]!.slice(0, 30)));
      }
    }
  });

  it('never cuts a fenced code block at a blank line inside it', () => {
    const code = '```js\nconst a = 1;\n\nconst b = 2;\n```';
    const blocks = splitBlocks(`intro\n\n${code}\n\noutro`);
    assert.deepEqual(blocks.map((b) => b.kind), ['paragraph', 'code', 'paragraph']);
    assert.equal(blocks[1]?.text, code);
  });

  it('splits long prose at sentence boundaries with overlap and never exceeds the size', () => {
    const sentences = Array.from({ length: 30 }, (_, i) => `Sentence number ${i} says something.`).join(' ');
    const chunks = chunkDocument({ title: '', content: sentences }, opts);
    assert.ok(chunks.length > 3);
    for (const c of chunks) assert.ok(c.content.length <= opts.maxChars, `chunk of ${c.content.length} chars`);
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1]?.content ?? '';
      const first = (chunks[i]?.content ?? '').split('. ')[0] ?? '';
      assert.ok(prev.includes(first), `chunk ${i} starts with the tail of chunk ${i - 1}`);
    }
    // Every sentence survives.
    const all = chunks.map((c) => c.content).join(' ');
    for (let i = 0; i < 30; i++) assert.ok(all.includes(`Sentence number ${i} says`));
  });

  it('treats each line of a message document as a message', () => {
    const blocks = splitBlocks('alice: hi\nbob: hello\ncarol: hey', 'message');
    assert.deepEqual(blocks.map((b) => b.kind), ['message', 'message', 'message']);
    assert.equal(splitBlocks('alice: hi\nbob: hello', 'page').length, 1);
  });

  it('hard-splits a giant token and numbers chunks in order', () => {
    const chunks = chunkDocument({ title: '', content: 'x'.repeat(1000) }, opts);
    assert.ok(chunks.length >= 5);
    assert.deepEqual(chunks.map((c) => c.ordinal), chunks.map((_, i) => i));
    for (const c of chunks) assert.ok(c.content.length <= opts.maxChars);
  });

  it('falls back to the title for an empty body and yields nothing for nothing', () => {
    assert.deepEqual(chunkDocument({ title: 'Only a title', content: '  ' }, opts).map((c) => c.content), ['Only a title']);
    assert.equal(chunkDocument({ title: '', content: '' }, opts).length, 0);
  });

  it('cuts overlap at a sentence or word boundary', () => {
    assert.equal(overlapTail('First one. Second sentence here.', 25), 'Second sentence here.');
    assert.equal(overlapTail('abc', 10), 'abc');
    assert.ok(!overlapTail('alpha beta gamma delta', 12).startsWith(' '));
    assert.deepEqual(splitLong('line1\nline2\nline3', 'code', 11), ['line1\nline2', 'line3']);
  });
});
