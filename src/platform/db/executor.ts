/** A row-returning SQL call; `$1`-style parameters, identical on PGlite and PostgreSQL. */
export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<{ rows: R[]; affectedRows: number }>;
  /** Run a multi-statement script without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * Optional: the same as `query`, through a server-side prepared statement named after the SQL
   * text, so a statement whose text repeats is parsed and planned once (generic plan). Callers fall
   * back to `query` where it is absent.
   */
  queryPrepared?<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<{ rows: R[]; affectedRows: number }>;
}

/**
 * The database port. PGlite (embedded) and PostgreSQL (production) implement it with the same SQL.
 * `transaction` serializes on PGlite (one connection) and checks out a client on PostgreSQL:
 * keep transactions short and never await network or embedding work inside one.
 */
export interface DatabaseExecutor extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** True when the pgvector extension is installed and enabled. */
  readonly hasVector: boolean;
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * Present only where this process is the database's one client (embedded PGlite): a counter that
   * changes whenever a statement that may write has been sent through this executor (in a transaction
   * or not). Equal values mean nothing was written in between, so a read taken at one value is still
   * current: callers memoize small per-request reads on it. Absent on PostgreSQL, where other
   * processes write.
   */
  writeEpoch?(): number;
  /** Embedded storage only: records the URL of the service holding the data folder in its lock, so the CLI finds it. */
  announceUrl?(url: string): Promise<void>;
  /** Embedded storage only: a tarball of the whole data folder (`atrium backup`), taken between statements. */
  dump?(): Promise<Blob>;
  /** Embedded storage in a folder on disk (absent in memory and on PostgreSQL): the data folder, whose lock this process holds. */
  readonly dataDir?: string;
  /**
   * Embedded storage only: `fn` runs before a dump and when the database closes, before the folder's lock is released (derived
   * files kept beside the database, such as the vector indexes, are written then).
   */
  onFlush?(fn: () => Promise<void>): void;
}

/**
 * Whether a statement can only read: it starts with SELECT, WITH, VALUES, SHOW, SET or EXPLAIN and names no
 * data-modifying command or sequence/lock function. Conservative: a read it misjudges as a write
 * costs a memo refresh, never a stale answer.
 */
export function isReadOnlyStatement(sql: string): boolean {
  return /^\s*(SELECT|WITH|VALUES|SHOW|SET|EXPLAIN)\b/i.test(sql) && !/\b(INSERT|UPDATE|DELETE|MERGE|TRUNCATE|COPY|CREATE|ALTER|DROP|nextval|setval|pg_advisory\w*)\b/i.test(sql);
}
