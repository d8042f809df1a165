import { describe, expect, inject, it, vi } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { runFuzzScenario } from './fuzz.scenario.js';
import { scenarioOptions } from './reliability-plan.js';

// A scenario: API processes, a database, load. The timeout says so.
vi.setConfig({ testTimeout: timeouts.scenario });

// The bounded fuzz run of `pnpm test`; `pnpm reliability --full` runs the long one on both databases.
describe('fuzz: hostile requests at every route', () => {
  it('never answers 5xx, always answers an Error body, stays up with bounded memory (postgresql)', async () => {
    const result = await runFuzzScenario(
      { postgresAdminUrl: inject('postgresAdminUrl') },
      { ...scenarioOptions('bounded').fuzz, database: 'postgresql' },
    );
    expect(result.violations).toEqual([]);
    expect(result.serverErrors).toBe(0);
    expect(result.requestsSent).toBeGreaterThan(500);
  });
});
