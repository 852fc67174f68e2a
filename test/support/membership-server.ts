import { afterAll, beforeAll } from 'vitest';
import { signUp, stepUpToken, type SignedUpUser } from './auth.js';
import { startTestServer, type TestServer } from './server.js';

export interface MembershipServer {
  /** The running server's base URL (once the suite's `beforeAll` has run). */
  readonly url: string;
  /** Signs up a fresh user (with their own default tenant). */
  up(): Promise<SignedUpUser>;
  /** An `X-Step-Up-Token` header for one action of the user in the tenant (default: their own). */
  stepUpHeader(user: SignedUpUser, action: string, tenantId?: string): Promise<Record<string, string>>;
}

/**
 * The server of a membership suite, started before its tests and closed after: access tokens that
 * outlive the suite, invitations that last `invitationTtlSeconds`, and the suite's clock, which its
 * tests move to expire invitations.
 */
export function membershipServer(clock: () => number, invitationTtlSeconds: number): MembershipServer {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer({ ACCESS_TOKEN_TTL_SECONDS: '86400', INVITATION_TTL_SECONDS: String(invitationTtlSeconds) }, { clock });
  });
  afterAll(async () => {
    await server?.close();
  });
  const url = () => {
    if (!server) throw new Error('the membership server starts in beforeAll');
    return server.url;
  };
  return {
    get url() {
      return url();
    },
    up: () => signUp(url()),
    stepUpHeader: async (user, action, tenantId) => ({ 'x-step-up-token': await stepUpToken(url(), user, action, tenantId) }),
  };
}
