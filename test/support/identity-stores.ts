import { randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { describe, it } from 'vitest';
import { openInMemoryDatabase, type EmbeddedDatabase } from '../../adapters/embedded/database.js';
import type { TenantRecord, TenantStore } from '../../server/ports/tenants.js';
import type { UserRecord, UserStore } from '../../server/ports/users.js';
import type { RequestMeta } from '../../server/services/audit.js';
import type { RoleName } from '../../server/services/roles.js';
import type { TenantActor, TenantsService } from '../../server/services/tenants.js';

/** Users, tenants and members made straight through the stores, for port contracts and service tests. */

/** A fresh user (random id and email unless given, no name, no password); 'user not created' if the store refuses it. */
export async function newUser(
  users: Pick<UserStore, 'create'>,
  fields: Partial<Omit<UserRecord, 'id'>> & Pick<UserRecord, 'createdAt'>,
): Promise<UserRecord> {
  const user = await users.create({ id: randomUUID(), email: `u-${randomUUID()}@example.com`, name: null, passwordHash: null, ...fields });
  if (!user) throw new Error('user not created');
  return user;
}

/** A fresh active tenant on the free plan, owned by the user. */
export function newTenant(
  tenants: Pick<TenantStore, 'create'>,
  ownerId: string,
  createdAt: string,
  isDefault = true,
): Promise<TenantRecord> {
  return tenants.create(
    { id: randomUUID(), name: 'T', plan: 'free', status: 'active', createdAt },
    { userId: ownerId, isDefault, createdAt },
  );
}

export interface TenancyFixtures {
  /** A fresh user, created at `usersCreatedAt`. */
  newUser(): Promise<UserRecord>;
  /** A tenant owned by a fresh user (made by the tenants service), plus members with the given roles; the owner is `actors[0]`. */
  tenantWith(...roles: RoleName[]): Promise<{ tenantId: string; actors: TenantActor[] }>;
}

/**
 * The fixtures of the tenancy service tests. `current` is read at each call, so a suite that builds
 * its stores in `beforeEach` makes the fixtures once.
 */
export function tenancyFixtures(
  current: () => {
    users: Pick<UserStore, 'create'>;
    tenants: Pick<TenantStore, 'addMember'>;
    tenantsService: Pick<TenantsService, 'create'>;
    usersCreatedAt: string;
    /** When the members `tenantWith` adds joined (ms). */
    membersJoinedAt: number;
    meta: RequestMeta;
  },
): TenancyFixtures {
  const user = () => {
    const c = current();
    return newUser(c.users, { email: `u-${randomUUID()}@example.test`, createdAt: c.usersCreatedAt });
  };
  return {
    newUser: user,
    async tenantWith(...roles) {
      const owner = await user();
      const c = current();
      const { tenant } = await c.tenantsService.create(owner.id, { name: 'Acme' }, c.meta);
      const actors: TenantActor[] = [{ userId: owner.id, tenantId: tenant.id, role: 'owner' }];
      for (const role of roles) {
        const u = await user();
        await current().tenants.addMember(tenant.id, {
          userId: u.id,
          role,
          isDefault: false,
          createdAt: new Date(current().membersJoinedAt).toISOString(),
        });
        actors.push({ userId: u.id, tenantId: tenant.id, role });
      }
      return { tenantId: tenant.id, actors };
    },
  };
}

type Open<P> = () => Promise<{ ports: P; close(): Promise<void> }>;

/**
 * Runs a port contract on the embedded adapters (an in-memory libsql database) always, and on the
 * MongoDB adapters in a fresh database (dropped afterwards) when MONGODB_URL is set; says so when
 * that run is skipped. `title` names the suite as `contract` does (`<title>: mongo`).
 */
export function onEmbeddedAndMongo<P>(
  title: string,
  contract: (name: string, open: Open<P>) => void,
  adapters: { embedded(db: EmbeddedDatabase): P; mongo(db: Db): Promise<P>; mongoDbName: string },
): void {
  contract('embedded (libsql)', async () => {
    const db = openInMemoryDatabase();
    return { ports: adapters.embedded(db), close: async () => void db.close() };
  });
  const mongoUrl = process.env.MONGODB_URL;
  if (mongoUrl) {
    contract('mongo', async () => {
      const client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 5000 });
      await client.connect();
      const db = client.db(`${adapters.mongoDbName}_${process.pid}_${Date.now()}`);
      return {
        ports: await adapters.mongo(db),
        close: async () => {
          await db.dropDatabase();
          await client.close();
        },
      };
    });
  } else {
    describe(`${title}: mongo`, () => {
      it.skip('skipped: set MONGODB_URL to run the contract against MongoDB', () => {});
    });
  }
}
