import { randomUUID } from 'node:crypto';
import { http } from './server.js';

export interface SignedUpUser {
  accessToken: string;
  refreshToken: string;
  userId: string;
  /** The user's default tenant (they own it). */
  tenantId: string;
  email: string;
  password: string;
}

/**
 * Signs up a fresh user over HTTP (POST /auth/signup) and returns their tokens and ids. Each call
 * makes a unique email unless one is given. Throws with the response when sign-up does not answer 201.
 */
export async function signUp(baseUrl: string, opts: { email?: string; password?: string; name?: string } = {}): Promise<SignedUpUser> {
  const email = opts.email ?? `user-${randomUUID()}@example.test`;
  const password = opts.password ?? `pw-${randomUUID()}`;
  const body: Record<string, string> = { email, password };
  if (opts.name !== undefined) body.name = opts.name;
  const res = await http(baseUrl, 'POST', '/auth/signup', { body });
  if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${res.text}`);
  return {
    accessToken: res.body.access_token,
    refreshToken: res.body.refresh_token,
    userId: res.body.user_id,
    tenantId: res.body.tenant_id,
    email,
    password,
  };
}

/** Signs in over HTTP (POST /auth/login) and returns the token response body; throws unless 200. */
export async function logIn(baseUrl: string, email: string, password: string) {
  const res = await http(baseUrl, 'POST', '/auth/login', { body: { email, password } });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
  return res.body as {
    access_token: string;
    refresh_token: string;
    token_type: 'Bearer';
    expires_in: number;
    user_id: string;
    tenant_id: string;
  };
}

/** Headers for a bearer route, optionally acting in another tenant of the user (X-Tenant-ID). */
export function bearer(token: string, tenantId?: string): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (tenantId) headers['x-tenant-id'] = tenantId;
  return headers;
}

export type TenantRole = 'owner' | 'admin' | 'member' | 'viewer';

/** A step-up token for `action` (POST /auth/step-up with the user's password); throws unless 200. */
export async function stepUpToken(baseUrl: string, user: SignedUpUser, action: string, tenantId = user.tenantId): Promise<string> {
  const res = await http(baseUrl, 'POST', '/auth/step-up', {
    headers: bearer(user.accessToken, tenantId),
    body: { action, password: user.password },
  });
  if (res.status !== 200) throw new Error(`step-up failed: ${res.status} ${res.text}`);
  return res.body.step_up_token;
}

/**
 * Makes `user` a member of the inviter's tenant (or `tenantId`) with `role`, the way a client does it:
 * an invitation (with a step-up token for owner and admin) that the user accepts. Throws with the
 * response when a step fails.
 */
export async function addToTenant(
  baseUrl: string,
  inviter: SignedUpUser,
  user: SignedUpUser,
  role: TenantRole,
  tenantId = inviter.tenantId,
): Promise<void> {
  const headers = bearer(inviter.accessToken, tenantId);
  if (role === 'owner' || role === 'admin') headers['x-step-up-token'] = await stepUpToken(baseUrl, inviter, 'members.promote', tenantId);
  const invited = await http(baseUrl, 'POST', '/auth/members', { headers, body: { email: user.email, role } });
  if (invited.status !== 202) throw new Error(`inviting a member failed: ${invited.status} ${invited.text}`);
  const accepted = await http(baseUrl, 'POST', `/auth/invitations/${invited.body.invitation_id}/accept`, {
    headers: bearer(user.accessToken),
  });
  if (accepted.status !== 200) throw new Error(`accepting an invitation failed: ${accepted.status} ${accepted.text}`);
}
