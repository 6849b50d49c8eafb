/** Notion's wire shapes, kept to the fields the connector reads (the SDK's unions are far wider). */
export interface RichText {
  readonly plain_text: string;
  readonly href?: string | null;
}
export interface NotionBlock {
  readonly id: string;
  readonly type: string;
  readonly has_children?: boolean;
  readonly [type: string]: unknown;
}
/** A block with its children read (up to max_depth). */
export interface BlockNode {
  readonly block: NotionBlock;
  readonly children: readonly BlockNode[];
}

export const plain = (rt: unknown): string => (Array.isArray(rt) ? (rt as RichText[]).map((t) => t.plain_text ?? '').join('') : '');

/** Block types whose children are separate Notion objects (synced on their own), never read inline. */
export const OWN_OBJECT_TYPES = new Set(['child_page', 'child_database']);

function body(b: NotionBlock): Record<string, unknown> {
  const v = b[b.type];
  return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
}

function fileUrl(v: Record<string, unknown>): string {
  const kind = v.type;
  const inner = typeof kind === 'string' ? (v[kind] as { url?: string } | undefined) : undefined;
  return inner?.url ?? (typeof v.url === 'string' ? v.url : '');
}

function withCaption(label: string, url: string, caption: string): string {
  return [caption ? `${label}: ${caption}` : label, url].filter(Boolean).join(' ');
}

/** One block's own line(s), without its children; null when the block carries no text. */
export function renderBlock(b: NotionBlock, ordinal: number): string | null {
  const v = body(b);
  const text = plain(v.rich_text);
  switch (b.type) {
    case 'paragraph':
      return text;
    case 'heading_1':
      return `# ${text}`;
    case 'heading_2':
      return `## ${text}`;
    case 'heading_3':
      return `### ${text}`;
    case 'bulleted_list_item':
      return `- ${text}`;
    case 'numbered_list_item':
      return `${ordinal}. ${text}`;
    case 'to_do':
      return `[${v.checked ? 'x' : ' '}] ${text}`;
    case 'toggle':
      return `▸ ${text}`;
    case 'quote':
      return `> ${text}`;
    case 'callout': {
      const icon = v.icon as { type?: string; emoji?: string } | null | undefined;
      return icon?.type === 'emoji' && icon.emoji ? `${icon.emoji} ${text}` : text;
    }
    case 'code': {
      const caption = plain(v.caption);
      return `\`\`\`${typeof v.language === 'string' ? v.language : ''}\n${text}\n\`\`\`${caption ? `\n${caption}` : ''}`;
    }
    case 'equation':
      return typeof v.expression === 'string' ? v.expression : null;
    case 'divider':
      return '---';
    case 'table_row':
      return Array.isArray(v.cells) ? `| ${(v.cells as unknown[]).map((c) => plain(c)).join(' | ')} |` : null;
    case 'embed':
    case 'bookmark':
    case 'link_preview':
      return withCaption(b.type, typeof v.url === 'string' ? v.url : '', plain(v.caption));
    case 'image':
    case 'video':
    case 'audio':
    case 'file':
    case 'pdf':
      return withCaption(b.type, fileUrl(v), plain(v.caption) || (typeof v.name === 'string' ? v.name : ''));
    case 'child_page':
      return `[page: ${typeof v.title === 'string' ? v.title : ''}]`;
    case 'child_database':
      return `[database: ${typeof v.title === 'string' ? v.title : ''}]`;
    case 'link_to_page': {
      const target = (v.page_id ?? v.database_id ?? v.data_source_id) as string | undefined;
      return target ? `[link to ${String(v.type ?? 'page').replace(/_id$/, '')}: ${target}]` : null;
    }
    case 'template':
      return text || null;
    default:
      // table, column_list, column, synced_block and unsupported blocks carry no text of their own.
      return text || null;
  }
}

/** Renders a block tree to text: one line per block, children indented, numbered lists numbered per run. */
export function renderBlocks(nodes: readonly BlockNode[], indent = ''): string {
  const out: string[] = [];
  let ordinal = 0;
  for (const n of nodes) {
    ordinal = n.block.type === 'numbered_list_item' ? ordinal + 1 : 0;
    const own = renderBlock(n.block, ordinal);
    // Containers (tables, columns, synced blocks) keep their children at the same level.
    const container = own === null;
    if (own !== null) out.push(own.split('\n').map((l) => (l ? indent + l : l)).join('\n'));
    if (n.children.length > 0) {
      const childText = renderBlocks(n.children, container ? indent : `${indent}  `);
      if (childText) out.push(childText);
    }
  }
  return out.join('\n');
}
