import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import picomatch from 'picomatch';
import { z } from 'zod';
import type { DocumentInput } from '../types.ts';
import { formatOf, parseFile, SUPPORTED_EXTENSIONS } from './parsers.ts';

/** Settings of a `filesystem` source. Globs are matched against paths relative to `path`. */
export const folderSettingsSchema = z.object({
  path: z.string().min(1),
  include: z.array(z.string().min(1)).optional(),
  exclude: z.array(z.string().min(1)).optional(),
  max_file_size_mb: z.number().positive().max(1024).optional(),
});
export type FolderSettings = z.infer<typeof folderSettingsSchema>;

const fileStateSchema = z.object({ mtimeMs: z.number(), size: z.number(), hash: z.string() });
/** What a scan remembers per file so the next one reads only what changed. */
export const folderStateSchema = z.object({ version: z.literal(1), files: z.record(z.string(), fileStateSchema) });
export type FolderState = z.infer<typeof folderStateSchema>;

export interface ScanResult {
  readonly upserts: DocumentInput[];
  /** External ids (relative paths) of files that disappeared. */
  readonly deletes: string[];
  readonly state: FolderState;
  readonly unchanged: number;
  /**
   * Files that could not be read or parsed, and sub-folders that could not be listed (their path ends with
   * `/`). Their previous version (if any) is kept: for a folder, every file of `previous` under it.
   */
  readonly errors: { path: string; message: string }[];
}

const DEFAULT_EXCLUDE = ['**/.*', '**/.*/**', '**/node_modules/**'];

/**
 * Relative paths of the files under `root`, sorted. A folder that `skip` matches is not entered; a sub-folder
 * that cannot be listed (permissions, removed meanwhile) goes to `onError` and the walk goes on. The root
 * itself failing throws: that is not a partial scan.
 */
async function* walk(root: string, skip: (rel: string) => boolean, onError: (folder: string, err: NodeJS.ErrnoException) => void, rel = ''): AsyncGenerator<string> {
  let entries: Dirent[];
  try {
    entries = await fs.readdir(path.join(root, rel), { withFileTypes: true });
  } catch (err) {
    if (!rel) throw err;
    onError(rel, err as NodeJS.ErrnoException);
    return;
  }
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (!skip(p)) yield* walk(root, skip, onError, p);
    } else if (e.isFile()) yield p;
  }
}

/**
 * Scans a folder (or one file) for Markdown, text, HTML, PDF and DOCX files. Incremental: a file
 * whose mtime and size are unchanged is not read; a file whose bytes hash the same is not parsed.
 * Files present in `previous` but gone now are reported as deletes.
 */
export async function scanFolder(
  settings: FolderSettings,
  previous?: FolderState | null,
  opts: { onProgress?: (filesSeen: number) => void } = {},
): Promise<ScanResult> {
  const s = folderSettingsSchema.parse(settings);
  const root = path.resolve(s.path);
  const prev = previous && folderStateSchema.safeParse(previous).success ? previous.files : {};
  const stat = await fs.stat(root);
  const base = stat.isDirectory() ? root : path.dirname(root);
  const include = picomatch(s.include?.length ? s.include : SUPPORTED_EXTENSIONS.map((e) => `**/*${e}`), { nocase: true, dot: false });
  // A folder an exclude glob matches (`.git`, `node_modules`, `build`, `sub/**`, `**/build/**`) is not entered.
  const exclude = picomatch([...DEFAULT_EXCLUDE, ...(s.exclude ?? [])], { nocase: true, dot: true });
  const maxBytes = (s.max_file_size_mb ?? 50) * 1024 * 1024;

  const next: Record<string, z.infer<typeof fileStateSchema>> = {};
  const upserts: DocumentInput[] = [];
  const errors: { path: string; message: string }[] = [];
  const unlisted = (folder: string, err: NodeJS.ErrnoException) => {
    errors.push({ path: `${folder}/`, message: `cannot read folder (${err.code ?? err.message})` });
    // What it held last time stays: an unreadable folder is not a deleted one.
    for (const [rel, st] of Object.entries(prev)) if (rel.startsWith(`${folder}/`)) next[rel] = st;
  };
  const files = stat.isDirectory() ? walk(root, exclude, unlisted) : (async function* () { yield path.basename(root); })();
  let unchanged = 0;
  let seen = 0;
  for await (const rel of files) {
    if (!formatOf(rel) || !include(rel) || exclude(rel)) continue;
    opts.onProgress?.(++seen);
    const abs = path.join(base, rel);
    const old = prev[rel];
    try {
      const st = await fs.stat(abs);
      if (old && old.mtimeMs === st.mtimeMs && old.size === st.size) {
        next[rel] = old;
        unchanged++;
        continue;
      }
      if (st.size > maxBytes) throw new Error(`larger than ${s.max_file_size_mb ?? 50} MB`);
      const bytes = await fs.readFile(abs);
      const hash = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
      next[rel] = { mtimeMs: st.mtimeMs, size: st.size, hash };
      if (old && old.hash === hash) {
        unchanged++;
        continue;
      }
      const parsed = await parseFile(rel, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      upserts.push({
        external_id: rel,
        title: parsed.title ?? path.basename(rel),
        content: parsed.content,
        url: pathToFileURL(abs).href,
        document_type: 'file',
        created_at: new Date(st.birthtimeMs || st.mtimeMs).toISOString(),
        updated_at: new Date(st.mtimeMs).toISOString(),
        metadata: { path: rel, format: parsed.format, size_bytes: st.size },
      });
    } catch (err) {
      errors.push({ path: rel, message: (err as Error).message });
      if (old) next[rel] = old;
      else delete next[rel];
    }
  }
  const deletes = Object.keys(prev).filter((rel) => !(rel in next));
  return { upserts, deletes, state: { version: 1, files: next }, unchanged, errors };
}
