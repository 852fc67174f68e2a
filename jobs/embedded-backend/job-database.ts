import type Database from 'libsql';

/**
 * The embedded profile's libsql connection as the Agenda backend uses it. Named from the driver, not
 * from adapters/embedded, so jobs/ stays off the adapters; the connection itself (with migrations that
 * create `agenda_jobs`) comes from the composition root.
 */
export type JobDatabase = InstanceType<typeof Database>;
