import type { Migration } from './migration.js';

/**
 * Identity: users and their SSO identities, tenants and memberships, sign-in sessions with their
 * refresh tokens, step-up tokens, break-glass requests and the hash-chained audit log.
 *
 * Secrets are never stored: refresh and step-up tokens keep only SHA-256 of their secret part
 * (BLOB), passwords only their argon2id PHC string. Times are RFC 3339 text (`toISOString`), which
 * sorts and compares correctly as text.
 */
export const identityMigration: Migration = {
  id: 1,
  name: 'identity',
  up: `
    CREATE TABLE users (
      id            TEXT PRIMARY KEY,
      email         TEXT NOT NULL UNIQUE CHECK (email = lower(email)),
      name          TEXT,
      password_hash TEXT,
      created_at    TEXT NOT NULL
    );

    CREATE TABLE user_identities (
      provider   TEXT NOT NULL,
      subject    TEXT NOT NULL,
      user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      email      TEXT,
      created_at TEXT NOT NULL,
      PRIMARY KEY (provider, subject)
    );
    CREATE INDEX user_identities_user ON user_identities(user_id);

    CREATE TABLE tenants (
      id         TEXT PRIMARY KEY,
      name       TEXT NOT NULL,
      plan       TEXT NOT NULL DEFAULT 'free',
      status     TEXT NOT NULL DEFAULT 'active',
      created_at TEXT NOT NULL
    );

    CREATE TABLE memberships (
      tenant_id  TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      role       TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
      is_default INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      PRIMARY KEY (tenant_id, user_id)
    );
    CREATE INDEX memberships_user ON memberships(user_id, created_at);

    CREATE TABLE sessions (
      id               TEXT PRIMARY KEY,
      user_id          TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      tenant_id        TEXT NOT NULL,
      method           TEXT NOT NULL CHECK (method IN ('password', 'sso')),
      ip               TEXT,
      user_agent       TEXT,
      created_at       TEXT NOT NULL,
      authenticated_at TEXT NOT NULL,
      expires_at       TEXT NOT NULL,
      revoked_at       TEXT,
      revoke_reason    TEXT
    );
    CREATE INDEX sessions_user ON sessions(user_id);

    CREATE TABLE refresh_tokens (
      id          TEXT PRIMARY KEY,
      session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      secret_hash BLOB NOT NULL,
      created_at  TEXT NOT NULL,
      rotated_at  TEXT
    );
    CREATE INDEX refresh_tokens_session ON refresh_tokens(session_id);

    CREATE TABLE step_up_tokens (
      id          TEXT PRIMARY KEY,
      secret_hash BLOB NOT NULL,
      user_id     TEXT NOT NULL,
      tenant_id   TEXT NOT NULL,
      session_id  TEXT NOT NULL,
      action      TEXT NOT NULL,
      created_at  TEXT NOT NULL,
      expires_at  TEXT NOT NULL
    );
    CREATE INDEX step_up_tokens_expiry ON step_up_tokens(expires_at);

    CREATE TABLE break_glass_requests (
      id               TEXT PRIMARY KEY,
      tenant_id        TEXT NOT NULL,
      requester_id     TEXT NOT NULL,
      reason           TEXT NOT NULL,
      duration_minutes INTEGER NOT NULL,
      status           TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'expired')),
      created_at       TEXT NOT NULL,
      decided_at       TEXT,
      decided_by       TEXT,
      expires_at       TEXT
    );
    CREATE INDEX break_glass_tenant ON break_glass_requests(tenant_id, created_at);
    CREATE INDEX break_glass_grant ON break_glass_requests(tenant_id, requester_id, status);

    CREATE TABLE audit_events (
      tenant_id     TEXT NOT NULL,
      seq           INTEGER NOT NULL,
      id            TEXT NOT NULL UNIQUE,
      type          TEXT NOT NULL,
      actor_user_id TEXT,
      actor_key_id  TEXT,
      ip            TEXT,
      user_agent    TEXT,
      target_type   TEXT,
      target_id     TEXT,
      details       TEXT,
      created_at    TEXT NOT NULL,
      prev_hash     TEXT NOT NULL,
      hash          TEXT NOT NULL,
      PRIMARY KEY (tenant_id, seq)
    ) WITHOUT ROWID;

    CREATE TABLE audit_heads (
      tenant_id TEXT PRIMARY KEY,
      seq       INTEGER NOT NULL,
      hash      TEXT NOT NULL
    );
  `,
};
