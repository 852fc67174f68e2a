import type { RouterOutputs } from '../../api';

export type Credential = RouterOutputs['portal']['listCredentials']['credentials'][number];
export type Scope = RouterOutputs['portal']['scopes']['scopes'][number];
/** A secret the server just handed out (create or rotate): shown once, then dropped. */
export interface ShownSecret {
  name: string;
  secret: string;
  kind: 'created' | 'rotated';
}
