import type { ApiKeyScope } from './api-key-scopes.js';
import type { Permission, RoleName } from './services/roles.js';

export { apiKeyScopes, type ApiKeyScope } from './api-key-scopes.js';

/** A signed-in user acting in one tenant (bearer routes). */
export interface UserPrincipal {
  kind: 'user';
  userId: string;
  sessionId: string;
  tenantId: string;
  role: RoleName;
  permissions: ReadonlySet<Permission>;
  /** True while an approved break-glass grant raises this user's permissions. */
  breakGlass: boolean;
}

/** An API key acting for its tenant (memory and knowledge routes). */
export interface ApiKeyPrincipal {
  kind: 'apiKey';
  keyId: string;
  tenantId: string;
  scopes: ReadonlySet<ApiKeyScope>;
  /** null: every namespace; otherwise only these. */
  namespaces: readonly string[] | null;
}

/** What the bearer middleware needs from the auth service. */
export interface BearerAuthenticator {
  /** Verifies an access token and that its session is still live; throws UNAUTHENTICATED otherwise. */
  authenticateAccessToken(token: string): Promise<{ userId: string; sessionId: string; tenantId: string }>;
  /**
   * The caller's role and effective permissions in a tenant (break-glass included) and the tenant's
   * status, or null if not a member.
   */
  accessOf(
    tenantId: string,
    userId: string,
  ): Promise<{ role: RoleName; permissions: ReadonlySet<Permission>; breakGlass: boolean; tenantStatus: string } | null>;
}

/** What the API-key middleware needs from the API key service. */
export interface ApiKeyAuthenticator {
  /** Verifies a presented secret from a client address; throws UNAUTHENTICATED, IP_NOT_ALLOWED or TENANT_SUSPENDED. */
  authenticate(secret: string, clientIp: string): Promise<ApiKeyPrincipal>;
}
