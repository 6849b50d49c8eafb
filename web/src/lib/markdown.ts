// Whether a document's text is Markdown, so the document page renders it (safely) instead of showing the syntax.

const MARKDOWN_TYPES = new Set(['markdown', 'md', 'mdx']);
const SIGNS = [/^#{1,6}\s+\S/m, /^\s*[-*+]\s+\S/m, /^\s*\d+\.\s+\S/m, /\*\*[^*\n]+\*\*/, /\[[^\]\n]+\]\([^)\s]+\)/, /^```/m, /^>\s+\S/m, /^\|.+\|\s*$/m];

/** A Markdown document type, or text with at least two kinds of Markdown syntax (headings, lists, bold, links, code fences…). */
export function looksLikeMarkdown(content: string, documentType: string | undefined): boolean {
  if (documentType && MARKDOWN_TYPES.has(documentType.toLowerCase())) return true;
  return SIGNS.filter((re) => re.test(content)).length >= 2;
}
