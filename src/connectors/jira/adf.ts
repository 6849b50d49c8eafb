/**
 * Atlassian Document Format (ADF, the JSON tree Jira REST v3 uses for descriptions and comment bodies) → readable
 * plain text, pure. Blocks are separated by blank lines; headings `#`, bullets `- `, numbered lists `1.`, task items
 * `[ ]`/`[x]`, quotes `> `, fenced code with its language, tables as `| a | b |` rows, links as `text (url)`, mentions
 * `@Name`, emoji by their text, status lozenges `[STATUS]`, dates as YYYY-MM-DD. Unknown node types render their
 * children (or their `text`), so a new ADF node loses markup, never words.
 */
export interface AdfNode {
  readonly type: string;
  readonly text?: string;
  readonly attrs?: Readonly<Record<string, unknown>>;
  readonly marks?: readonly { readonly type: string; readonly attrs?: Readonly<Record<string, unknown>> }[];
  readonly content?: readonly AdfNode[];
}

const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

function isNode(v: unknown): v is AdfNode {
  return typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string';
}

function textLeaf(n: AdfNode): string {
  const t = n.text ?? '';
  const link = n.marks?.find((m) => m.type === 'link');
  const code = n.marks?.some((m) => m.type === 'code');
  const out = code ? `\`${t}\`` : t;
  const href = str(link?.attrs?.href);
  return href && href !== t ? `${out} (${href})` : out;
}

function dateText(ts: unknown): string {
  const ms = Number(str(ts));
  return Number.isFinite(ms) && str(ts) !== '' ? new Date(ms).toISOString().slice(0, 10) : '';
}

/** Inline content of a block (paragraph, heading, cell…) on one logical line (hard breaks become newlines). */
function inline(nodes: readonly AdfNode[] | undefined): string {
  let out = '';
  for (const n of nodes ?? []) {
    switch (n.type) {
      case 'text':
        out += textLeaf(n);
        break;
      case 'hardBreak':
        out += '\n';
        break;
      case 'mention': {
        const t = str(n.attrs?.text) || str(n.attrs?.id);
        out += t.startsWith('@') ? t : `@${t}`;
        break;
      }
      case 'emoji':
        out += str(n.attrs?.text) || str(n.attrs?.shortName);
        break;
      case 'inlineCard':
      case 'blockCard':
      case 'embedCard':
        out += str(n.attrs?.url) || str((n.attrs?.data as { url?: unknown } | undefined)?.url);
        break;
      case 'status':
        out += `[${str(n.attrs?.text)}]`;
        break;
      case 'date':
        out += dateText(n.attrs?.timestamp);
        break;
      case 'placeholder':
        break;
      case 'mediaInline':
      case 'media':
        out += str(n.attrs?.alt) ? `[${str(n.attrs?.alt)}]` : '';
        break;
      default:
        out += n.text ?? (n.content ? blocks(n.content).join(' ') : '');
    }
  }
  return out;
}

const indent = (text: string, prefix: string, rest = ' '.repeat(prefix.length)) =>
  text
    .split('\n')
    .map((line, i) => (i === 0 ? prefix : line ? rest : '') + line)
    .join('\n');

function listItems(items: readonly AdfNode[] | undefined, marker: (i: number, item: AdfNode) => string): string {
  return (items ?? [])
    .map((item, i) => indent(blocks(item.content ?? []).join('\n'), marker(i, item)))
    .filter((s) => s.trim())
    .join('\n');
}

function table(n: AdfNode): string {
  const rows = (n.content ?? []).filter((r) => r.type === 'tableRow');
  return rows
    .map((r) => {
      const cells = (r.content ?? []).map((c) => blocks(c.content ?? []).join(' ').replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|'));
      return `| ${cells.join(' | ')} |`;
    })
    .join('\n');
}

/** One block node as text (may span lines), '' for nothing readable. */
function block(n: AdfNode): string {
  switch (n.type) {
    case 'paragraph':
      return inline(n.content);
    case 'heading': {
      const level = Math.min(6, Math.max(1, Number(n.attrs?.level) || 1));
      return `${'#'.repeat(level)} ${inline(n.content)}`;
    }
    case 'bulletList':
      return listItems(n.content, () => '- ');
    case 'orderedList': {
      const start = Number(n.attrs?.order) || 1;
      return listItems(n.content, (i) => `${start + i}. `);
    }
    case 'taskList':
      return listItems(n.content, (_i, item) => (item.attrs?.state === 'DONE' ? '[x] ' : '[ ] '));
    case 'decisionList':
      return listItems(n.content, () => '◆ ');
    case 'listItem':
    case 'taskItem':
    case 'decisionItem':
      // Task and decision items hold inline content directly.
      return n.content?.some((c) => c.type === 'paragraph' || c.type.endsWith('List')) ? blocks(n.content).join('\n') : inline(n.content);
    case 'codeBlock': {
      const lang = str(n.attrs?.language);
      return `\`\`\`${lang}\n${(n.content ?? []).map((c) => c.text ?? '').join('')}\n\`\`\``;
    }
    case 'blockquote':
      return blocks(n.content)
        .join('\n\n')
        .split('\n')
        .map((l) => (l ? `> ${l}` : '>'))
        .join('\n');
    case 'panel': {
      const body = blocks(n.content).join('\n\n');
      const kind = str(n.attrs?.panelType);
      return kind ? `${kind.toUpperCase()}: ${body}` : body;
    }
    case 'expand':
    case 'nestedExpand': {
      const title = str(n.attrs?.title);
      const body = blocks(n.content).join('\n\n');
      return title ? `▸ ${title}\n${indent(body, '  ')}` : body;
    }
    case 'rule':
      return '---';
    case 'table':
      return table(n);
    case 'mediaSingle':
    case 'mediaGroup':
      return inline(n.content);
    case 'blockCard':
    case 'embedCard':
      return inline([n]);
    case 'text':
    case 'mention':
    case 'emoji':
    case 'inlineCard':
    case 'status':
    case 'date':
    case 'hardBreak':
      return inline([n]);
    default:
      // doc, layoutSection/layoutColumn, bodiedExtension and anything newer: their children.
      return n.content ? blocks(n.content).join('\n\n') : (n.text ?? '');
  }
}

function blocks(nodes: readonly AdfNode[] | undefined): string[] {
  return (nodes ?? []).map(block).filter((s) => s.trim() !== '');
}

/**
 * An ADF document (or any ADF node) as text. A string is returned as is (Jira REST v2 and some webhook payloads
 * send wiki markup strings), null/undefined/garbage as ''.
 */
export function adfToText(doc: unknown): string {
  if (typeof doc === 'string') return doc;
  if (!isNode(doc)) return '';
  return block(doc)
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
