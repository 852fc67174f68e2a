import Database from 'libsql';
import { describe, expect, it } from 'vitest';
import { runMigrations } from '../../adapters/embedded/database.js';

const table = (name: string) => ({ id: 0, name, up: `CREATE TABLE ${name} (x INTEGER)` });
const tables = (db: InstanceType<typeof Database>) =>
  (db.prepare("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 't_%' ORDER BY name").all() as { name: string }[]).map(
    (r) => r.name,
  );

describe('embedded migrations', () => {
  it('applies each migration once, in id order, and records it', () => {
    const db = new Database(':memory:');
    const order: number[] = [];
    const ms = [2, 1, 3].map((id) => ({ id, name: `m${id}`, up: () => void order.push(id) }));
    runMigrations(db, ms);
    runMigrations(db, ms);
    expect(order).toEqual([1, 2, 3]);
  });

  it('runs a lower-id migration added after higher ones were applied', () => {
    const db = new Database(':memory:');
    runMigrations(db, [{ ...table('t_a'), id: 30 }]);
    runMigrations(db, [
      { ...table('t_b'), id: 10 },
      { ...table('t_a'), id: 30 },
    ]);
    expect(tables(db)).toEqual(['t_a', 't_b']);
  });

  it('rolls back a failing migration and refuses unknown recorded ids and duplicate ids', () => {
    const db = new Database(':memory:');
    expect(() => runMigrations(db, [{ id: 1, name: 'bad', up: 'CREATE TABLE t_c (x); SELECT * FROM missing_table' }])).toThrow();
    expect(tables(db)).toEqual([]);
    runMigrations(db, [{ ...table('t_d'), id: 5 }]);
    expect(() => runMigrations(db, [{ ...table('t_e'), id: 1 }])).toThrow(/does not know \(5\)/);
    expect(() =>
      runMigrations(new Database(':memory:'), [
        { ...table('t_f'), id: 1 },
        { ...table('t_g'), id: 1 },
      ]),
    ).toThrow(/duplicate/);
  });
});
