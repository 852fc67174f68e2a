import { describe, expect, it } from 'vitest';
import { createMaintenanceService, ENDED_SESSION_RETENTION_MS } from '../../server/services/maintenance.js';

describe('maintenance service', () => {
  const now = Date.parse('2025-03-04T05:06:07.000Z');
  const calls: Record<string, unknown[]> = {};
  const record = (name: string, result: number) => async (arg: unknown) => ((calls[name] = [...(calls[name] ?? []), arg]), result);
  const service = createMaintenanceService({
    sessions: { purgeEnded: record('sessions', 2) },
    attemptCounters: { purgeExpired: record('windows', 3) },
    idempotency: { purgeExpired: record('idempotency', 4) },
    clock: () => now,
  });

  it.each([
    [
      'purgeEnded',
      () => service.purgeEnded(),
      { sessions: 2, windows: 3 },
      { sessions: [new Date(now - ENDED_SESSION_RETENTION_MS).toISOString()], windows: [now] },
    ],
    ['purgeExpiredIdempotencyKeys', () => service.purgeExpiredIdempotencyKeys(), 4, { idempotency: [new Date(now).toISOString()] }],
  ] as const)('%s purges with the cutoffs of the clock and reports the counts', async (_name, run, result, expected) => {
    for (const key of Object.keys(calls)) delete calls[key];
    expect(await run()).toEqual(result);
    expect(calls).toEqual(expected);
  });
});
