import type { StepUpTokenRecord, StepUpTokenStore } from '../../server/ports/step-up.js';
import type { EmbeddedDatabase } from './database.js';

interface Row {
  id: string;
  secret_hash: Uint8Array;
  user_id: string;
  tenant_id: string;
  session_id: string;
  action: string;
  created_at: string;
  expires_at: string;
}

/** Step-up tokens in the embedded database. */
export function createEmbeddedStepUpTokenStore(db: EmbeddedDatabase): StepUpTokenStore {
  const insert = db.prepare(
    'INSERT INTO step_up_tokens (id, secret_hash, user_id, tenant_id, session_id, action, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const find = db.prepare(
    'SELECT id, secret_hash, user_id, tenant_id, session_id, action, created_at, expires_at FROM step_up_tokens WHERE tenant_id = ? AND id = ?',
  );
  const del = db.prepare('DELETE FROM step_up_tokens WHERE tenant_id = ? AND id = ?');
  const delExpired = db.prepare('DELETE FROM step_up_tokens WHERE expires_at < ?');
  return {
    async create(t) {
      insert.run([t.id, Buffer.from(t.secretHash), t.userId, t.tenantId, t.sessionId, t.action, t.createdAt, t.expiresAt]);
    },
    async find(tenantId, tokenId) {
      const r = find.get([tenantId, tokenId]) as Row | undefined;
      if (!r) return null;
      return {
        id: r.id,
        secretHash: new Uint8Array(r.secret_hash),
        userId: r.user_id,
        tenantId: r.tenant_id,
        sessionId: r.session_id,
        action: r.action,
        createdAt: r.created_at,
        expiresAt: r.expires_at,
      } satisfies StepUpTokenRecord;
    },
    async delete(tenantId, tokenId) {
      del.run([tenantId, tokenId]);
    },
    async deleteExpired(before) {
      return delExpired.run([before]).changes;
    },
  };
}
