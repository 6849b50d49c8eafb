export type { DatabaseExecutor, Queryable } from './executor.ts';
export { MIGRATIONS_DIR, migrate, NewerDatabaseError, readMigrations } from './migrate.ts';
export { openPglite, type PgliteExecutor } from './pglite.ts';
export { openPostgres } from './postgres.ts';
export { acquireDataLock, DataDirLockedError, type DataLock, describeHolder, LOCK_FILE, liveHolder, type LockHolder, readLock } from './data-lock.ts';
export { BACKUPS_FILE, DataDirUnopenableError, hasDatabase, latestBackup, readBackups, recordBackup } from './data-dir.ts';
