import type { Collection, Db } from 'mongodb';
import type { PendingLogin, SsoStateStore } from '../../server/ports/sso-state.js';

interface SsoStateDoc {
  _id: string;
  providerId: string;
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * Pending SSO logins in MongoDB (collection `sso_states`, keyed by the state hash). `consume` is one
 * `findOneAndDelete`, so a state is redeemed at most once across instances; a TTL index sweeps
 * expired rows in the background (and `consume` ignores expired ones before the sweep runs).
 */
export async function createMongoSsoStateStore(db: Db): Promise<SsoStateStore> {
  const states: Collection<SsoStateDoc> = db.collection<SsoStateDoc>('sso_states');
  await states.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'sso_states_ttl' });

  return {
    async save(login) {
      await states.insertOne({
        _id: login.stateHash,
        providerId: login.providerId,
        nonce: login.nonce,
        codeVerifier: login.codeVerifier,
        redirectUri: login.redirectUri,
        createdAt: login.createdAt,
        expiresAt: login.expiresAt,
      });
    },
    async consume(stateHash, now) {
      const doc = await states.findOneAndDelete({ _id: stateHash });
      if (!doc || doc.expiresAt.getTime() <= now.getTime()) return null;
      return {
        stateHash: doc._id,
        providerId: doc.providerId,
        nonce: doc.nonce,
        codeVerifier: doc.codeVerifier,
        redirectUri: doc.redirectUri,
        createdAt: doc.createdAt,
        expiresAt: doc.expiresAt,
      } satisfies PendingLogin;
    },
    async purgeExpired(now) {
      const res = await states.deleteMany({ expiresAt: { $lte: now } });
      return res.deletedCount;
    },
  };
}
