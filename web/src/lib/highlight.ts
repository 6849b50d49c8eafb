// Search result text: pick the passage around the query's terms and mark them. Pure functions.

const STOP = new Set(['a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'for', 'from', 'how', 'in', 'is', 'it', 'of', 'on', 'or', 'that', 'the', 'to', 'was', 'what', 'when', 'where', 'who', 'why', 'with']);

/** The words of a query worth highlighting: lowercased, de-duplicated, no stop words, longest first. */
export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}_'-]*/gu) ?? [];
  const kept = [...new Set(words.filter((w) => w.length > 1 && !STOP.has(w)))];
  return kept.sort((a, b) => b.length - a.length || a.localeCompare(b));
}

export interface Segment {
  readonly text: string;
  readonly match: boolean;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function termPattern(terms: readonly string[]): RegExp | null {
  if (terms.length === 0) return null;
  // Terms match at a word start, and may continue (so "sync" marks "syncing").
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${terms.map(escapeRegExp).join('|')})[\\p{L}\\p{N}]*`, 'giu');
}

/** Splits `text` into plain and matched segments; concatenating the segments gives back `text`. */
export function highlightSegments(text: string, terms: readonly string[]): Segment[] {
  const re = termPattern(terms);
  if (!re) return text ? [{ text, match: false }] : [];
  const out: Segment[] = [];
  let last = 0;
  for (const m of text.matchAll(re)) {
    const start = m.index ?? 0;
    if (start > last) out.push({ text: text.slice(last, start), match: false });
    out.push({ text: m[0], match: true });
    last = start + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last), match: false });
  return out;
}

/**
 * A window of at most `maxLength` characters of `content` (whitespace collapsed) around the first
 * matched term, cut at word boundaries, with ellipses where text was dropped.
 */
export function makeSnippet(content: string, terms: readonly string[], maxLength = 240): string {
  const text = content.replace(/\s+/g, ' ').trim();
  if (text.length <= maxLength) return text;
  const re = termPattern(terms);
  const first = re ? (re.exec(text)?.index ?? 0) : 0;
  let start = Math.max(0, first - Math.floor(maxLength / 3));
  let end = Math.min(text.length, start + maxLength);
  start = Math.max(0, end - maxLength);
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space !== -1 && space < first) start = space + 1;
  }
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > start + maxLength / 2) end = space;
  }
  return `${start > 0 ? '… ' : ''}${text.slice(start, end)}${end < text.length ? ' …' : ''}`;
}
