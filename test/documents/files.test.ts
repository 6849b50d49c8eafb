import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { type FolderSettings, type FolderState, parseFile, type ScanResult, scanFolder } from '../../src/documents/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { makeDocx, makePdf } from './fixtures.ts';

const REPO = path.resolve(import.meta.dirname, '../..');

/**
 * scanFolder run by a user that folders with mode 000 keep out. Root reads them anyway, so as root the scan
 * runs in a child process as `nobody` (how a server meets a root-owned 0700 `.git`).
 */
async function scanAsUser(settings: FolderSettings, previous: FolderState | null): Promise<ScanResult> {
  if (process.getuid?.() !== 0) return scanFolder(settings, previous);
  const scanner = pathToFileURL(path.join(REPO, 'src/documents/files/scan.ts')).href;
  const script = `import { scanFolder } from ${JSON.stringify(scanner)};
const [s, p] = JSON.parse(process.argv[1]);
process.stdout.write(JSON.stringify(await scanFolder(s, p)));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, JSON.stringify([settings, previous])], {
    cwd: REPO,
    uid: 65534,
    gid: 65534,
  });
  return JSON.parse(stdout) as ScanResult;
}

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

  it('reports a file with NUL bytes as binary content and strips NUL characters from what a PDF holds', async () => {
    const d = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-scan-nul-'));
    try {
      await fs.writeFile(path.join(d, 'good.txt'), 'good text');
      await fs.writeFile(path.join(d, 'nul.txt'), Buffer.from('PK\u0003\u0004\u0000\u0000binary', 'latin1'));
      await fs.writeFile(path.join(d, 'r.pdf'), makePdf(['Null\u0000byte inside'], 'Ti\u0000tle'));
      const r = await scanFolder({ path: d });
      assert.deepEqual(r.errors, [{ path: 'nul.txt', message: 'binary content, not text' }]);
      assert.deepEqual(r.upserts.map((u) => u.external_id), ['good.txt', 'r.pdf']);
      const pdf = r.upserts.find((u) => u.external_id === 'r.pdf');
      assert.equal(pdf?.title, 'Title', 'pdf.js hands the info Title over with its NUL');
      assert.ok(!pdf?.content.includes('\u0000'));
    } finally {
      await fs.rm(d, { recursive: true, force: true });
    }
  });

  it('reports an unreadable sub-folder and goes on, keeping what it held, and does not enter excluded folders', async () => {
    const d = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-scan-perm-'));
    const locked = ['locked', '.git', 'node_modules', 'build', 'out/BUILD'];
    try {
      await fs.chmod(d, 0o755);
      for (const f of ['ok/a.md', 'locked/b.md', '.git/c.md', 'node_modules/p/d.md', 'build/e.md', 'out/BUILD/f.md', 'zz.txt']) {
        await fs.mkdir(path.dirname(path.join(d, f)), { recursive: true });
        await fs.writeFile(path.join(d, f), `# ${f}`);
      }
      const settings = { path: d, exclude: ['build/**', '**/build/**'] };
      const first = await scanFolder(settings);
      assert.deepEqual(first.upserts.map((u) => u.external_id), ['locked/b.md', 'ok/a.md', 'zz.txt'], 'excluded folders case-insensitively');
      for (const f of locked) await fs.chmod(path.join(d, f), 0o000);

      const second = await scanAsUser(settings, first.state);
      assert.equal(second.errors.length, 1, JSON.stringify(second.errors));
      assert.equal(second.errors[0]?.path, 'locked/');
      assert.match(second.errors[0]?.message ?? '', /cannot read folder \(EACCES\)/);
      assert.deepEqual(second.deletes, [], 'an unreadable folder is not a deleted one');
      assert.deepEqual(Object.keys(second.state.files).sort(), ['locked/b.md', 'ok/a.md', 'zz.txt']);
      assert.equal(second.unchanged, 2);
    } finally {
      for (const f of locked) await fs.chmod(path.join(d, f), 0o755).catch(() => {});
      await fs.rm(d, { recursive: true, force: true });
    }
  });

  it('gives documents a percent-encoded file URL', async () => {
    const d = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-scan-url-'));
    try {
      await fs.writeFile(path.join(d, 'a#b%20c d.txt'), 'x');
      const [u] = (await scanFolder({ path: d })).upserts;
      assert.equal(u?.url, `${pathToFileURL(d).href}/a%23b%2520c%20d.txt`);
      assert.equal(new URL(u?.url ?? '').pathname.endsWith('/a%23b%2520c%20d.txt'), true);
    } finally {
      await fs.rm(d, { recursive: true, force: true });
    }
  });

  it('matches exclude globs case-insensitively, as include globs are', async () => {
    const r = await scanFolder({ path: dir, exclude: ['**/*.PDF', 'SUB/*.DOCX'] });
    assert.deepEqual(r.upserts.map((u) => u.external_id).sort(), ['notes.txt', 'readme.md']);
  });
});

describe('NUL characters pushed with documents', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    await t.db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name, status) VALUES ('api-nul', 'default', 'api', 'nul', 'connected')`);
  });
  after(() => t.close());

  it('refuses them with 400 naming the field (PostgreSQL cannot store one), and stores nothing of the batch', async () => {
    const push = (doc: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/connectors/api-nul/documents',
        headers: t.admin,
        payload: { documents: [{ external_id: 'fine', title: 'Fine', content: 'fine' }, { external_id: 'n', title: 'T', content: 'c', ...doc }] },
      });
    for (const [doc, field] of [
      [{ content: 'a\u0000b' }, 'body.documents.1.content'],
      [{ title: 'T\u0000' }, 'body.documents.1.title'],
      [{ metadata: { tags: ['x\u0000'] } }, 'body.documents.1.metadata'],
      [{ metadata: { 'k\u0000': 1 } }, 'body.documents.1.metadata'],
    ] as const) {
      const r = await push(doc);
      assert.equal(r.statusCode, 400, r.body);
      assert.match(r.body, /NUL character/);
      assert.ok(r.body.includes(field), `${field} in ${r.body}`);
    }
    const n = (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM documents WHERE source_node = 'api-nul'`)).rows[0]?.n;
    assert.equal(n, 0);
  });
});

