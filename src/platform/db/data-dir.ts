import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

/** The PostgreSQL major version the bundled PGlite runs (its data folders say so in PG_VERSION). */
export const PGLITE_PG_MAJOR = '18';

/** Where `atrium backup` records the backups it made of a folder, so a failed start can name the latest. */
export const BACKUPS_FILE = 'atrium-backups.json';

const backupsSchema = z.array(z.object({ file: z.string(), at: z.string(), bytes: z.number() }));
export type BackupRecord = z.infer<typeof backupsSchema>[number];

/** Whether a folder holds an embedded database (PGlite creates PG_VERSION first). */
export async function hasDatabase(dataDir: string): Promise<boolean> {
  return fs.stat(path.join(dataDir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
}

export async function readBackups(dataDir: string): Promise<BackupRecord[]> {
  try {
    const parsed = backupsSchema.safeParse(JSON.parse(await fs.readFile(path.join(dataDir, BACKUPS_FILE), 'utf8')));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

export async function recordBackup(dataDir: string, record: BackupRecord): Promise<void> {
  const list = [...(await readBackups(dataDir)), record].slice(-20);
  const file = path.join(dataDir, BACKUPS_FILE);
  await fs.writeFile(`${file}.tmp`, JSON.stringify(list, null, 1));
  await fs.rename(`${file}.tmp`, file);
}

/** The newest recorded backup that still exists, if any. */
export async function latestBackup(dataDir: string): Promise<BackupRecord | undefined> {
  for (const b of (await readBackups(dataDir)).reverse()) {
    if (await fs.stat(b.file).then(() => true, () => false)) return b;
  }
  return undefined;
}

/** What is visibly wrong with a data folder PGlite could not open (best effort; PGlite itself says only "Aborted()"). */
async function diagnose(dataDir: string): Promise<string | undefined> {
  const version = await fs.readFile(path.join(dataDir, 'PG_VERSION'), 'utf8').then((v) => v.trim(), () => undefined);
  if (version === undefined) return 'it has no PG_VERSION file: it is not an embedded Atrium database, or its creation was interrupted';
  if (version !== PGLITE_PG_MAJOR) return `it was made by PostgreSQL ${version}; this Atrium embeds PostgreSQL ${PGLITE_PG_MAJOR}`;
  const control = await fs.stat(path.join(dataDir, 'global', 'pg_control')).catch(() => null);
  if (!control) return 'global/pg_control is missing';
  if (control.size !== 8192) return `global/pg_control is damaged (${control.size} bytes, expected 8192)`;
  const wal = await fs.readdir(path.join(dataDir, 'pg_wal')).catch(() => [] as string[]);
  if (!wal.some((f) => /^[0-9A-F]{24}$/.test(f))) return 'its write-ahead log (pg_wal) is missing';
  return undefined;
}

/** A data folder that exists but cannot be opened: the message names the cause, the backup to restore and how. */
export class DataDirUnopenableError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'DataDirUnopenableError';
  }
}

export async function unopenable(dataDir: string, cause: unknown): Promise<DataDirUnopenableError> {
  const raw = cause instanceof Error ? `${cause.name}: ${cause.message.split('\n')[0]}` : String(cause);
  const found = await diagnose(dataDir);
  const backup = await latestBackup(dataDir);
  const restore = backup
    ? `Restore the latest backup (${backup.file}, made ${backup.at}): atrium restore ${backup.file}`
    : 'Restore your latest backup: atrium restore <file> (a file made by atrium backup)';
  return new DataDirUnopenableError(
    `the data folder ${dataDir} cannot be opened: ${found ?? 'PostgreSQL stopped while recovering it (the folder is damaged, e.g. written by two processes at once, or copied while in use)'} ` +
      `[${raw}]. ${restore}; the damaged folder is kept beside it as ${path.basename(dataDir)}.before-restore-<time>. ` +
      'Or point ATRIUM_DATA_DIR at another folder to start empty.',
    { cause },
  );
}
