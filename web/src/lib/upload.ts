// What the upload form needs to know about a file before sending it: its format, and its columns to map.

export type UploadFormat = 'zip' | 'csv' | 'jsonl';

/** The format a file name says, or null (the form then asks). */
export function formatOfName(name: string): UploadFormat | null {
  const ext = name.toLowerCase().slice(name.lastIndexOf('.'));
  if (ext === '.zip') return 'zip';
  if (ext === '.csv') return 'csv';
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  return null;
}

/** The column names on a CSV file's first line (quoted names, a byte-order mark and CRLF are fine). */
export function csvHeader(text: string): string[] {
  const src = text.replace(/^\ufeff/, '');
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < src.length; i++) {
    const ch = src[i];
    if (quoted) {
      if (ch === '"' && src[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      out.push(cur.trim());
      cur = '';
    } else if (ch === '\n' || ch === '\r') break;
    else cur += ch;
  }
  out.push(cur.trim());
  return out.filter((c) => c !== '');
}

/** The field names of a JSONL file's first line, or [] when it is not a JSON object. */
export function jsonlFields(text: string): string[] {
  const line = text.split('\n', 1)[0]?.trim() ?? '';
  try {
    const v: unknown = JSON.parse(line);
    return v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : [];
  } catch {
    return [];
  }
}

/** The fields the push API takes as they are: a JSONL file with only these needs no mapping. */
export const PUSH_FIELDS = ['external_id', 'title', 'content', 'url', 'author', 'document_type', 'created_at', 'updated_at', 'metadata', 'acl'];

/** "1.2 MB", "340 kB", "12 bytes". */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} bytes`;
  if (n < 1e6) return `${(n / 1e3).toFixed(n < 1e4 ? 1 : 0)} kB`;
  if (n < 1e9) return `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0)} MB`;
  return `${(n / 1e9).toFixed(1)} GB`;
}
