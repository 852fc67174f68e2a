import type { EmbeddedDatabase } from './database.js';

export type Statement = ReturnType<EmbeddedDatabase['prepare']>;

const byDatabase = new WeakMap<EmbeddedDatabase, Map<string, Statement>>();

/**
 * The statement for `sql` on `db`, prepared on first use and kept for the connection's life, so the search
 * path does not pay for preparing every statement of every search (figures:
 * docs/performance.md#prepared-statements-kept). Keyed
 * by the SQL text, so statements built from configuration (weights, table names) are kept per text.
 */
export function preparedStatement(db: EmbeddedDatabase, sql: string): Statement {
  let statements = byDatabase.get(db);
  if (!statements) byDatabase.set(db, (statements = new Map()));
  let statement = statements.get(sql);
  if (!statement) statements.set(sql, (statement = db.prepare(sql)));
  return statement;
}

/** Drops the kept statements whose SQL names the identifier `name` (a table about to be dropped). */
export function forgetStatementsNaming(db: EmbeddedDatabase, name: string): void {
  const statements = byDatabase.get(db);
  if (!statements) return;
  const naming = new RegExp(`\\b${name.replace(/[^A-Za-z0-9_]/g, '')}\\b`);
  for (const sql of [...statements.keys()]) if (naming.test(sql)) statements.delete(sql);
}
