import { type DocumentInput, documentInputSchema } from '../types.ts';

/** A JSONL line may name the id `_id` or `id` and the content `text` (BEIR's corpus layout); nothing else is renamed. */
const ALIASES = ['_id', 'id', 'text'] as const;
const KNOWN = new Set<string>([...Object.keys(documentInputSchema.shape), ...ALIASES]);
const strictDocument = documentInputSchema.strict();

export type JsonlDocument = { ok: true; document: DocumentInput } | { ok: false; message: string };

/**
 * One parsed line of a JSONL file of documents, checked as strictly as the push API checks a document: unknown
 * fields (a misspelt `update_at`) are refused, ids must be strings or numbers. A missing or null `title` or
 * content is empty.
 */
export function jsonlDocument(value: unknown): JsonlDocument {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, message: 'not a JSON object' };
  const v = value as Record<string, unknown>;
  const unknown = Object.keys(v).filter((k) => !KNOWN.has(k));
  if (unknown.length > 0) return { ok: false, message: `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${k}'`).join(', ')}` };
  const idKey = (['external_id', '_id', 'id'] as const).find((k) => v[k] !== undefined && v[k] !== null);
  if (!idKey) return { ok: false, message: 'no external_id (or _id, id)' };
  const id = v[idKey];
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)))) return { ok: false, message: `${idKey}: expected a string or a number` };
  const { _id: _a, id: _b, text, ...fields } = v;
  const candidate = { ...fields, external_id: String(id), title: v.title ?? '', content: v.content ?? text ?? '' };
  const parsed = strictDocument.safeParse(candidate);
  if (parsed.success) return { ok: true, document: parsed.data };
  // Issues of the content name the field the line used.
  const field = (p: PropertyKey[]) => (p[0] === 'content' && v.content === undefined && text !== undefined ? ['text', ...p.slice(1)] : p[0] === 'external_id' ? [idKey, ...p.slice(1)] : p);
  return { ok: false, message: parsed.error.issues.map((i) => `${field(i.path).join('.')}: ${i.message}`).join('; ') };
}
