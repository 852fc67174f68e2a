import type { PortalSessionDeps, PortalSessionService } from './portal-sessions.js';
import { createPortalSessionService } from './portal-sessions.js';

/** What the web portal's facade (`/api/portal`) adds to the services every area shares. */
export interface PortalServices {
  /** Cookie sessions and their CSRF tokens. */
  sessions: PortalSessionService;
}

export type PortalServicesDeps = PortalSessionDeps;

/** Builds the portal's services from the shared ones (called once by the container). */
export function createPortalServices(deps: PortalServicesDeps): PortalServices {
  return { sessions: createPortalSessionService(deps) };
}
