import type {
  ApiKeyCredential,
  ApiKeyRecord,
  ApiKeyStore,
  ApiKeyStatus,
  ApiKeyUsage,
  NewApiKeyRecord,
} from '../../server/ports/api-keys.js';
import type { EmbeddedDatabase } from './database.js';

interface Row {
  id: string;
  tenant_id: string;
  name: string;
  scopes: string;
  namespace_restrictions: string | null;
  ip_allowlist: string | null;
  secret_hash: string;
  secret_prefix: string;
  status: ApiKeyStatus;
  created_by: string | null;
  secret_issued_to: string | null;
  created_at: string;
  rotated_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

type CredentialRow = [string, string, string, ApiKeyStatus, string, string | null, string | null, string | null];

const columns = `id, tenant_id, name, scopes, namespace_restrictions, ip_allowlist, secret_hash, secret_prefix,
  status, created_by, secret_issued_to, created_at, rotated_at, revoked_at, last_used_at`;

function strings(json: string | null): string[] | null {
  return json === null ? null : (JSON.parse(json) as string[]);
}

function toRecord(row: Row): ApiKeyRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    scopes: strings(row.scopes) ?? [],
    namespaceRestrictions: strings(row.namespace_restrictions),
    ipAllowlist: strings(row.ip_allowlist),
    secretHash: row.secret_hash,
    secretPrefix: row.secret_prefix,
    status: row.status,
    createdBy: row.created_by,
    secretIssuedTo: row.secret_issued_to,
    createdAt: row.created_at,
    rotatedAt: row.rotated_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

/**
 * API keys in the embedded libsql database. Every statement is prepared once; the authentication
 * lookup is a single probe of the UNIQUE index on `secret_hash`.
 */
export function createEmbeddedApiKeyStore(db: EmbeddedDatabase): ApiKeyStore {
  const insert = db.prepare(`INSERT INTO api_keys (id, tenant_id, name, scopes, namespace_restrictions, ip_allowlist,
      secret_hash, secret_prefix, status, created_by, secret_issued_to, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?)`);
  const list = db.prepare(`SELECT ${columns} FROM api_keys WHERE tenant_id = ? ORDER BY created_at DESC, id`);
  const get = db.prepare(`SELECT ${columns} FROM api_keys WHERE tenant_id = ? AND id = ?`);
  // Raw (array) rows of only the columns authentication needs: libsql's cost grows with every column
  // it materialises into an object, and this statement runs on every X-API-Key request.
  const bySecret = db
    .prepare(
      `SELECT id, tenant_id, secret_hash, status, scopes, namespace_restrictions, ip_allowlist, last_used_at
      FROM api_keys WHERE secret_hash = ?`,
    )
    .raw(true);
  const replaceSecret = db.prepare(`UPDATE api_keys SET secret_hash = ?, secret_prefix = ?, rotated_at = ?, secret_issued_to = ?
    WHERE tenant_id = ? AND id = ? AND status = 'active'`);
  const revoke = db.prepare(`UPDATE api_keys SET status = 'revoked', revoked_at = ?
    WHERE tenant_id = ? AND id = ? AND status = 'active'`);
  const touch = db.prepare(`UPDATE api_keys SET last_used_at = ?
    WHERE tenant_id = ? AND id = ? AND (last_used_at IS NULL OR last_used_at < ?)`);

  const getRow = (tenantId: string, keyId: string) => get.get([tenantId, keyId]) as Row | undefined;
  const touchAll = db.transaction((uses: readonly ApiKeyUsage[]) => {
    for (const u of uses) touch.run([u.usedAt, u.tenantId, u.keyId, u.usedAt]);
  });

  return {
    async insert(tenantId, key: NewApiKeyRecord) {
      insert.run([
        key.id,
        tenantId,
        key.name,
        JSON.stringify(key.scopes),
        key.namespaceRestrictions === null ? null : JSON.stringify(key.namespaceRestrictions),
        key.ipAllowlist === null ? null : JSON.stringify(key.ipAllowlist),
        key.secretHash,
        key.secretPrefix,
        key.createdBy,
        key.secretIssuedTo,
        key.createdAt,
      ]);
      return toRecord(getRow(tenantId, key.id)!);
    },

    async list(tenantId) {
      return (list.all([tenantId]) as Row[]).map(toRecord);
    },

    async get(tenantId, keyId) {
      const row = getRow(tenantId, keyId);
      return row ? toRecord(row) : null;
    },

    async replaceSecret(tenantId, keyId, secret) {
      const { changes } = replaceSecret.run([secret.secretHash, secret.secretPrefix, secret.rotatedAt, secret.issuedTo, tenantId, keyId]);
      if (changes === 0) return null;
      return toRecord(getRow(tenantId, keyId)!);
    },

    async revoke(tenantId, keyId, revokedAt) {
      const { changes } = revoke.run([revokedAt, tenantId, keyId]);
      const row = getRow(tenantId, keyId);
      return row ? { key: toRecord(row), changed: changes > 0 } : null;
    },

    async findBySecretHash(secretHash) {
      const row = bySecret.get([secretHash]) as CredentialRow | undefined;
      if (!row) return null;
      return {
        id: row[0],
        tenantId: row[1],
        secretHash: row[2],
        status: row[3],
        scopes: strings(row[4]) ?? [],
        namespaceRestrictions: strings(row[5]),
        ipAllowlist: strings(row[6]),
        lastUsedAt: row[7],
      } satisfies ApiKeyCredential;
    },

    async recordUsage(uses) {
      if (uses.length > 0) touchAll(uses);
    },
  };
}
