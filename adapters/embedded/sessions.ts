import type { RefreshTokenRecord, RotateResult, SessionRecord, SessionStore } from '../../server/ports/sessions.js';
import type { EmbeddedDatabase } from './database.js';

interface SessionRow {
  id: string;
  user_id: string;
  tenant_id: string;
  method: 'password' | 'sso';
  channel: 'api' | 'portal';
  ip: string | null;
  user_agent: string | null;
  created_at: string;
  authenticated_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoke_reason: string | null;
}

interface RefreshRow {
  id: string;
  session_id: string;
  secret_hash: Uint8Array;
  created_at: string;
  rotated_at: string | null;
}

const toSession = (r: SessionRow): SessionRecord => ({
  id: r.id,
  userId: r.user_id,
  tenantId: r.tenant_id,
  method: r.method,
  channel: r.channel,
  ip: r.ip,
  userAgent: r.user_agent,
  createdAt: r.created_at,
  authenticatedAt: r.authenticated_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
  revokeReason: r.revoke_reason,
});

const toRefresh = (r: RefreshRow): RefreshTokenRecord => ({
  id: r.id,
  sessionId: r.session_id,
  secretHash: new Uint8Array(r.secret_hash),
  createdAt: r.created_at,
  rotatedAt: r.rotated_at,
});

/** Sessions and refresh tokens in the embedded database. */
export function createEmbeddedSessionStore(db: EmbeddedDatabase): SessionStore {
  const insertSession = db.prepare(
    `INSERT INTO sessions (id, user_id, tenant_id, method, channel, ip, user_agent, created_at, authenticated_at, expires_at, revoked_at, revoke_reason)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)`,
  );
  const insertRefresh = db.prepare(
    'INSERT INTO refresh_tokens (id, session_id, secret_hash, created_at, rotated_at) VALUES (?, ?, ?, ?, NULL)',
  );
  const getSession = db.prepare(
    `SELECT id, user_id, tenant_id, method, channel, ip, user_agent, created_at, authenticated_at, expires_at, revoked_at, revoke_reason
       FROM sessions WHERE id = ?`,
  );
  const getRefresh = db.prepare('SELECT id, session_id, secret_hash, created_at, rotated_at FROM refresh_tokens WHERE id = ?');
  const purgeEnded = db.prepare('DELETE FROM sessions WHERE expires_at < ? OR (revoked_at IS NOT NULL AND revoked_at < ?)');
  const markRotated = db.prepare('UPDATE refresh_tokens SET rotated_at = ? WHERE id = ? AND rotated_at IS NULL');
  const extend = db.prepare('UPDATE sessions SET expires_at = ? WHERE id = ? AND revoked_at IS NULL');
  const revoke = db.prepare('UPDATE sessions SET revoked_at = ?, revoke_reason = ? WHERE id = ? AND revoked_at IS NULL');
  const revokeUser = db.prepare('UPDATE sessions SET revoked_at = ?, revoke_reason = ? WHERE user_id = ? AND revoked_at IS NULL');

  const createTx = db.transaction((s: SessionRecord, r: RefreshTokenRecord) => {
    insertSession.run([s.id, s.userId, s.tenantId, s.method, s.channel, s.ip, s.userAgent, s.createdAt, s.authenticatedAt, s.expiresAt]);
    insertRefresh.run([r.id, r.sessionId, Buffer.from(r.secretHash), r.createdAt]);
  });

  const rotateTx = db.transaction((oldId: string, rotatedAt: string, next: RefreshTokenRecord, expiresAt: string): RotateResult => {
    if (markRotated.run([rotatedAt, oldId]).changes !== 1) return 'already_rotated';
    insertRefresh.run([next.id, next.sessionId, Buffer.from(next.secretHash), next.createdAt]);
    extend.run([expiresAt, next.sessionId]);
    return 'rotated';
  });

  return {
    async create(session, refresh) {
      createTx.immediate(session, refresh);
    },
    async get(sessionId) {
      const row = getSession.get([sessionId]) as SessionRow | undefined;
      return row ? toSession(row) : null;
    },
    async findRefreshToken(tokenId) {
      const row = getRefresh.get([tokenId]) as RefreshRow | undefined;
      return row ? toRefresh(row) : null;
    },
    async rotateRefreshToken(oldTokenId, rotatedAt, next, sessionExpiresAt) {
      return rotateTx.immediate(oldTokenId, rotatedAt, next, sessionExpiresAt);
    },
    async revoke(sessionId, at, reason) {
      revoke.run([at, reason, sessionId]);
    },
    async revokeAllForUser(userId, at, reason) {
      return revokeUser.run([at, reason, userId]).changes;
    },
    async purgeEnded(before) {
      // Refresh tokens go with their session (ON DELETE CASCADE).
      return purgeEnded.run([before, before]).changes;
    },
  };
}
