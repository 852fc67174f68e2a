import { z } from 'zod';
import { emptyInput } from '../../server/schemas/common.js';
import { safeText } from '../../server/schemas/safe-text.js';

/** Shapes of the SSO routes (`/auth/sso/*` and the OIDC callback `/auth/callback`). */

export const ssoProvidersInput = emptyInput;

export const ssoProvidersOutput = z.object({
  providers: z.array(
    z.object({
      id: z.string().meta({ description: 'Provider id, as sent in POST /auth/sso/login', example: 'acme' }),
      issuer: z.string().meta({ description: 'OIDC issuer URL', example: 'https://login.acme.example' }),
    }),
  ),
});

export const ssoLoginInput = z.object({
  provider: safeText().min(1).max(64).meta({ description: 'Id of a configured provider (GET /auth/sso/providers)', example: 'acme' }),
  redirect: z
    .boolean()
    .optional()
    .meta({ description: 'Answer 302 with Location set to the authorization URL (same as the query ?redirect=1)' }),
});

export const ssoLoginOutput = z.object({
  authorization_url: z
    .string()
    .meta({ description: "The provider's authorization URL (code flow, PKCE S256, state, nonce): send the user agent there" }),
  state: z.string().meta({ description: 'The state parameter of this sign-in; single use, valid 10 minutes' }),
});

const param = (max: number, description: string) => safeText().max(max).optional().meta({ description });

export const ssoCallbackInput = z.object({
  state: safeText().min(1).max(512).meta({ description: 'The state returned by POST /auth/sso/login, echoed by the provider' }),
  code: param(4096, 'Authorization code (absent when the provider reports an error)'),
  iss: param(2048, 'Issuer of the authorization response (RFC 9207), checked when the provider supports it'),
  error: param(256, 'OAuth error code from the provider, e.g. access_denied'),
  error_description: param(2048, "The provider's description of the error"),
});
