export type { DatabaseExecutor, Queryable } from './executor.ts';
export { MIGRATIONS_DIR, migrate, readMigrations } from './migrate.ts';
export { openPglite, type PgliteExecutor } from './pglite.ts';
export { openPostgres } from './postgres.ts';
