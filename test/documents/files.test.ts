import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseFile, scanFolder } from '../../src/documents/index.ts';
import { makeDocx, makePdf } from './fixtures.ts';

describe('file parsers', () => {
  it('reads Markdown with its title', async () => {
    const p = await parseFile('a.md', Buffer.from('# Onboarding\n\nWelcome aboard.\n'));
    assert.equal(p.title, 'Onboarding');
    assert.match(p.content, /Welcome aboard/);
  });

  it('reads HTML as text with Markdown headings, without scripts', async () => {
    const html = '<html><head><title>Travel &amp; expenses</title><script>var x=1</script></head><body><h2>Per diem</h2><p>Meals are <b>reimbursed</b> up to 50 EUR.</p></body></html>';
    const p = await parseFile('t.html', Buffer.from(html));
    assert.equal(p.title, 'Travel & expenses');
    assert.match(p.content, /^## Per diem/m);
    assert.match(p.content, /Meals are reimbursed up to 50 EUR\./);
    assert.doesNotMatch(p.content, /var x/);
  });

  it('reads a PDF page by page', async () => {
    const p = await parseFile('r.pdf', makePdf(['Quarterly report', 'Revenue grew (strongly) in the north region.'], 'Q3 Report'));
    assert.equal(p.format, 'pdf');
    assert.equal(p.title, 'Q3 Report');
    assert.match(p.content, /Revenue grew \(strongly\) in the north region\./);
  });

  it('reads a DOCX with its heading', async () => {
    const p = await parseFile('d.docx', await makeDocx('Security policy', ['Rotate keys every ninety days.', 'Report incidents at once.']));
    assert.equal(p.title, 'Security policy');
    assert.match(p.content, /^# Security policy/m);
    assert.match(p.content, /Rotate keys every ninety days\./);
  });

  it('rejects a corrupt PDF with an error', async () => {
    await assert.rejects(parseFile('bad.pdf', Buffer.from('not a pdf at all')));
  });
});

describe('scanFolder', () => {
  let dir: string;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-scan-'));
    await fs.mkdir(path.join(dir, 'sub'));
    await fs.mkdir(path.join(dir, '.git'));
    await fs.writeFile(path.join(dir, 'readme.md'), '# Readme\n\nHello.');
    await fs.writeFile(path.join(dir, 'notes.txt'), 'plain notes');
    await fs.writeFile(path.join(dir, 'sub', 'page.html'), '<h1>Page</h1><p>Body</p>');
    await fs.writeFile(path.join(dir, 'sub', 'report.pdf'), makePdf(['Annual figures']));
    await fs.writeFile(path.join(dir, 'sub', 'policy.docx'), await makeDocx('Policy', ['Text.']));
    await fs.writeFile(path.join(dir, 'image.png'), Buffer.from([1, 2, 3]));
    await fs.writeFile(path.join(dir, '.git', 'config.txt'), 'hidden');
    await fs.writeFile(path.join(dir, 'broken.pdf'), 'garbage');
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  it('finds supported files, skips hidden ones, reports parse errors, and is incremental', async () => {
    const first = await scanFolder({ path: dir });
    assert.deepEqual(first.upserts.map((u) => u.external_id).sort(), ['notes.txt', 'readme.md', 'sub/page.html', 'sub/policy.docx', 'sub/report.pdf']);
    assert.deepEqual(first.errors.map((e) => e.path), ['broken.pdf']);
    assert.deepEqual(first.deletes, []);
    const readme = first.upserts.find((u) => u.external_id === 'readme.md');
    assert.equal(readme?.title, 'Readme');
    assert.equal(readme?.document_type, 'file');

    const second = await scanFolder({ path: dir }, first.state);
    assert.equal(second.upserts.length, 0, 'nothing changed, nothing re-read');
    assert.equal(second.unchanged, 5);

    // Touch without changing bytes: read and hashed again, but not re-parsed.
    const future = new Date(Date.now() + 5000);
    await fs.utimes(path.join(dir, 'notes.txt'), future, future);
    await fs.writeFile(path.join(dir, 'readme.md'), '# Readme\n\nHello again.');
    await fs.rm(path.join(dir, 'sub', 'page.html'));
    const third = await scanFolder({ path: dir }, second.state);
    assert.deepEqual(third.upserts.map((u) => u.external_id), ['readme.md']);
    assert.deepEqual(third.deletes, ['sub/page.html']);
    assert.ok(Math.abs((third.state.files['notes.txt']?.mtimeMs ?? 0) - future.getTime()) < 1, 'the new mtime is remembered');
  });

  it('honours include and exclude globs', async () => {
    const only = await scanFolder({ path: dir, include: ['sub/**'], exclude: ['**/*.pdf'] });
    assert.deepEqual(only.upserts.map((u) => u.external_id).sort(), ['sub/policy.docx']);
  });
});
