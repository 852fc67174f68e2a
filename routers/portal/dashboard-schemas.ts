import { z } from 'zod';
import { onboardingSteps } from '../../server/ports/onboarding.js';
import { timestamp } from '../../server/schemas/common.js';
import { auditEvent } from '../auth/schemas.js';

/** One schema per shape of the portal's dashboard and onboarding routes. */

const limit = z.number().int().nullable().meta({ description: 'The plan limit; null = unlimited (as in GET /usage)' });

export const onboardingOutput = z.object({
  created_api_key: z.boolean().meta({ description: 'An API key of the tenant was created (portal or REST)' }),
  sent_first_memory: z.boolean().meta({ description: 'A memory write of the tenant was accepted' }),
  ran_first_search: z.boolean().meta({ description: 'A search of the tenant was answered' }),
  completed_at: timestamp.nullable().meta({ description: 'When the last of the three steps was done; null until then' }),
});

export const onboardingCompleteInput = z.strictObject({
  step: z.enum(onboardingSteps, {
    error: (issue) => `unknown step '${String(issue.input)}' (allowed: ${onboardingSteps.join(', ')})`,
  }),
});

export const usageDayOutput = z.object({
  date: z.iso.date().meta({ description: 'UTC day', example: '2025-01-31' }),
  writes: z.number().int(),
  reads: z.number().int(),
  searches: z.number().int(),
});

export const dashboardOutput = z.object({
  total_memories: z.number().int().meta({ description: "Live memories of the tenant (GET /usage's memory_count)" }),
  writes_this_period: z.number().int(),
  reads_this_period: z.number().int(),
  searches_this_period: z.number().int(),
  storage_used: z.number().int().meta({ description: 'Bytes stored (memories and knowledge objects)' }),
  current_plan: z.string(),
  period: z.string().meta({ description: 'The current period (calendar month, UTC)', example: '2025-01' }),
  period_starts_at: timestamp,
  period_ends_at: timestamp,
  quota_status: z.object({
    used_percentage: z
      .number()
      .meta({ description: 'The highest share of a limited quota used (writes, reads, storage), 0–100+; 0 when nothing is limited' }),
    writes_used: z.number().int(),
    writes_limit: limit,
    reads_used: z.number().int(),
    reads_limit: limit,
    searches_used: z.number().int(),
    searches_limit: limit,
    storage_used_bytes: z.number().int(),
    storage_limit_bytes: limit,
  }),
  usage_history: z.array(usageDayOutput).meta({ description: 'The last 30 UTC days ending today, oldest first, one entry per day' }),
  recent_audit_events: z
    .array(auditEvent)
    .meta({ description: "The tenant's last 10 audit events, newest first; empty when the role lacks audit:read" }),
  onboarding_status: onboardingOutput,
});
