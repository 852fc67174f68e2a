import type Database from 'libsql';

/**
 * One schema step. `up` is SQL, or a function for steps that need logic; it runs inside a transaction.
 * The database is typed from the driver, not from `../database.ts`, which runs the migrations: no cycle.
 */
export interface Migration {
  id: number;
  name: string;
  up: string | ((db: InstanceType<typeof Database>) => void);
}
