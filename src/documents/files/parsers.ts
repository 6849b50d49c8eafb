import path from 'node:path';
import { compile, type HtmlToTextOptions } from 'html-to-text';

/** Text extracted from one file, ready to be a document. */
export interface ParsedFile {
  readonly title: string | null;
  readonly content: string;
  readonly format: FileFormat;
}

export type FileFormat = 'markdown' | 'text' | 'html' | 'pdf' | 'docx';

const EXTENSIONS: Readonly<Record<string, FileFormat>> = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdx': 'markdown',
  '.txt': 'text',
  '.text': 'text',
  '.rst': 'text',
  '.log': 'text',
  '.csv': 'text',
  '.html': 'html',
  '.htm': 'html',
  '.xhtml': 'html',
  '.pdf': 'pdf',
  '.docx': 'docx',
};

export const SUPPORTED_EXTENSIONS = Object.keys(EXTENSIONS);

export function formatOf(file: string): FileFormat | null {
  return EXTENSIONS[path.extname(file).toLowerCase()] ?? null;
}

type Sibling = { readonly prev?: Sibling | null; readonly type?: string; readonly data?: string };

// Headings become Markdown headings so the chunker sees the document's structure. Table rows become lines
// with their cells separated by ` | ` (html-to-text would run the cells of a layout table together, and its
// dataTable format pads every cell to its column's width, which fills chunks with spaces).
const headingSelectors = [1, 2, 3, 4, 5, 6].map((level) => ({ selector: `h${level}`, format: 'mdHeading', options: { level } }));
const lineBlock = { leadingLineBreaks: 1, trailingLineBreaks: 1 };
const htmlOptions: HtmlToTextOptions = {
  wordwrap: false,
  formatters: {
    mdHeading(elem, walk, builder, formatOptions) {
      const level = Number((formatOptions as { level?: number }).level ?? 1);
      builder.openBlock({ leadingLineBreaks: 2 });
      builder.addLiteral(`${'#'.repeat(level)} `);
      walk(elem.children, builder);
      builder.closeBlock({ trailingLineBreaks: 2 });
    },
    tableCell(elem, walk, builder) {
      let prev = (elem as Sibling).prev;
      while (prev && prev.type === 'text' && !prev.data?.trim()) prev = prev.prev;
      if (prev) builder.addInline(' | ');
      walk(elem.children, builder);
    },
  },
  selectors: [
    ...headingSelectors,
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'script', format: 'skip' },
    { selector: 'style', format: 'skip' },
    { selector: 'nav', format: 'skip' },
    { selector: 'table', format: 'block', options: lineBlock },
    { selector: 'caption', format: 'block', options: lineBlock },
    { selector: 'tr', format: 'block', options: lineBlock },
    { selector: 'td', format: 'tableCell' },
    { selector: 'th', format: 'tableCell' },
    { selector: 'dt', format: 'block', options: lineBlock },
    { selector: 'dd', format: 'block', options: lineBlock },
    { selector: 'noscript', format: 'block', options: lineBlock },
    { selector: 'template', format: 'block', options: lineBlock },
  ],
};
const htmlToText = compile(htmlOptions);
// <title> holds text with character references (named and numeric), no markup.
const titleToText = compile({ wordwrap: false });

export function parseHtml(html: string): { title: string | null; content: string } {
  const m = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  const title = m?.[1] ? titleToText(m[1]).replace(/\s+/g, ' ').trim() || null : null;
  return { title, content: htmlToText(html).trim() };
}

/**
 * Front matter is a `---` line at the very start of the file (after an optional byte order mark), up to the
 * next `---` (or `...`) line; CRLF line ends are accepted. Anywhere else a `---` pair is two horizontal rules.
 */
const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

/** Splits a Markdown file into its front matter (null when it has none) and its body. */
export function splitFrontMatter(md: string): { front: string | null; body: string } {
  const m = FRONT_MATTER.exec(md);
  return m ? { front: m[1] ?? '', body: md.slice(m[0].length) } : { front: null, body: md };
}

/** The front matter's `title`, else the first `#` heading outside fenced code blocks. */
export function markdownTitle(md: string): string | null {
  const { front, body } = splitFrontMatter(md);
  const t = front === null ? null : /^title:[ \t]*["']?(.+?)["']?[ \t]*$/m.exec(front);
  if (t?.[1]) return t[1];
  let fence: string | null = null;
  for (const line of body.split(/\r?\n/)) {
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f?.[1]) {
      // A fence closes with at least as many of the same character.
      if (fence === null) fence = f[1];
      else if (f[1][0] === fence[0] && f[1].length >= fence.length) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const h = /^\s{0,3}#[ \t]+(.+?)[ \t]*#*[ \t]*$/.exec(line);
    if (h?.[1]) return h[1];
  }
  return null;
}

async function parsePdf(bytes: Uint8Array): Promise<{ title: string | null; content: string }> {
  // The legacy build runs on Node 20 without DOM globals; no eval, no font loading. pdf.js wants a
  // plain Uint8Array (not a Buffer) and may detach it: hand it a copy.
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  try {
    const pages: string[] = [];
    for (let i = 1; i <= doc.numPages; i++) {
      const page = await doc.getPage(i);
      const text = await page.getTextContent();
      let out = '';
      for (const item of text.items) {
        if (!('str' in item)) continue;
        out += item.str;
        if (item.hasEOL) out += '\n';
        else if (item.str && !item.str.endsWith(' ')) out += ' ';
      }
      pages.push(out.replace(/[ \t]+\n/g, '\n').trim());
      page.cleanup();
    }
    const meta = await doc.getMetadata().catch(() => null);
    const info = (meta?.info ?? {}) as { Title?: unknown };
    const title = typeof info.Title === 'string' && info.Title.trim() ? info.Title.trim() : null;
    return { title, content: pages.filter(Boolean).join('\n\n') };
  } finally {
    await doc.destroy();
  }
}

async function parseDocx(bytes: Uint8Array): Promise<{ title: string | null; content: string }> {
  const mammoth = await import('mammoth');
  const { value } = await mammoth.convertToHtml({ buffer: Buffer.from(bytes) });
  const { content } = parseHtml(value);
  return { title: markdownTitle(content), content };
}

/** Bytes looked at for NUL bytes: text in any 8-bit encoding or UTF-8 has none; binary files almost always do. */
const SNIFF_BYTES = 8192;

/**
 * Decodes a text file: UTF-16 when it starts with a UTF-16 byte order mark, UTF-8 when the bytes are valid
 * UTF-8 (a UTF-8 BOM is dropped), else Windows-1252 (Latin-1 plus € “ ” – — … in 0x80-0x9F), so a Latin-1 "Café" stays
 * searchable instead of becoming "Caf\uFFFD". Throws on binary content (a NUL byte near the start).
 */
export function decodeText(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  if (bytes.subarray(0, SNIFF_BYTES).includes(0)) throw new Error('binary content, not text');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return decodeWindows1252(bytes);
  }
}

// Node's TextDecoder('windows-1252') decodes as ISO-8859-1, leaving 0x80-0x9F as C1 controls; these are
// the characters Windows-1252 puts there (WHATWG's table; its five unassigned bytes stay as they are).
const CP1252_80_9F = '\u20AC\u0081\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\u008D\u017D\u008F\u0090\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\u009D\u017E\u0178';

function decodeWindows1252(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('latin1')
    .replace(/[\u0080-\u009F]/g, (c) => CP1252_80_9F[c.charCodeAt(0) - 0x80] ?? c);
}

async function parseFormat(format: FileFormat, bytes: Uint8Array): Promise<{ title: string | null; content: string }> {
  switch (format) {
    case 'markdown': {
      const text = decodeText(bytes);
      return { title: markdownTitle(text), content: splitFrontMatter(text).body };
    }
    case 'text':
      return { title: null, content: decodeText(bytes) };
    case 'html':
      return parseHtml(decodeText(bytes));
    case 'pdf':
      return parsePdf(bytes);
    case 'docx':
      return parseDocx(bytes);
  }
}

/**
 * Extracts text from a supported file's bytes; throws on a corrupt or binary file. The text never holds
 * a NUL character (PostgreSQL cannot store one in text; a stray one past the sniffed start, or one in a
 * PDF's or DOCX's text, is dropped).
 */
export async function parseFile(file: string, bytes: Uint8Array): Promise<ParsedFile> {
  const format = formatOf(file);
  if (!format) throw new Error(`unsupported file type '${path.extname(file)}'`);
  const { title, content } = await parseFormat(format, bytes);
  return { format, title: title?.replaceAll('\u0000', '').trim() || null, content: content.replaceAll('\u0000', '') };
}
