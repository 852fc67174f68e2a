import type { Migration } from './migration.js';

/**
 * Who received each key's current secret (`secret_issued_to`): the creator at creation, whoever
 * rotated the key after that. Removing a member revokes the keys they hold, which is not the same as
 * the keys they created once someone else has rotated one. Existing keys are attributed to their
 * creator; for a key rotated before this migration that is a guess (the audit log's `api_key.rotate`
 * events name who actually received it).
 */
export const apiKeySecretHolderMigration: Migration = {
  id: 4,
  name: 'api_key_secret_holder',
  up: `
    ALTER TABLE api_keys ADD COLUMN secret_issued_to TEXT;
    UPDATE api_keys SET secret_issued_to = created_by;
  `,
};
