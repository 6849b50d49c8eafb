import { createHash } from 'node:crypto';
import type { DocumentInput } from './types.ts';

/** Hash of what the chunks and vectors are made from (title + content). */
export function contentHash(doc: Pick<DocumentInput, 'title' | 'content'>): string {
  return `sha256:${createHash('sha256').update(doc.title).update('\u0000').update(doc.content).digest('hex')}`;
}

/** Hash of every other stored field, so a metadata-only change updates the row without re-indexing. */
export function fieldsHash(doc: DocumentInput): string {
  const fields = [
    doc.url ?? null,
    doc.author ?? null,
    doc.document_type ?? null,
    doc.created_at ?? null,
    doc.updated_at ?? null,
    doc.metadata ?? {},
    doc.acl ?? null,
  ];
  return `sha256:${createHash('sha256').update(stableJson(fields)).digest('hex')}`;
}

/** JSON with object keys sorted, so equal values hash equally whatever the key order. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .filter((k) => obj[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson(obj[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
