import path from 'node:path';
import { parse as parseCsvText } from 'csv-parse/sync';
import { formatOf, parseFile } from '../files/index.ts';
import type { DocumentInput } from '../types.ts';
import { type ArchiveFiles, commonRoot } from './archive.ts';

/**
 * How the columns of a CSV file (or the fields of a JSONL line) become a document. Unnamed columns: `id` falls back
 * to the row number, `title` to the first column, `text` to every column not mapped elsewhere as `Column: value`
 * lines; columns not used for text are kept in metadata.
 */
export interface ColumnMapping {
  readonly id?: string;
  readonly title?: string;
  readonly text?: readonly string[];
  readonly url?: string;
  readonly author?: string;
  readonly date?: string;
}

/** Notion appends a 32-hex page id to every exported file and folder name (`Roadmap 1a2b…f.md`). */
const NOTION_ID = /\s[0-9a-f]{32}$/;

/** A readable title from an exported file's path: its name without extension or Notion's id suffix. */
export function titleFromPath(p: string): string {
  return path.posix.basename(p, path.posix.extname(p)).replace(NOTION_ID, '').trim() || p;
}

/** The document path without Notion's id suffixes, for a stable, readable external id. */
const cleanPath = (p: string) =>
  p
    .split('/')
    .map((part) => {
      const ext = path.posix.extname(part);
      return part.slice(0, part.length - ext.length).replace(NOTION_ID, '') + ext;
    })
    .join('/');

export interface ArchiveImportSummary {
  /** Files read as documents (CSV files count once, however many rows). */
  readonly files: number;
  /** Files of a type no parser reads (images, styles…), or that failed to parse, with why. */
  readonly skipped: readonly { readonly path: string; readonly reason: string }[];
}

/**
 * The documents of an exported workspace (a Notion "Markdown & CSV" export, a Confluence HTML export, or any zip or
 * folder of Markdown, text, HTML, PDF and DOCX files): one document per file, titled by its first heading or HTML
 * title, else by its file name; CSV files (Notion databases) give one document per row.
 */
export async function* archiveDocuments(files: ArchiveFiles, opts: { onSummary?: (s: ArchiveImportSummary) => void } = {}): AsyncGenerator<DocumentInput> {
  const root = commonRoot(files.paths);
  const skipped: { path: string; reason: string }[] = [];
  let read = 0;
  for (const p of files.paths) {
    const rel = p.slice(root.length);
    const id = cleanPath(rel);
    if (path.posix.extname(p).toLowerCase() === '.csv') {
      read++;
      yield* csvDocuments(await files.readText(p), { idPrefix: `${id}#`, titlePrefix: `${titleFromPath(p)}: ` });
      continue;
    }
    if (!formatOf(p)) {
      skipped.push({ path: p, reason: 'no parser for this file type' });
      continue;
    }
    try {
      const parsed = await parseFile(p, await files.readBytes(p));
      read++;
      yield { external_id: id, title: parsed.title ?? titleFromPath(p), content: parsed.content, document_type: parsed.format, metadata: { path: rel } };
    } catch (err) {
      skipped.push({ path: p, reason: err instanceof Error ? err.message : String(err) });
    }
  }
  opts.onSummary?.({ files: read, skipped });
}

const cell = (v: unknown) => (v === undefined || v === null ? '' : String(v).trim());

/** Documents from the records of a CSV file (the first line names the columns) or of a JSONL file, per `mapping`. */
export function recordDocuments(
  records: readonly Record<string, unknown>[],
  mapping: ColumnMapping = {},
  opts: { idPrefix?: string; titlePrefix?: string } = {},
): DocumentInput[] {
  const columns = records[0] ? Object.keys(records[0]) : [];
  for (const [flag, col] of Object.entries(mapping)) {
    for (const c of Array.isArray(col) ? col : [col]) {
      if (c !== undefined && records.length > 0 && !columns.includes(c)) throw new Error(`${flag} column '${c}' is not one of: ${columns.join(', ')}`);
    }
  }
  const used = new Set([mapping.id, mapping.title, mapping.url, mapping.author, mapping.date].filter((x): x is string => Boolean(x)));
  const textColumns = mapping.text?.length ? mapping.text : columns.filter((c) => !used.has(c));
  const titleColumn = mapping.title ?? columns[0];
  return records.map((r, i) => {
    const id = mapping.id ? cell(r[mapping.id]) : String(i + 1);
    if (!id) throw new Error(`row ${i + 1}: empty ${mapping.id} (the id column)`);
    const text =
      mapping.text?.length === 1
        ? cell(r[mapping.text[0] as string])
        : textColumns
            .map((c) => [c, cell(r[c])] as const)
            .filter(([, v]) => v !== '')
            .map(([c, v]) => `${c}: ${v}`)
            .join('\n');
    const date = mapping.date ? cell(r[mapping.date]) : '';
    const parsedDate = date && !Number.isNaN(Date.parse(date)) ? new Date(date).toISOString() : undefined;
    const metadata = Object.fromEntries(columns.filter((c) => !used.has(c) && !textColumns.includes(c)).map((c) => [c, r[c]]));
    return {
      external_id: `${opts.idPrefix ?? ''}${id}`,
      title: `${opts.titlePrefix ?? ''}${titleColumn ? cell(r[titleColumn]) : ''}`.slice(0, 2000),
      content: text,
      url: mapping.url ? cell(r[mapping.url]) || undefined : undefined,
      author: mapping.author ? cell(r[mapping.author]) || undefined : undefined,
      updated_at: parsedDate,
      ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    };
  });
}

/** The rows of a CSV text as documents (see `recordDocuments`); a byte-order mark and CRLF line ends are fine. */
export function csvDocuments(text: string, opts: { mapping?: ColumnMapping; idPrefix?: string; titlePrefix?: string } = {}): DocumentInput[] {
  let records: Record<string, string>[];
  try {
    records = parseCsvText(text, { columns: true, bom: true, skip_empty_lines: true, relax_column_count: true, trim: true });
  } catch (err) {
    throw new Error(`not a readable CSV file (${err instanceof Error ? err.message : String(err)})`);
  }
  return recordDocuments(records, opts.mapping, opts);
}
