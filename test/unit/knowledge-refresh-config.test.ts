import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.js';

/** The debounce of re-enrichment after consolidation (KNOWLEDGE_REFRESH_*), as read at start-up. */
const base = { JWT_SECRET: 'y'.repeat(32) };

const failure = (env: Record<string, string>) => {
  try {
    loadConfig({ ...base, ...env });
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  return null;
};

describe('knowledge refresh configuration', () => {
  it('defaults to a 60 s quiet period and a 10 min longest wait', () => {
    const c = loadConfig(base);
    expect([c.KNOWLEDGE_REFRESH_DELAY_MS, c.KNOWLEDGE_REFRESH_MAX_WAIT_MS]).toEqual([60_000, 600_000]);
  });

  it('takes other values, a zero delay included', () => {
    const c = loadConfig({ ...base, KNOWLEDGE_REFRESH_DELAY_MS: '0', KNOWLEDGE_REFRESH_MAX_WAIT_MS: '2500' });
    expect([c.KNOWLEDGE_REFRESH_DELAY_MS, c.KNOWLEDGE_REFRESH_MAX_WAIT_MS]).toEqual([0, 2_500]);
  });

  it.each([
    [{ KNOWLEDGE_REFRESH_DELAY_MS: '-1' }, /KNOWLEDGE_REFRESH_DELAY_MS/],
    [{ KNOWLEDGE_REFRESH_DELAY_MS: 'soon' }, /KNOWLEDGE_REFRESH_DELAY_MS/],
    [{ KNOWLEDGE_REFRESH_MAX_WAIT_MS: '1.5' }, /KNOWLEDGE_REFRESH_MAX_WAIT_MS/],
    [{ KNOWLEDGE_REFRESH_DELAY_MS: '5000', KNOWLEDGE_REFRESH_MAX_WAIT_MS: '4000' }, /KNOWLEDGE_REFRESH_MAX_WAIT_MS: must be at least/],
  ])('refuses %o, naming the variable', (env, message) => {
    expect(failure(env)).toMatch(message);
  });
});
