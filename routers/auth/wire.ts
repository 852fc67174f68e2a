import type { SessionTokens, StepUpGrant } from '../../server/services/auth.js';

/** The `/auth` routes' wire form of what the auth service returns (snake_case, docs/decisions.md#sign-in-and-tokens). */

export const toTokenResponse = (t: SessionTokens) => ({
  access_token: t.accessToken,
  refresh_token: t.refreshToken,
  token_type: t.tokenType,
  expires_in: t.expiresIn,
  user_id: t.userId,
  tenant_id: t.tenantId,
});

export const toStepUpResponse = (g: StepUpGrant) => ({ step_up_token: g.stepUpToken, expires_in: g.expiresIn, action: g.action });
