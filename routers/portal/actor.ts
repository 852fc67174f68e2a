import type { UserPrincipal } from '../../server/principal.js';
import type { TenantActor } from '../../server/services/tenants.js';
import { actorOf } from '../request-facts.js';

/**
 * The signed-in portal user acting in the current tenant, with the portal session: a step-up token the
 * service checks for them (promoting, removing) must have been earned in this browser session.
 */
export const portalActorOf = (p: UserPrincipal): TenantActor => ({ ...actorOf(p), sessionId: p.sessionId });
