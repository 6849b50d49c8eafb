import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { markdownTitle, parseFile } from './parsers.ts';

const utf8 = (s: string) => Buffer.from(s, 'utf8');

describe('text decoding', () => {
  it('reports a text, Markdown or HTML file with NUL bytes as binary content', async () => {
    for (const file of ['a.txt', 'a.md', 'a.html']) {
      await assert.rejects(parseFile(file, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x41])), /binary content, not text/, file);
    }
  });

  it('drops a NUL character past the sniffed start instead of handing it on', async () => {
    const p = await parseFile('log.txt', utf8(`${'a'.repeat(9000)}\u0000tail`));
    assert.ok(!p.content.includes('\u0000'));
    assert.match(p.content, /atail$/);
  });

  it('reads invalid UTF-8 as Windows-1252, so Latin-1 text stays searchable', async () => {
    assert.equal((await parseFile('l.txt', Buffer.from('Café crème', 'latin1'))).content, 'Café crème');
    assert.equal((await parseFile('w.txt', Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x80]))).content, 'Café €');
    assert.equal((await parseFile('u.txt', utf8('\uFEFFCafé 日本'))).content, 'Café 日本', 'valid UTF-8, its BOM dropped');
    assert.equal((await parseFile('u16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Café', 'utf16le')]))).content, 'Café');
  });
});

describe('Markdown', () => {
  it('takes no title from a # comment in a fenced code block', async () => {
    const p = await parseFile('c.md', utf8('```sh\n# install deps\nnpm i\n```\n\n# Real Title\n\nQuokka.'));
    assert.equal(p.title, 'Real Title');
    assert.equal(markdownTitle('~~~~\n# not this\n~~~\n# still code\n~~~~\n# Title\n'), 'Title');
    assert.equal(markdownTitle('# C# in depth\n'), 'C# in depth');
    assert.equal(markdownTitle('```\n# only code\n```\n'), null);
  });

  it('reads front matter only at the very start, with CRLF line ends too, and leaves it out of the content', async () => {
    const crlf = await parseFile('c.md', utf8('---\r\ntitle: CRLF Title\r\n---\r\n\r\n# CRLF heading\r\n\r\nWombat.\r\n'));
    assert.equal(crlf.title, 'CRLF Title');
    assert.doesNotMatch(crlf.content, /title:/);
    assert.match(crlf.content, /^\r\n# CRLF heading/);

    const fm = await parseFile('f.md', utf8('\uFEFF---\ntitle: "Front Matter Title"\nauthor: Jane\n---\n\n# Heading One\n\nAlpha.\n'));
    assert.equal(fm.title, 'Front Matter Title');
    assert.equal(fm.content, '\n# Heading One\n\nAlpha.\n');

    // Two horizontal rules are not front matter, and a title: line between them is text.
    const hr = await parseFile('h.md', utf8('Intro text.\n\n---\n\ntitle: not front matter\n\n---\n\n# Actual Heading\n\nPlatypus.\n'));
    assert.equal(hr.title, 'Actual Heading');
    assert.match(hr.content, /^Intro text\.[\s\S]*title: not front matter/);
  });
});

describe('HTML', () => {
  it('keeps table cells, noscript and template text apart', async () => {
    const html =
      '<h2>Second</h2><table><tr><th>H1</th></tr><tr><td>htmltablecell</td></tr></table>' +
      '<table><tr><th>Name</th><th>Role</th></tr><tr>\n<td>Alice <b>Smith</b></td>\n<td>Engineer</td></tr></table>' +
      '<noscript>noscriptword</noscript><template>templateword</template><footer>footerword</footer>';
    const p = await parseFile('t.html', utf8(html));
    assert.match(p.content, /^H1$/m);
    assert.match(p.content, /^htmltablecell$/m);
    assert.match(p.content, /^Name \| Role$/m);
    assert.match(p.content, /^Alice Smith \| Engineer$/m);
    assert.match(p.content, /^noscriptword$/m);
    assert.match(p.content, /^templateword$/m);
  });

  it('decodes named and numeric character references in the title', async () => {
    const p = await parseFile('p.html', utf8('<html><head><title>Tom &amp; Jerry&#8217;s &#x263A;\n Page</title></head><body>x</body></html>'));
    assert.equal(p.title, 'Tom & Jerry\u2019s \u263A Page');
  });
});
