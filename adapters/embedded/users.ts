import type { ExternalIdentityRecord, UserRecord, UserStore } from '../../server/ports/users.js';
import type { EmbeddedDatabase } from './database.js';

interface UserRow {
  id: string;
  email: string;
  name: string | null;
  password_hash: string | null;
  created_at: string;
}

interface IdentityRow {
  provider: string;
  subject: string;
  user_id: string;
  email: string | null;
  created_at: string;
}

const toUser = (r: UserRow): UserRecord => ({
  id: r.id,
  email: r.email,
  name: r.name,
  passwordHash: r.password_hash,
  createdAt: r.created_at,
});
const toIdentity = (r: IdentityRow): ExternalIdentityRecord => ({
  provider: r.provider,
  subject: r.subject,
  userId: r.user_id,
  email: r.email,
  createdAt: r.created_at,
});

/** Users and SSO identities in the embedded database. */
export function createEmbeddedUserStore(db: EmbeddedDatabase): UserStore {
  const insert = db.prepare(
    'INSERT INTO users (id, email, name, password_hash, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(email) DO NOTHING',
  );
  const byId = db.prepare('SELECT id, email, name, password_hash, created_at FROM users WHERE id = ?');
  const byEmail = db.prepare('SELECT id, email, name, password_hash, created_at FROM users WHERE email = ?');
  const setHash = db.prepare('UPDATE users SET password_hash = ? WHERE id = ?');
  const del = db.prepare('DELETE FROM users WHERE id = ?');
  const link = db.prepare(
    'INSERT INTO user_identities (provider, subject, user_id, email, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(provider, subject) DO NOTHING',
  );
  const byIdentity = db.prepare(
    `SELECT u.id, u.email, u.name, u.password_hash, u.created_at
       FROM user_identities i JOIN users u ON u.id = i.user_id
      WHERE i.provider = ? AND i.subject = ?`,
  );
  const identitiesOf = db.prepare(
    'SELECT provider, subject, user_id, email, created_at FROM user_identities WHERE user_id = ? ORDER BY created_at, provider',
  );

  return {
    async create(user) {
      const email = user.email.toLowerCase();
      const { changes } = insert.run([user.id, email, user.name, user.passwordHash, user.createdAt]);
      return changes === 1 ? { ...user, email } : null;
    },
    async findById(userId) {
      const row = byId.get([userId]) as UserRow | undefined;
      return row ? toUser(row) : null;
    },
    async findByEmail(email) {
      const row = byEmail.get([email.toLowerCase()]) as UserRow | undefined;
      return row ? toUser(row) : null;
    },
    async setPasswordHash(userId, passwordHash) {
      setHash.run([passwordHash, userId]);
    },
    async delete(userId) {
      del.run([userId]);
    },
    async linkIdentity(identity) {
      const { changes } = link.run([identity.provider, identity.subject, identity.userId, identity.email, identity.createdAt]);
      return changes === 1;
    },
    async findByIdentity(provider, subject) {
      const row = byIdentity.get([provider, subject]) as UserRow | undefined;
      return row ? toUser(row) : null;
    },
    async listIdentities(userId) {
      return (identitiesOf.all([userId]) as IdentityRow[]).map(toIdentity);
    },
  };
}
