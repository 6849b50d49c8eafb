// The two peers of the benchmark, behind one small interface: LanceDB 0.31 (native, in-process; BM25
// full-text index + HNSW-SQ vector index, hybrid = its RRF reranker) and Orama 3 (in-process JS; BM25,
// flat vector search, its hybrid mode; persisted with its own save/load as JSON).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Mode } from './measure.ts';

export interface Peer {
  add(rows: readonly { id: string; title: string; content: string; vector: Float32Array }[]): Promise<void>;
  /** Builds indexes and persists; `ann` = build the approximate vector index (only worth it for a large corpus). */
  finish(ann: boolean): Promise<void>;
  search(mode: Mode, text: string, vector: Float32Array, k: number): Promise<string[]>;
  close(): Promise<void>;
}

export type PeerName = 'lancedb' | 'orama';

export async function openPeer(name: PeerName, dir: string, create: boolean): Promise<Peer> {
  return name === 'lancedb' ? lance(dir, create) : orama(dir, create);
}

async function lance(dir: string, create: boolean): Promise<Peer> {
  const lancedb = await import('@lancedb/lancedb');
  const db = await lancedb.connect(dir);
  let table = create ? null : await db.openTable('docs');
  const rrf = await lancedb.rerankers.RRFReranker.create();
  const ids = (rows: Record<string, unknown>[]) => rows.map((r) => String(r.id));
  return {
    async add(rows) {
      const data = rows.map((r) => ({ id: r.id, text: `${r.title}\n${r.content}`, vector: Array.from(r.vector) }));
      if (!table) table = await db.createTable('docs', data);
      else await table.add(data);
    },
    async finish(ann) {
      if (!table) throw new Error('empty table');
      await table.createIndex('text', { config: lancedb.Index.fts() });
      if (ann) await table.createIndex('vector', { config: lancedb.Index.hnswSq({ distanceType: 'cosine' }) });
    },
    async search(mode, text, vector, k) {
      if (!table) throw new Error('no table');
      if (mode === 'lexical') return ids(await table.query().fullTextSearch(text).select(['id']).limit(k).toArray());
      const q = table.query().nearestTo(vector).distanceType('cosine');
      if (mode === 'vector') return ids(await q.select(['id']).limit(k).toArray());
      return ids(await q.fullTextSearch(text).rerank(rrf).select(['id']).limit(k).toArray());
    },
    async close() {
      table?.close();
      db.close();
    },
  };
}

async function orama(dir: string, create: boolean): Promise<Peer> {
  const o = await import('@orama/orama');
  const schema = { id: 'string', title: 'string', content: 'string', embedding: 'vector[100]' } as const;
  const db = o.create({ schema });
  const file = path.join(dir, 'orama.json');
  if (!create) o.load(db, readSplit(file) as never);
  const hitIds = (r: { hits: { document: { id: string } }[] }) => r.hits.map((h) => h.document.id);
  return {
    async add(rows) {
      await o.insertMultiple(db, rows.map((r) => ({ id: r.id, title: r.title, content: r.content, embedding: Array.from(r.vector) })), 1000);
    },
    async finish() {
      await fsp.mkdir(dir, { recursive: true });
      writeSplit(file, await o.save(db));
    },
    async search(mode, text, vector, k) {
      const vec = { value: Array.from(vector), property: 'embedding' };
      if (mode === 'lexical') return hitIds((await o.search(db, { term: text, properties: ['title', 'content'], limit: k })) as never);
      if (mode === 'vector') return hitIds((await o.search(db, { mode: 'vector', vector: vec, similarity: 0, limit: k } as never)) as never);
      return hitIds((await o.search(db, { mode: 'hybrid', term: text, vector: vec, similarity: 0, limit: k } as never)) as never);
    },
    async close() {},
  };
}

/**
 * Orama's saved index as JSON files: a value whose JSON passes V8's string limit (~512 MB; its full-text index at 100k
 * documents does) is written as `<file>.keys` (its kind and keys) and one file per key, recursively, so no single
 * string is ever that long on the way out or back in.
 */
function writeSplit(file: string, value: unknown): void {
  let json: string | null = null;
  try {
    json = JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof RangeError) || value === null || typeof value !== 'object') throw err;
  }
  if (json !== null) {
    fs.writeFileSync(file, json);
    return;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  fs.writeFileSync(`${file}.keys`, JSON.stringify({ array: Array.isArray(value), keys }));
  for (const [i, k] of keys.entries()) writeSplit(`${file}.${i}`, obj[k]);
}

function readSplit(file: string): unknown {
  if (!fs.existsSync(`${file}.keys`)) return JSON.parse(fs.readFileSync(file, 'utf8'));
  const { array, keys } = JSON.parse(fs.readFileSync(`${file}.keys`, 'utf8')) as { array: boolean; keys: string[] };
  const out: Record<string, unknown> = array ? ([] as unknown as Record<string, unknown>) : {};
  for (const [i, k] of keys.entries()) out[k] = readSplit(`${file}.${i}`);
  return out;
}
