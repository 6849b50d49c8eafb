import type { Queryable } from '../../platform/db/index.ts';

/** Positional parameters of one statement: `add` appends a value and answers its placeholder. */
export class Params {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

/** A string as an SQL literal (only for values that must be in the statement text, such as a model id). */
export const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * Chunk `c`'s vector as text: both pgvector's '[…]' and real[]'s '{…}' parse fast in parseVector (node-postgres's
 * own float4[] parser was the largest CPU cost of a federated query on PostgreSQL).
 */
export const vectorText = (db: { readonly hasVector: boolean }) => (db.hasVector ? 'c.embedding_vec::text' : 'c.embedding::text');

/** A lexeme as a tsquery operand: quoted, with quotes doubled and backslashes escaped. */
export const quoteLexeme = (t: string) => `'${t.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/**
 * `query` through a server-side prepared statement where the executor offers one (embedded PGlite):
 * the statements of this module keep their text to the query's shape (number of terms, filters, mode, k),
 * with terms, idfs and corpus statistics as parameters, so planning happens once per shape.
 */
export function prepared(db: Queryable): Queryable['query'] {
  return db.queryPrepared ? db.queryPrepared.bind(db) : db.query.bind(db);
}
