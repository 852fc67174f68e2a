import type { Migration } from './migration.js';

/**
 * Pending SSO logins (between POST /auth/sso/login and GET /auth/callback). The state is stored only
 * as its SHA-256 hash; rows are deleted when consumed and swept when expired. Times are epoch ms.
 */
export const ssoStateMigration: Migration = {
  id: 3,
  name: 'sso_state',
  up: `
    CREATE TABLE sso_states (
      state_hash    TEXT PRIMARY KEY,
      provider_id   TEXT NOT NULL,
      nonce         TEXT NOT NULL,
      code_verifier TEXT NOT NULL,
      redirect_uri  TEXT NOT NULL,
      created_at    INTEGER NOT NULL,
      expires_at    INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX sso_states_expires ON sso_states (expires_at);
  `,
};
