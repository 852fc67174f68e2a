import Database from 'libsql';
import { createEmbeddedApiKeyStore } from '../../adapters/embedded/api-key-store.js';
import { runMigrations } from '../../adapters/embedded/database.js';
import { identityMigration } from '../../adapters/embedded/migrations/0001_identity.js';
import { apiKeysMigration } from '../../adapters/embedded/migrations/0002_api_keys.js';
import { apiKeySecretHolderMigration } from '../../adapters/embedded/migrations/0004_api_key_secret_holder.js';
import { membershipRoleSinceMigration } from '../../adapters/embedded/migrations/0006_membership_role_since.js';
import { createEmbeddedTenantStore } from '../../adapters/embedded/tenants.js';

/**
 * The embedded API key store and tenant store over an in-memory database with only the tables they
 * use (cheaper than every migration, for suites that open one per test). With `activeTenantId`, that
 * tenant exists and is active, so keys of it authenticate.
 */
export function openApiKeyStore(activeTenantId?: string) {
  const db = new Database(':memory:');
  runMigrations(db, [identityMigration, apiKeysMigration, apiKeySecretHolderMigration, membershipRoleSinceMigration]);
  if (activeTenantId !== undefined) {
    db.prepare(
      "INSERT INTO tenants (id, name, plan, status, created_at) VALUES (?, 'keys', 'free', 'active', '2030-01-01T00:00:00.000Z')",
    ).run([activeTenantId]);
  }
  return { db, store: createEmbeddedApiKeyStore(db), tenants: createEmbeddedTenantStore(db) };
}
