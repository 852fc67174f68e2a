import type { Collection, Db } from 'mongodb';
import type { ApiKeyCredential, ApiKeyRecord, ApiKeyStatus, ApiKeyStore } from '../../server/ports/api-keys.js';

interface ApiKeyDoc {
  _id: string;
  tenantId: string;
  name: string;
  scopes: string[];
  namespaceRestrictions: string[] | null;
  ipAllowlist: string[] | null;
  secretHash: string;
  secretPrefix: string;
  status: ApiKeyStatus;
  createdBy: string | null;
  /** Absent on keys written before it was recorded: those count as held by their creator. */
  secretIssuedTo?: string | null;
  createdAt: Date;
  rotatedAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

function toRecord(doc: ApiKeyDoc): ApiKeyRecord {
  return {
    id: doc._id,
    tenantId: doc.tenantId,
    name: doc.name,
    scopes: doc.scopes,
    namespaceRestrictions: doc.namespaceRestrictions,
    ipAllowlist: doc.ipAllowlist,
    secretHash: doc.secretHash,
    secretPrefix: doc.secretPrefix,
    status: doc.status,
    createdBy: doc.createdBy,
    secretIssuedTo: doc.secretIssuedTo === undefined ? doc.createdBy : doc.secretIssuedTo,
    createdAt: doc.createdAt.toISOString(),
    rotatedAt: iso(doc.rotatedAt),
    revokedAt: iso(doc.revokedAt),
    lastUsedAt: iso(doc.lastUsedAt),
  };
}

/**
 * API keys in MongoDB (collection `api_keys`). The unique index on `secretHash` is the authentication
 * lookup; rotation and revocation are single conditional updates, so the old secret stops matching in
 * the same write that installs the new one, for every instance at once.
 */
export async function createMongoApiKeyStore(db: Db): Promise<ApiKeyStore> {
  const keys: Collection<ApiKeyDoc> = db.collection<ApiKeyDoc>('api_keys');
  await keys.createIndex({ secretHash: 1 }, { unique: true, name: 'api_keys_secret_hash' });
  await keys.createIndex({ tenantId: 1, createdAt: -1 }, { name: 'api_keys_by_tenant' });

  return {
    async insert(tenantId, key) {
      const doc: ApiKeyDoc = {
        _id: key.id,
        tenantId,
        name: key.name,
        scopes: [...key.scopes],
        namespaceRestrictions: key.namespaceRestrictions ? [...key.namespaceRestrictions] : null,
        ipAllowlist: key.ipAllowlist ? [...key.ipAllowlist] : null,
        secretHash: key.secretHash,
        secretPrefix: key.secretPrefix,
        status: 'active',
        createdBy: key.createdBy,
        secretIssuedTo: key.secretIssuedTo,
        createdAt: new Date(key.createdAt),
        rotatedAt: null,
        revokedAt: null,
        lastUsedAt: null,
      };
      await keys.insertOne(doc);
      return toRecord(doc);
    },

    async list(tenantId) {
      const docs = await keys.find({ tenantId }).sort({ createdAt: -1, _id: 1 }).toArray();
      return docs.map(toRecord);
    },

    async get(tenantId, keyId) {
      const doc = await keys.findOne({ _id: keyId, tenantId });
      return doc ? toRecord(doc) : null;
    },

    async replaceSecret(tenantId, keyId, secret) {
      const doc = await keys.findOneAndUpdate(
        { _id: keyId, tenantId, status: 'active' },
        {
          $set: {
            secretHash: secret.secretHash,
            secretPrefix: secret.secretPrefix,
            rotatedAt: new Date(secret.rotatedAt),
            secretIssuedTo: secret.issuedTo,
          },
        },
        { returnDocument: 'after' },
      );
      return doc ? toRecord(doc) : null;
    },

    async revoke(tenantId, keyId, revokedAt) {
      const res = await keys.updateOne(
        { _id: keyId, tenantId, status: 'active' },
        { $set: { status: 'revoked', revokedAt: new Date(revokedAt) } },
      );
      const doc = await keys.findOne({ _id: keyId, tenantId });
      return doc ? { key: toRecord(doc), changed: res.modifiedCount > 0 } : null;
    },

    async findBySecretHash(secretHash) {
      const doc = await keys.findOne(
        { secretHash },
        { projection: { tenantId: 1, secretHash: 1, status: 1, scopes: 1, namespaceRestrictions: 1, ipAllowlist: 1, lastUsedAt: 1 } },
      );
      if (!doc) return null;
      return {
        id: doc._id,
        tenantId: doc.tenantId,
        secretHash: doc.secretHash,
        status: doc.status,
        scopes: doc.scopes,
        namespaceRestrictions: doc.namespaceRestrictions,
        ipAllowlist: doc.ipAllowlist,
        lastUsedAt: iso(doc.lastUsedAt),
      } satisfies ApiKeyCredential;
    },

    async recordUsage(uses) {
      if (uses.length === 0) return;
      await keys.bulkWrite(
        uses.map((u) => {
          const at = new Date(u.usedAt);
          return {
            updateOne: {
              filter: { _id: u.keyId, tenantId: u.tenantId, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lt: at } }] },
              update: { $set: { lastUsedAt: at } },
            },
          };
        }),
        { ordered: false },
      );
    },
  };
}
