// Whether a document's text is Markdown, so the document page renders it (safely) instead of showing the syntax.

const MARKDOWN_TYPES = new Set(['markdown', 'md', 'mdx']);
const SIGNS = [/^#{1,6}\s+\S/m, /^\s*[-*+]\s+\S/m, /^\s*\d+\.\s+\S/m, /\*\*[^*\n]+\*\*/, /\[[^\]\n]+\]\([^)\s]+\)/, /^```/m, /^>\s+\S/m, /^\|.+\|\s*$/m];

/** A Markdown document type, or text with at least two kinds of Markdown syntax (headings, lists, bold, links, code fences…). */
export function looksLikeMarkdown(content: string, documentType: string | undefined): boolean {
  if (documentType && MARKDOWN_TYPES.has(documentType.toLowerCase())) return true;
  return SIGNS.filter((re) => re.test(content)).length >= 2;
}

/** Markdown as the plain text a reader sees (for result snippets): syntax and HTML tags removed, link texts kept. */
export function stripMarkdown(text: string): string {
  return text
    .replace(/^```.*$/gm, '')
    .replace(/<[^>\n]+>/g, ' ')
    .replace(/!\[([^\]\n]*)\]\([^)\s]*\)/g, '$1')
    .replace(/\[([^\]\n]+)\]\([^)\s]*\)/g, '$1')
    .replace(/^#{1,6}[ \t]+/gm, '')
    .replace(/^[ \t]*>[ \t]?/gm, '')
    .replace(/^[ \t]*(?:[-*+]|\d+\.)[ \t]+/gm, '')
    .replace(/(\*\*|__)(?=\S)([^\n]*?\S)\1/g, '$2')
    .replace(/(^|[\s(])\*(?=\S)([^*\n]*?\S)\*/g, '$1$2')
    .replace(/`([^`\n]+)`/g, '$1')
    .replace(/[ \t]+/g, ' ')
    .trim();
}
