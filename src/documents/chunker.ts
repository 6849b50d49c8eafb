/**
 * Structure-aware chunking. A document is split into blocks (headings, paragraphs, fenced code
 * blocks, list runs, chat messages) and the blocks are packed greedily into chunks of at most
 * `maxChars` characters. A heading starts a new chunk once the current one holds a quarter of
 * `maxChars`; a chunk that ends because it is full hands its last `overlapChars` (cut at a sentence,
 * line or word boundary) to the next chunk of the same section. Blocks longer than `maxChars` are
 * split by sentences (prose) or lines (code), then by words. Each chunk remembers its heading path.
 */

export interface ChunkOptions {
  readonly maxChars: number;
  readonly overlapChars: number;
}

export interface ChunkInput {
  readonly title: string;
  readonly content: string;
  readonly document_type?: string | null;
}

export interface Chunk {
  readonly ordinal: number;
  readonly content: string;
  /** Heading path at the chunk's start, e.g. `Install › Linux`; null outside any heading. */
  readonly heading: string | null;
}

type BlockKind = 'heading' | 'paragraph' | 'code' | 'message';
interface Block {
  readonly kind: BlockKind;
  readonly text: string;
  readonly level?: number;
}

const MESSAGE_TYPES = new Set(['message', 'thread', 'conversation', 'chat', 'email']);
const FENCE = /^\s{0,3}(```+|~~~+)/;
const ATX_HEADING = /^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$/;

/** Splits text into structural blocks. Exported for tests. */
export function splitBlocks(content: string, documentType?: string | null): Block[] {
  const lines = content.replace(/\r\n?/g, '\n').split('\n');
  const perLine = documentType ? MESSAGE_TYPES.has(documentType) : false;
  const blocks: Block[] = [];
  let para: string[] = [];
  const flushPara = () => {
    const text = para.join('\n').trim();
    if (text) blocks.push({ kind: 'paragraph', text });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const fence = FENCE.exec(line);
    if (fence) {
      flushPara();
      const marker = fence[1] ?? '```';
      const body = [line];
      i++;
      while (i < lines.length) {
        const l = lines[i] ?? '';
        body.push(l);
        if (l.trim().startsWith(marker.slice(0, 3)) && l.trim().replace(/[`~]/g, '') === '') break;
        i++;
      }
      blocks.push({ kind: 'code', text: body.join('\n').trimEnd() });
      continue;
    }
    const heading = ATX_HEADING.exec(line);
    if (heading) {
      flushPara();
      blocks.push({ kind: 'heading', text: line.trim(), level: (heading[1] ?? '#').length });
      continue;
    }
    if (line.trim() === '') {
      flushPara();
      continue;
    }
    if (perLine) {
      flushPara();
      blocks.push({ kind: 'message', text: line.trim() });
      continue;
    }
    para.push(line);
  }
  flushPara();
  return blocks;
}

function headingTitle(block: Block): string {
  return block.text.replace(/^\s*#+\s*/, '').replace(/\s*#+\s*$/, '');
}

/** The tail of `text` of at most `n` characters, starting at a sentence, line or word boundary. */
export function overlapTail(text: string, n: number): string {
  if (n <= 0 || text.length === 0) return '';
  if (text.length <= n) return text;
  const tail = text.slice(text.length - n);
  const sentence = tail.search(/(?<=[.!?])\s+\S|\n\S/);
  if (sentence >= 0) {
    const from = tail.slice(sentence).trimStart();
    if (from.length >= n / 4) return from;
  }
  const space = tail.indexOf(' ');
  return space >= 0 ? tail.slice(space + 1) : tail;
}

/** Splits one oversized block into pieces of at most `max` characters. */
export function splitLong(text: string, kind: BlockKind, max: number): string[] {
  const units = kind === 'code' ? text.split('\n') : text.split(/(?<=[.!?])\s+/);
  const sep = kind === 'code' ? '\n' : ' ';
  const out: string[] = [];
  let cur = '';
  const pushWords = (unit: string) => {
    // A unit longer than max: cut at word boundaries, or hard-cut a single giant token.
    let rest = unit;
    while (rest.length > max) {
      let cut = rest.lastIndexOf(' ', max);
      if (cut <= max / 2) cut = max;
      out.push(rest.slice(0, cut).trim());
      rest = rest.slice(cut).trimStart();
    }
    return rest;
  };
  for (const u of units) {
    if (cur && cur.length + sep.length + u.length > max) {
      out.push(cur);
      cur = '';
    }
    if (u.length > max) {
      if (cur) out.push(cur);
      cur = pushWords(u);
      continue;
    }
    cur = cur ? cur + sep + u : u;
  }
  if (cur.trim()) out.push(cur);
  return out.filter((s) => s.trim().length > 0);
}

export function chunkDocument(doc: ChunkInput, opts: ChunkOptions): Chunk[] {
  const max = Math.max(50, opts.maxChars);
  const overlap = Math.min(Math.max(0, opts.overlapChars), Math.floor(max / 2));
  const minBeforeHeading = Math.floor(max / 4);
  const blocks = splitBlocks(doc.content, doc.document_type);
  const chunks: Chunk[] = [];
  const path: { level: number; title: string }[] = [];
  const headingPath = () => (path.length ? path.map((p) => p.title).join(' › ') : null);

  let buf = '';
  let bufHeading: string | null = null;
  // Where the heading lines at the end of `buf` begin (-1: buf does not end with a heading). A heading
  // belongs with the text under it, so it is never left at the end of a chunk on its own.
  let headingsFrom = -1;
  const emit = (text: string, heading: string | null) => {
    const t = text.trim();
    if (t) chunks.push({ ordinal: chunks.length, content: t, heading });
  };
  const append = (text: string, sep = '\n\n') => {
    if (!buf) bufHeading = headingPath();
    buf = buf ? `${buf}${sep}${text}` : text;
  };
  /** Ends the current chunk; with `carry`, its tail opens the next one (same section). */
  const flush = (carry: boolean) => {
    const prev = buf;
    emit(buf, bufHeading);
    buf = '';
    headingsFrom = -1;
    if (carry && prev) {
      const tail = overlapTail(prev, overlap);
      if (tail && tail !== prev) {
        buf = tail;
        bufHeading = headingPath();
      }
    }
  };

  for (const block of blocks) {
    if (block.kind === 'heading') {
      if (buf.length >= minBeforeHeading) flush(false);
      const level = block.level ?? 1;
      while (path.length && (path[path.length - 1]?.level ?? 0) >= level) path.pop();
      path.push({ level, title: headingTitle(block) });
      // A chunk that so far holds only headings is under the deepest of them.
      if (!buf || headingsFrom === 0) bufHeading = headingPath();
      if (headingsFrom < 0) headingsFrom = buf.length;
      append(block.text);
      continue;
    }
    if (buf.length + 2 + block.text.length <= max) {
      append(block.text);
      headingsFrom = -1;
      continue;
    }
    let text = block.text;
    if (headingsFrom >= 0) {
      // The block does not fit after the heading(s) that end the buffer: what came before them ends its
      // chunk, and the headings open the next one together with this block.
      const headings = buf.slice(headingsFrom).trim();
      buf = buf.slice(0, headingsFrom);
      // Unless it is only the overlap carried from the previous chunk, which that chunk already holds.
      if (buf.trim() && !(chunks.length > 0 && overlapTailOnly(buf, chunks))) flush(false);
      buf = '';
      headingsFrom = -1;
      bufHeading = headingPath();
      text = `${headings}\n\n${text}`;
    }
    if (buf) flush(true);
    if (buf.length + 2 + text.length <= max) {
      append(text);
      continue;
    }
    // Oversized block: split it, carrying overlap between its pieces (joined as the block was).
    const sep = block.kind === 'code' ? '\n' : ' ';
    const pieces = splitLong(text, block.kind, Math.max(20, max - overlap - sep.length));
    let first = true;
    for (const piece of pieces) {
      if (buf && buf.length + sep.length + piece.length > max) flush(true);
      append(piece, first && buf && !buf.endsWith(piece) ? '\n\n' : sep);
      first = false;
    }
  }
  if (buf && !(chunks.length > 0 && overlapTailOnly(buf, chunks))) emit(buf, bufHeading);
  if (chunks.length === 0) {
    const fallback = doc.content.trim() || doc.title.trim();
    if (fallback) chunks.push({ ordinal: 0, content: fallback.slice(0, max), heading: null });
  }
  return chunks;
}

/** True when the pending buffer is nothing but the overlap copied from the previous chunk. */
function overlapTailOnly(buf: string, chunks: readonly Chunk[]): boolean {
  const last = chunks[chunks.length - 1];
  return last?.content.endsWith(buf.trim()) ?? false;
}
