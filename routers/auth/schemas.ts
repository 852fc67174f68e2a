import { z } from 'zod';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../server/services/passwords.js';
import { stepUpActions } from '../../server/services/auth.js';
import { timestamp, uuidIdInput } from '../../server/schemas/common.js';
import { emailSchema, safeText } from '../../server/schemas/safe-text.js';

/** Shapes of the `/auth` routes (sign-in, sessions, step-up, break-glass, audit). */

const email = emailSchema.meta({ description: 'Email address (case-insensitive)', example: 'ada@example.com' });

export const signupInput = z.object({
  email,
  password: z
    .string()
    .min(PASSWORD_MIN_LENGTH)
    .max(PASSWORD_MAX_LENGTH)
    .meta({ description: `Password, ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters` }),
  name: safeText().trim().min(1).max(200).optional().meta({ description: 'Display name' }),
});

export const loginInput = z.object({
  email,
  // No policy check at sign-in: a wrong password of any length gets the same 401.
  password: z.string().min(1).max(1024),
});

/** The token response (docs/decisions.md#sign-in-and-tokens; also answered by the SSO callback). */
export const tokenResponse = z.object({
  access_token: z.string().meta({ description: 'Short-lived signed JWT (sub = user, tid = tenant, sid = session)' }),
  refresh_token: z.string().meta({ description: 'Opaque; rotated on every use; reuse of a rotated one revokes the session' }),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().meta({ description: 'Seconds until the access token expires' }),
  user_id: z.uuid(),
  tenant_id: z.uuid(),
});

export const revokeOutput = z.object({ revoked: z.literal(true) });

export const stepUpInput = z.object({
  action: z.enum(stepUpActions).meta({ description: 'The privileged action the token will allow', example: 'data.export' }),
  password: z.string().min(1).max(1024).optional().meta({ description: 'Required for users who have a password' }),
});

export const stepUpOutput = z.object({
  step_up_token: z.string().meta({ description: 'Send as X-Step-Up-Token; bound to this user, tenant and action' }),
  expires_in: z.number().int().meta({ description: 'Seconds of validity' }),
  action: z.enum(stepUpActions),
});

export const breakGlassRequestInput = z.object({
  reason: safeText().trim().min(1).max(2000).meta({ description: 'Why emergency access is needed (recorded in the audit log)' }),
  duration_minutes: z
    .number()
    .int()
    .min(1)
    .meta({ description: 'How long the elevated access lasts once approved (at most BREAK_GLASS_MAX_MINUTES)' }),
});

export const breakGlassIdInput = uuidIdInput;

export const breakGlassRequest = z.object({
  id: z.uuid(),
  tenant_id: z.uuid(),
  requester_id: z.uuid(),
  reason: z.string(),
  duration_minutes: z.number().int(),
  status: z.enum(['pending', 'approved', 'denied', 'expired']),
  created_at: timestamp,
  decided_at: timestamp.nullable(),
  decided_by: z.uuid().nullable(),
  expires_at: timestamp.nullable().meta({ description: 'End of the elevated access (set on approval)' }),
});

export const breakGlassList = z.object({ requests: z.array(breakGlassRequest) });

export const auditListInput = z.object({
  limit: z.number().int().min(1).max(200).default(50),
  offset: z.number().int().min(0).default(0),
});

export const auditEvent = z.object({
  id: z.uuid(),
  tenant_id: z.uuid(),
  seq: z.number().int(),
  type: z.string(),
  actor: z.object({ user_id: z.string().nullable(), key_id: z.string().nullable() }),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  target: z.object({ type: z.string(), id: z.string() }).nullable(),
  details: z.record(z.string(), z.unknown()).nullable(),
  created_at: timestamp,
  prev_hash: z.string().meta({ description: 'Hash of the previous event (64 zeros for the first)' }),
  hash: z.string().meta({ description: 'SHA-256 over the canonical event including seq and prev_hash' }),
});

export const auditList = z.object({
  events: z.array(auditEvent),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const auditVerification = z.object({
  ok: z.boolean(),
  checked: z.number().int().meta({ description: 'Events whose hash was verified' }),
  broken_at: z.number().int().nullable().meta({ description: 'First seq where the chain fails (changed, missing or extra event)' }),
  reason: z.string().nullable(),
});
