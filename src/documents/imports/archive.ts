import fs from 'node:fs/promises';
import path from 'node:path';
import JSZip from 'jszip';

/**
 * The files of an export, whether it arrived as a zip or was unpacked into a folder: relative POSIX paths, read on
 * demand. A zip is read into memory (exports of a few hundred MB are fine; unpack larger ones and import the folder).
 */
export interface ArchiveFiles {
  /** What the user named: the zip or the folder, absolute. */
  readonly location: string;
  /** Every file, as a relative path with `/` separators, sorted. */
  readonly paths: readonly string[];
  readBytes(relativePath: string): Promise<Uint8Array>;
  readText(relativePath: string): Promise<string>;
}

/** Files a folder walk never lists: VCS folders and OS litter. */
const IGNORED = new Set(['.git', '.DS_Store', '__MACOSX', 'node_modules']);

export async function openArchive(location: string): Promise<ArchiveFiles> {
  const st = await fs.stat(location);
  return st.isDirectory() ? openFolder(location) : openZip(location);
}

async function openFolder(root: string): Promise<ArchiveFiles> {
  const paths: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      if (IGNORED.has(entry.name)) continue;
      const abs = path.join(dir, entry.name);
      // Symlinks are not followed: an export is plain files.
      if (entry.isDirectory()) await walk(abs);
      else if (entry.isFile()) paths.push(path.relative(root, abs).split(path.sep).join('/'));
    }
  };
  await walk(root);
  paths.sort();
  const resolve = (p: string) => {
    const abs = path.resolve(root, p);
    if (!abs.startsWith(root + path.sep)) throw new Error(`${p}: outside ${root}`);
    return abs;
  };
  return {
    location: root,
    paths,
    readBytes: async (p) => new Uint8Array(await fs.readFile(resolve(p))),
    readText: (p) => fs.readFile(resolve(p), 'utf8'),
  };
}

async function openZip(file: string): Promise<ArchiveFiles> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(await fs.readFile(file));
  } catch (err) {
    throw new Error(`${file}: not a readable zip archive (${err instanceof Error ? err.message : String(err)})`);
  }
  // Entry names are only keys here (nothing is written to disk), so a `../` name cannot escape anywhere.
  const entries = new Map<string, JSZip.JSZipObject>();
  zip.forEach((name, entry) => {
    if (entry.dir) return;
    const parts = name.split('/');
    if (parts.some((x) => IGNORED.has(x))) return;
    entries.set(name, entry);
  });
  const entry = (p: string) => {
    const e = entries.get(p);
    if (!e) throw new Error(`${p}: not in ${file}`);
    return e;
  };
  return {
    location: file,
    paths: [...entries.keys()].sort(),
    readBytes: (p) => entry(p).async('uint8array'),
    readText: (p) => entry(p).async('string'),
  };
}

/**
 * The folder every path of the archive sits in, when there is one (`export-2026/channels.json`…): exports zipped
 * with their folder. `''` when the files sit at the top.
 */
export function commonRoot(paths: readonly string[]): string {
  const first = paths[0]?.split('/') ?? [];
  if (first.length < 2) return '';
  const root = `${first[0]}/`;
  return paths.every((p) => p.startsWith(root)) ? root : '';
}
