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
}
