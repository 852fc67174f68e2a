import { describe, expect, it } from 'vitest';
import { openInMemoryDatabase } from '../../adapters/embedded/database.js';
import { forgetStatementsNaming, preparedStatement } from '../../adapters/embedded/statement-cache.js';

describe('prepared statement cache', () => {
  it('keeps one statement per SQL text and database, and forgets only those naming a dropped table', () => {
    const db = openInMemoryDatabase();
    const other = openInMemoryDatabase();
    db.exec('CREATE TABLE search_fts_t12 (x); CREATE TABLE search_fts_t123 (x)');
    const a = preparedStatement(db, 'SELECT x FROM search_fts_t12');
    const b = preparedStatement(db, 'SELECT x FROM search_fts_t123');
    expect(preparedStatement(db, 'SELECT x FROM search_fts_t12')).toBe(a);
    expect(preparedStatement(other, 'SELECT 1')).not.toBe(preparedStatement(db, 'SELECT 1'));
    forgetStatementsNaming(db, 'search_fts_t12');
    expect(preparedStatement(db, 'SELECT x FROM search_fts_t12')).not.toBe(a);
    expect(preparedStatement(db, 'SELECT x FROM search_fts_t123')).toBe(b);
    db.close();
    other.close();
  });
});
