import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { shortHash } from '../vectors.ts';

/** The folder of the vector indexes inside an embedded data folder (docs/configuration.md, "The data folder"). */
export const VECTORS_DIR = 'vectors';

/** Format of the sidecar; a sidecar of another version is not read (the index is rebuilt from the database). */
const SIDECAR_VERSION = 1;

const sidecarSchema = z.object({
  version: z.literal(SIDECAR_VERSION),
  tenantId: z.string(),
  model: z.string(),
  dimensions: z.number().int().positive(),
  count: z.number().int().nonnegative(),
  indexSha256: z.string(),
  keysSha256: z.string(),
  savedAt: z.string(),
});
export type Sidecar = z.infer<typeof sidecarSchema>;

/** The three files of one (tenant, model) index: usearch's own file, its keys, and the sidecar that vouches for both. */
export interface IndexFiles {
  readonly dir: string;
  readonly index: string;
  readonly keys: string;
  readonly sidecar: string;
}

const PLAIN = /^[A-Za-z0-9_-]{1,64}$/;

/** `<data>/vectors/<tenant>/<sha256(model)[0:16]>.{usearch,keys,json}`; a tenant id that is not a plain name is hashed too. */
export function indexFiles(dataDir: string, tenantId: string, model: string): IndexFiles {
  const dir = path.join(dataDir, VECTORS_DIR, PLAIN.test(tenantId) ? tenantId : `t-${shortHash(tenantId)}`);
  const base = path.join(dir, shortHash(model));
  return { dir, index: `${base}.usearch`, keys: `${base}.keys`, sidecar: `${base}.json` };
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/**
 * Reads and verifies a saved index: its sidecar must name this tenant, model and dimensions, and both files must hash
 * to what the sidecar says. usearch aborts the whole process on a damaged file (std::bad_alloc), so nothing reaches it
 * unverified. Null (with the reason) when anything is missing or wrong: the caller rebuilds from the database.
 */
export async function readVerified(
  files: IndexFiles,
  expect: { tenantId: string; model: string; dimensions: number },
): Promise<{ ok: true; sidecar: Sidecar; keys: BigInt64Array } | { ok: false; reason: string }> {
  let raw: string;
  try {
    raw = await fs.readFile(files.sidecar, 'utf8');
  } catch {
    return { ok: false, reason: 'no saved index' };
  }
  let parsed: Sidecar;
  try {
    parsed = sidecarSchema.parse(JSON.parse(raw));
  } catch {
    return { ok: false, reason: 'unreadable sidecar' };
  }
  if (parsed.tenantId !== expect.tenantId || parsed.model !== expect.model) return { ok: false, reason: 'sidecar of another index' };
  if (parsed.dimensions !== expect.dimensions) return { ok: false, reason: `saved with ${parsed.dimensions} dimensions, the model has ${expect.dimensions}` };
  try {
    const [index, keys] = await Promise.all([fs.readFile(files.index), fs.readFile(files.keys)]);
    if (sha256(index) !== parsed.indexSha256 || sha256(keys) !== parsed.keysSha256) return { ok: false, reason: 'index file does not match its sidecar' };
    if (keys.byteLength !== parsed.count * 8) return { ok: false, reason: 'key list of the wrong length' };
    const copy = new BigInt64Array(parsed.count);
    new Uint8Array(copy.buffer).set(keys);
    return { ok: true, sidecar: parsed, keys: copy };
  } catch {
    return { ok: false, reason: 'index file missing' };
  }
}

/**
 * Writes an index atomically: `save` writes usearch's file to a temporary path; the keys and then the sidecar follow,
 * each through a temporary file renamed into place. A kill between the renames leaves files the sidecar does not vouch
 * for, which the next start rebuilds from the database (the database is the source of truth).
 */
export async function writeAtomically(
  files: IndexFiles,
  meta: { tenantId: string; model: string; dimensions: number },
  save: (file: string) => void,
  keys: BigInt64Array,
): Promise<void> {
  await fs.mkdir(files.dir, { recursive: true });
  const tmp = (f: string) => `${f}.${process.pid}.tmp`;
  save(tmp(files.index));
  const keyBytes = new Uint8Array(keys.buffer, keys.byteOffset, keys.byteLength);
  await fs.writeFile(tmp(files.keys), keyBytes);
  const sidecar: Sidecar = {
    version: SIDECAR_VERSION,
    ...meta,
    count: keys.length,
    indexSha256: sha256(await fs.readFile(tmp(files.index))),
    keysSha256: sha256(keyBytes),
    savedAt: new Date().toISOString(),
  };
  await fs.writeFile(tmp(files.sidecar), JSON.stringify(sidecar));
  await fs.rename(tmp(files.index), files.index);
  await fs.rename(tmp(files.keys), files.keys);
  await fs.rename(tmp(files.sidecar), files.sidecar);
}
