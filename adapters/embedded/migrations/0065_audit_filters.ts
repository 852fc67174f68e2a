import type { Migration } from './migration.js';

/**
 * The portal's audit page filters on event type (exact or an `area.` prefix) and on the actor, newest
 * first: each filter reads one range of an index instead of the tenant's whole log.
 */
export const auditFiltersMigration: Migration = {
  id: 65,
  name: 'audit_filters',
  up: `
    CREATE INDEX audit_events_type ON audit_events(tenant_id, type, seq);
    CREATE INDEX audit_events_actor_user ON audit_events(tenant_id, actor_user_id, seq);
    CREATE INDEX audit_events_actor_key ON audit_events(tenant_id, actor_key_id, seq);
  `,
};
