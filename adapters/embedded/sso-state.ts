import type { PendingLogin, SsoStateStore } from '../../server/ports/sso-state.js';
import type { EmbeddedDatabase } from './database.js';

interface Row {
  state_hash: string;
  provider_id: string;
  nonce: string;
  code_verifier: string;
  redirect_uri: string;
  created_at: number;
  expires_at: number;
}

/**
 * Pending SSO logins in the embedded database. `consume` is one `DELETE … RETURNING` statement, so
 * a state can be redeemed once even by two processes sharing the file.
 */
export function createEmbeddedSsoStateStore(db: EmbeddedDatabase): SsoStateStore {
  const insert = db.prepare(
    `INSERT INTO sso_states (state_hash, provider_id, nonce, code_verifier, redirect_uri, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const take = db.prepare(
    `DELETE FROM sso_states WHERE state_hash = ?
     RETURNING state_hash, provider_id, nonce, code_verifier, redirect_uri, created_at, expires_at`,
  );
  const purge = db.prepare('DELETE FROM sso_states WHERE expires_at <= ?');

  return {
    async save(login) {
      insert.run([
        login.stateHash,
        login.providerId,
        login.nonce,
        login.codeVerifier,
        login.redirectUri,
        login.createdAt.getTime(),
        login.expiresAt.getTime(),
      ]);
    },
    async consume(stateHash, now) {
      const row = take.get([stateHash]) as Row | undefined;
      if (!row || row.expires_at <= now.getTime()) return null;
      return fromRow(row);
    },
    async purgeExpired(now) {
      return purge.run([now.getTime()]).changes;
    },
  };
}

function fromRow(row: Row): PendingLogin {
  return {
    stateHash: row.state_hash,
    providerId: row.provider_id,
    nonce: row.nonce,
    codeVerifier: row.code_verifier,
    redirectUri: row.redirect_uri,
    createdAt: new Date(Number(row.created_at)),
    expiresAt: new Date(Number(row.expires_at)),
  };
}
