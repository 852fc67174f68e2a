import type { OnboardingObserver } from './onboarding.js';
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';
import { AppError, notFound, unauthenticated } from '../errors.js';
import type { ApiKeyCredential, ApiKeyRecord, ApiKeyStatus, ApiKeyStore, ApiKeyUsage } from '../ports/api-keys.js';
import type { ApiKeyAuthenticator, ApiKeyPrincipal, ApiKeyScope } from '../principal.js';
import { auditEventTypes, type AuditEventType, type AuditService } from './audit.js';
import { systemClock, type Clock } from './clock.js';
import { keyScopeRequires, scopesAllowedFor, type RoleName } from './roles.js';
import { assertTenantActive } from './tenants.js';
import type { TenantStore } from '../ports/tenants.js';
import { compileAllowlist, type IpMatcher } from './ip-allowlist.js';
import { validateAllowlist, validateName, validateNamespaces, validateScopes } from './api-key-fields.js';

/**
 * Scoped API keys: create, list, rotate, revoke, and the per-request authentication of `X-API-Key`.
 *
 * Secrets are `tmk_` + 52 lower-case base32 characters (32 random bytes, 256 bits). Only their SHA-256
 * is stored; the secret is returned once, by create and rotate. Authentication hashes the presented
 * secret, probes the unique hash index, compares the stored hash in constant time, then checks status,
 * the IP allowlist and that the key's tenant is active. This service caches nothing about a key's validity: it asks the store on every
 * request, and a rotation or revocation made by any process takes effect on the very next request
 * everywhere. (The embedded profile's store remembers lookups per process behind a change signal that
 * keeps that promise, `adapters/embedded/credential-cache.ts`.) Only derived, immutable data (a
 * compiled IP allowlist, keyed by its normalised text) is memoised here.
 *
 * `last_used_at` is kept off the hot path: a use is recorded when the stored value (or this process's
 * last recorded use) is at least `usageGranularityMs` old (default 60 s), and recorded uses are written
 * in one batch `usageFlushMs` later (default 1 s). So the list shows a key's last use to within a minute,
 * at most ~1 s after the first use of each minute; `list` flushes first, so the same process sees
 * it at once. A key in steady use costs one UPDATE per minute per process, not one per request.
 */

export const SECRET_PREFIX = 'tmk_';
const SECRET_PATTERN = /^tmk_[a-z2-7]{52}$/;
/** Characters of a secret shown in lists: `tmk_` + 8 (40 of 256 bits; not enough to guess the rest). */
const DISPLAY_PREFIX_LENGTH = 12;

export type ApiKeyAuditAction = 'api_key.create' | 'api_key.rotate' | 'api_key.revoke' | 'api_key.denied_ip';

/** What the service tells the audit log; the container adapts it to the audit service. Never carries a secret. */
export interface ApiKeyAuditEvent {
  tenantId: string;
  action: ApiKeyAuditAction;
  /** The user who acted (null for `api_key.denied_ip`, where the key itself is the actor). */
  actorUserId: string | null;
  keyId: string;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  details: Record<string, unknown>;
}

export type ApiKeyAuditSink = (event: ApiKeyAuditEvent) => Promise<void>;

/** Who performs a management action (from the bearer principal and the request). */
export interface ApiKeyActor {
  tenantId: string;
  userId: string | null;
  /** May rotate and revoke keys other users created (owners and admins by their own role); default: own keys only. */
  manageAll?: boolean;
  ip?: string | null;
  userAgent?: string | null;
  requestId?: string | null;
}

/**
 * An actor about to receive a secret (create, rotate). `role` is the user's own base role, never a
 * break-glass grant: a key outlives any grant, so its scopes must be within that role. Only the
 * system (no user) issues keys without one.
 */
export type ApiKeyIssuer = ApiKeyActor & ({ userId: string; role: RoleName } | { userId: null; role: null });

/**
 * A new key's settings. Refusals name the fields as the API spells them (`namespace_restrictions.1`),
 * as every service's validation errors do: the error body is read by the client that sent the request.
 */
export interface CreateApiKeyInput {
  name: string;
  scopes: readonly string[];
  /** Namespaces the key may read and write; absent or null: every namespace. */
  namespaceRestrictions?: readonly string[] | null;
  /** Client addresses or CIDR ranges; absent or null: any address. */
  ipAllowlist?: readonly string[] | null;
}

/** A key as the API shows it: everything but the secret and its hash. */
export interface ApiKeyView {
  keyId: string;
  tenantId: string;
  name: string;
  scopes: ApiKeyScope[];
  namespaceRestrictions: string[] | null;
  ipAllowlist: string[] | null;
  prefix: string;
  status: ApiKeyStatus;
  createdBy: string | null;
  createdAt: string;
  rotatedAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface ApiKeyService extends ApiKeyAuthenticator {
  /** 403 when the key's scopes exceed the creator's own role. */
  create(actor: ApiKeyIssuer, input: CreateApiKeyInput): Promise<{ key: ApiKeyView; secret: string }>;
  list(tenantId: string): Promise<ApiKeyView[]>;
  get(tenantId: string, keyId: string): Promise<ApiKeyView>;
  /**
   * New secret for an active key, issued to the actor; the old one stops working at once. Revoked key
   * → 409; another user's key without `manageAll`, or a key with scopes beyond the actor's own role → 403.
   */
  rotate(actor: ApiKeyIssuer, keyId: string): Promise<{ key: ApiKeyView; secret: string }>;
  /** Idempotent: revoking a revoked key answers the same, with `alreadyRevoked: true` and no audit event. Another user's key without `manageAll` → 403. */
  revoke(actor: ApiKeyActor, keyId: string): Promise<{ status: 'revoked'; alreadyRevoked: boolean; key: ApiKeyView }>;
  /**
   * Revokes every active key of the actor's tenant whose current secret `userId` received (a removed
   * member's): the keys they created and nobody has rotated since, and the keys they rotated, whoever
   * created them. Returns their ids. (Named for its first meaning; the members service calls it.)
   */
  revokeHeldBy(actor: ApiKeyActor, userId: string): Promise<string[]>;
  /** The key behind an authenticated principal (for `GET /api-keys/current`). */
  describe(principal: ApiKeyPrincipal): Promise<ApiKeyView>;
  /** Throws 403 SCOPE_MISSING unless the principal's key carries the scope. */
  checkScope(principal: ApiKeyPrincipal, scope: ApiKeyScope): void;
  /** Writes recorded `last_used_at` values now. */
  flushUsage(): Promise<void>;
  /** Flushes and stops the background timer. */
  close(): Promise<void>;
}

export interface ApiKeyServiceDeps {
  store: ApiKeyStore;
  /** The key's tenant, for its status (a suspended tenant's keys are refused). */
  tenants: Pick<TenantStore, 'get'>;
  audit?: ApiKeyAuditSink;
  logger: { warn(obj: object, msg: string): void };
  clock?: Clock;
  /** Minimum interval between two recorded uses of one key (default 60 000 ms). */
  usageGranularityMs?: number;
  /** Delay before recorded uses are written (default 1 000 ms). */
  usageFlushMs?: number;
  /** Told of every key created (the tenant's onboarding checklist); never throws. */
  onboarding?: OnboardingObserver;
}

/**
 * Routes the service's events to the tenant's hash-chained audit log. An action the audit service does
 * not (yet) list as an event type is logged as a warning instead of being dropped silently.
 */
export function apiKeyAuditSink(
  audit: Pick<AuditService, 'record'>,
  logger: { warn(obj: object, msg: string): void },
  knownTypes: readonly string[] = auditEventTypes,
): ApiKeyAuditSink {
  return async (e) => {
    if (!knownTypes.includes(e.action)) {
      logger.warn(
        { audit: e.action, tenantId: e.tenantId, keyId: e.keyId, ip: e.ip, ...e.details },
        'audit event type not registered; logged only',
      );
      return;
    }
    await audit.record({
      tenantId: e.tenantId,
      type: e.action as AuditEventType,
      actor: e.actorUserId ? { userId: e.actorUserId } : { keyId: e.keyId },
      ip: e.ip,
      userAgent: e.userAgent,
      target: { type: 'api_key', id: e.keyId },
      details: e.requestId ? { ...e.details, request_id: e.requestId } : e.details,
    });
  };
}

export function hashApiKeySecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function generateApiKeySecret(): string {
  return SECRET_PREFIX + encodeBase32LowerCaseNoPadding(randomBytes(32));
}

function view(record: ApiKeyRecord): ApiKeyView {
  return {
    keyId: record.id,
    tenantId: record.tenantId,
    name: record.name,
    scopes: [...record.scopes] as ApiKeyScope[],
    namespaceRestrictions: record.namespaceRestrictions ? [...record.namespaceRestrictions] : null,
    ipAllowlist: record.ipAllowlist ? [...record.ipAllowlist] : null,
    prefix: record.secretPrefix,
    status: record.status,
    createdBy: record.createdBy,
    createdAt: record.createdAt,
    rotatedAt: record.rotatedAt,
    revokedAt: record.revokedAt,
    lastUsedAt: record.lastUsedAt,
  };
}

/**
 * 403 unless the issuer's own role covers every scope of the key whose secret they are about to
 * receive. `requested`: the create request's scopes, so the refusal names the offending entries.
 */
function assertWithinRole(actor: ApiKeyIssuer, scopes: readonly ApiKeyScope[], requested?: readonly string[]): void {
  if (!actor.role) {
    if (actor.userId === null) return; // the system
    throw new AppError('FORBIDDEN', 'an API key can only be issued to a user acting with their role');
  }
  const role = actor.role;
  const allowed = new Set(scopesAllowedFor(role));
  const missing = scopes.filter((s) => !allowed.has(s));
  if (missing.length === 0) return;
  const fields = requested
    ? missing.map((s) => ({ field: `scopes.${requested.indexOf(s)}`, message: `role '${role}' lacks permission '${keyScopeRequires[s]}'` }))
    : undefined;
  throw new AppError(
    'FORBIDDEN',
    `role '${role}' may not hold an API key with ${missing.join(', ')}: a key's scopes must be within its holder's own role`,
    fields ? { fields } : undefined,
  );
}

export function createApiKeyService(deps: ApiKeyServiceDeps): ApiKeyService {
  const { store, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const now = () => new Date(clock());
  const granularityMs = deps.usageGranularityMs ?? 60_000;
  const flushMs = deps.usageFlushMs ?? 1_000;
  const audit = deps.audit ?? (async () => {});

  /** Compiled allowlists by their normalised text (immutable data, so safe to share and never stale). */
  const matchers = new Map<string, IpMatcher>();
  /** Per key: when this process last recorded a use (ms). */
  const recordedAt = new Map<string, number>();
  const pendingUsage = new Map<string, ApiKeyUsage>();
  /** Per key and address: when a denied-IP event was last audited (ms), to keep floods out of the audit log. */
  const deniedAuditedAt = new Map<string, number>();
  let flushTimer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> = Promise.resolve();
  let closed = false;

  const safeAudit = async (event: ApiKeyAuditEvent) => {
    try {
      await audit(event);
    } catch (err) {
      logger.warn({ err, action: event.action, keyId: event.keyId }, 'audit record failed');
    }
  };

  /** A management action's audit record: who did it, from where, to which key. */
  const auditBy = (actor: ApiKeyActor, action: ApiKeyAuditEvent['action'], keyId: string, details: Record<string, unknown>) =>
    safeAudit({
      tenantId: actor.tenantId,
      action,
      actorUserId: actor.userId,
      keyId,
      ip: actor.ip ?? null,
      userAgent: actor.userAgent ?? null,
      requestId: actor.requestId ?? null,
      details,
    });

  function matcherFor(entries: readonly string[]): IpMatcher {
    const cacheKey = entries.join(' ');
    let m = matchers.get(cacheKey);
    if (!m) {
      if (matchers.size >= 10_000) matchers.clear();
      m = compileAllowlist(entries);
      matchers.set(cacheKey, m);
    }
    return m;
  }

  function flushUsage(): Promise<void> {
    if (flushTimer) {
      clearTimeout(flushTimer);
      flushTimer = null;
    }
    if (pendingUsage.size === 0) return flushing;
    const batch = [...pendingUsage.values()];
    pendingUsage.clear();
    flushing = flushing.then(() =>
      store.recordUsage(batch).catch((err: unknown) => {
        logger.warn({ err, keys: batch.length }, 'recording API key last_used_at failed');
      }),
    );
    return flushing;
  }

  function noteUse(record: ApiKeyCredential): void {
    const at = now();
    const ms = at.getTime();
    const mine = recordedAt.get(record.id) ?? 0;
    if (ms - mine < granularityMs) return;
    if (record.lastUsedAt !== null && ms - Date.parse(record.lastUsedAt) < granularityMs) return;
    if (recordedAt.size >= 100_000) recordedAt.clear();
    recordedAt.set(record.id, ms);
    pendingUsage.set(record.id, { tenantId: record.tenantId, keyId: record.id, usedAt: at.toISOString() });
    if (!flushTimer && !closed) {
      flushTimer = setTimeout(() => void flushUsage(), flushMs);
      flushTimer.unref();
    }
  }

  async function existing(tenantId: string, keyId: string): Promise<ApiKeyRecord> {
    const record = await store.get(tenantId, keyId);
    if (!record) throw notFound('API key');
    return record;
  }

  /** Keys belong to the tenant, but only their creator (or an owner or admin) may take one over or end it. */
  async function manageable(actor: ApiKeyActor, keyId: string): Promise<ApiKeyRecord> {
    const record = await existing(actor.tenantId, keyId); // 404 when absent or another tenant's
    if (!actor.manageAll && (record.createdBy === null || record.createdBy !== actor.userId)) {
      throw new AppError('FORBIDDEN', 'only the creator of an API key, or an owner or admin of the tenant, may rotate or revoke it');
    }
    return record;
  }

  function newSecret() {
    const secret = generateApiKeySecret();
    return { secret, secretHash: hashApiKeySecret(secret), secretPrefix: secret.slice(0, DISPLAY_PREFIX_LENGTH) };
  }

  return {
    async create(actor, input) {
      const name = validateName(input.name);
      const scopes = validateScopes(input.scopes);
      assertWithinRole(actor, scopes, input.scopes);
      const namespaceRestrictions = validateNamespaces(input.namespaceRestrictions);
      const ipAllowlist = validateAllowlist(input.ipAllowlist);
      const { secret, secretHash, secretPrefix } = newSecret();
      const record = await store.insert(actor.tenantId, {
        id: randomUUID(),
        name,
        scopes,
        namespaceRestrictions,
        ipAllowlist,
        secretHash,
        secretPrefix,
        createdBy: actor.userId,
        secretIssuedTo: actor.userId,
        createdAt: now().toISOString(),
      });
      await auditBy(actor, 'api_key.create', record.id, {
        name,
        scopes,
        namespace_restrictions: namespaceRestrictions,
        ip_allowlist: ipAllowlist,
        prefix: secretPrefix,
      });
      await deps.onboarding?.(actor.tenantId, 'created_api_key');
      return { key: view(record), secret };
    },

    async list(tenantId) {
      await flushUsage();
      return (await store.list(tenantId)).map(view);
    },

    async get(tenantId, keyId) {
      return view(await existing(tenantId, keyId));
    },

    async rotate(actor, keyId) {
      const target = await manageable(actor, keyId);
      assertWithinRole(actor, target.scopes as ApiKeyScope[]);
      const { secret, secretHash, secretPrefix } = newSecret();
      const record = await store.replaceSecret(actor.tenantId, keyId, {
        secretHash,
        secretPrefix,
        rotatedAt: now().toISOString(),
        issuedTo: actor.userId,
      });
      if (!record) {
        const current = await existing(actor.tenantId, keyId);
        throw new AppError('CONFLICT', `API key is ${current.status}; only an active key can be rotated`);
      }
      await auditBy(actor, 'api_key.rotate', keyId, { prefix: secretPrefix });
      return { key: view(record), secret };
    },

    async revoke(actor, keyId) {
      await manageable(actor, keyId);
      const result = await store.revoke(actor.tenantId, keyId, now().toISOString());
      if (!result) throw notFound('API key');
      if (result.changed) {
        await auditBy(actor, 'api_key.revoke', keyId, { name: result.key.name, prefix: result.key.secretPrefix });
      }
      return { status: 'revoked', alreadyRevoked: !result.changed, key: view(result.key) };
    },

    async revokeHeldBy(actor, userId) {
      const revoked: string[] = [];
      // By who holds the working secret, not who created the key: a rotation hands its actor the new
      // secret and leaves the creator's copy dead.
      for (const key of await store.list(actor.tenantId)) {
        if (key.secretIssuedTo !== userId || key.status !== 'active') continue;
        const result = await store.revoke(actor.tenantId, key.id, now().toISOString());
        if (!result?.changed) continue;
        revoked.push(key.id);
        await auditBy(actor, 'api_key.revoke', key.id, { name: key.name, prefix: key.secretPrefix, reason: 'secret_holder_removed' });
      }
      return revoked;
    },

    async authenticate(secret, clientIp): Promise<ApiKeyPrincipal> {
      if (!SECRET_PATTERN.test(secret)) throw unauthenticated('invalid API key');
      const digest = createHash('sha256').update(secret).digest();
      const record = await store.findBySecretHash(digest.toString('hex'));
      if (!record) throw unauthenticated('invalid API key');
      const stored = Buffer.from(record.secretHash, 'hex');
      if (stored.length !== digest.length || !timingSafeEqual(stored, digest)) throw unauthenticated('invalid API key');
      if (record.status !== 'active') throw unauthenticated('API key revoked');
      if (record.ipAllowlist !== null && !matcherFor(record.ipAllowlist)(clientIp)) {
        const ms = now().getTime();
        const auditKey = `${record.id}|${clientIp}`;
        if (ms - (deniedAuditedAt.get(auditKey) ?? 0) >= granularityMs) {
          if (deniedAuditedAt.size >= 10_000) deniedAuditedAt.clear();
          deniedAuditedAt.set(auditKey, ms);
          logger.warn({ keyId: record.id, tenantId: record.tenantId, ip: clientIp }, 'API key used from an address outside its allowlist');
          await safeAudit({
            tenantId: record.tenantId,
            action: 'api_key.denied_ip',
            actorUserId: null,
            keyId: record.id,
            ip: clientIp,
            userAgent: null,
            requestId: null,
            details: {},
          });
        }
        throw new AppError('IP_NOT_ALLOWED', 'this API key may not be used from this address');
      }
      // After the allowlist: a key used from a refused address learns nothing about its tenant.
      const tenant = await deps.tenants.get(record.tenantId);
      if (!tenant) throw unauthenticated('invalid API key');
      assertTenantActive(tenant);
      noteUse(record);
      return {
        kind: 'apiKey',
        keyId: record.id,
        tenantId: record.tenantId,
        scopes: new Set(record.scopes as ApiKeyScope[]),
        namespaces: record.namespaceRestrictions,
      };
    },

    async describe(principal) {
      return view(await existing(principal.tenantId, principal.keyId));
    },

    checkScope(principal, scope) {
      if (!principal.scopes.has(scope)) throw new AppError('SCOPE_MISSING', `API key lacks scope '${scope}'`);
    },

    flushUsage,

    async close() {
      closed = true;
      await flushUsage();
    },
  };
}
