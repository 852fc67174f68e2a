import type { Migration } from './migration.js';

/**
 * Finds a tenant's knowledge objects by identity key across types (`findByIdentityKeys`): the one
 * look-up per consolidated batch that queues re-enrichment of the objects its memories name.
 */
export const knowledgeIdentityKeysMigration: Migration = {
  id: 52,
  name: 'knowledge_identity_keys',
  up: `
    CREATE INDEX knowledge_objects_tenant_identity ON knowledge_objects (tenant_id, identity_key);
  `,
};
