import type { ExternalIdentityRecord, UserRecord, UserStore } from '../ports/users.js';
import { isoAt, systemClock, type Clock } from './clock.js';

/** User lookups and SSO identity links (used by the OIDC sign-in flow). */
export interface UsersService {
  findById(userId: string): Promise<UserRecord | null>;
  findByEmail(email: string): Promise<UserRecord | null>;
  findByIdentity(provider: string, subject: string): Promise<UserRecord | null>;
  /** Links a provider subject to a user; false when that subject is already linked (to anyone). */
  linkIdentity(link: { provider: string; subject: string; userId: string; email?: string | null }): Promise<boolean>;
  listIdentities(userId: string): Promise<ExternalIdentityRecord[]>;
}

export function createUsersService(deps: { users: UserStore; clock?: Clock }): UsersService {
  const { users } = deps;
  const now = deps.clock ?? systemClock;
  return {
    findById: (id) => users.findById(id),
    findByEmail: (email) => users.findByEmail(email.trim().toLowerCase()),
    findByIdentity: (provider, subject) => users.findByIdentity(provider, subject),
    linkIdentity: ({ provider, subject, userId, email }) =>
      users.linkIdentity({ provider, subject, userId, email: email?.toLowerCase() ?? null, createdAt: isoAt(now()) }),
    listIdentities: (userId) => users.listIdentities(userId),
  };
}
