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

// Headings become Markdown headings so the chunker sees the document's structure.
const headingSelectors = [1, 2, 3, 4, 5, 6].map((level) => ({ selector: `h${level}`, format: 'mdHeading', options: { level } }));
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
  },
  selectors: [
    ...headingSelectors,
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'script', format: 'skip' },
    { selector: 'style', format: 'skip' },
    { selector: 'nav', format: 'skip' },
  ],
};
const htmlToText = compile(htmlOptions);

export function parseHtml(html: string): { title: string | null; content: string } {
  const m = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  const title = m?.[1] ? decodeEntities(m[1]).replace(/\s+/g, ' ').trim() || null : null;
  return { title, content: htmlToText(html).trim() };
}

function decodeEntities(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&');
}

export function markdownTitle(md: string): string | null {
  const front = /^---\n[\s\S]*?^title:\s*["']?(.+?)["']?\s*$[\s\S]*?^---/m.exec(md);
  if (front?.[1]) return front[1];
  const h = /^\s{0,3}#\s+(.+?)\s*#*\s*$/m.exec(md);
  return h?.[1] ?? null;
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

/** Extracts text from a supported file's bytes; throws on a corrupt file. */
export async function parseFile(file: string, bytes: Uint8Array): Promise<ParsedFile> {
  const format = formatOf(file);
  if (!format) throw new Error(`unsupported file type '${path.extname(file)}'`);
  switch (format) {
    case 'markdown': {
      const text = new TextDecoder('utf-8').decode(bytes);
      return { format, title: markdownTitle(text), content: text };
    }
    case 'text':
      return { format, title: null, content: new TextDecoder('utf-8').decode(bytes) };
    case 'html':
      return { format, ...parseHtml(new TextDecoder('utf-8').decode(bytes)) };
    case 'pdf':
      return { format, ...(await parsePdf(bytes)) };
    case 'docx':
      return { format, ...(await parseDocx(bytes)) };
  }
}
