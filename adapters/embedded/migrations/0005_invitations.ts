import type { Migration } from './migration.js';

/**
 * Invitations to join a tenant (`server/ports/invitations.ts`): at most one pending invitation per
 * tenant and email (the partial unique index), found by the invitee through their email.
 */
export const invitationsMigration: Migration = {
  id: 5,
  name: 'invitations',
  up: `
    CREATE TABLE invitations (
      id          TEXT PRIMARY KEY,
      tenant_id   TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      email       TEXT NOT NULL,
      role        TEXT NOT NULL,
      invited_by  TEXT NOT NULL,
      status      TEXT NOT NULL,
      created_at  TEXT NOT NULL,
      expires_at  TEXT NOT NULL,
      decided_at  TEXT
    );
    CREATE UNIQUE INDEX invitations_pending ON invitations (tenant_id, email) WHERE status = 'pending';
    CREATE INDEX invitations_email ON invitations (email, status, created_at);
  `,
};
