import { describe, expect, inject, it, vi } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { runProbesScenario } from './probes.scenario.js';
import { scenarioOptions } from './reliability-plan.js';
import type { ScenarioDatabase } from './scenario-support.js';

// A scenario: API processes, a database, load. The timeout says so.
vi.setConfig({ testTimeout: timeouts.scenario });

// The bounded probe run of `pnpm test` (about 10 s a database); `pnpm reliability --full` loads it harder.
describe.each<ScenarioDatabase>(['pglite', 'postgresql'])('hostile probes on %s', (database) => {
  it('answers every probe as expected, never 5xx, stays healthy, peak RSS within 1.5x of normal', async () => {
    const result = await runProbesScenario(
      { postgresAdminUrl: inject('postgresAdminUrl') },
      { ...scenarioOptions('bounded').probes, database },
    );
    expect(result.violations).toEqual([]);
    expect(result.serverErrors).toBe(0);
    expect(result.details.probes).toBeGreaterThan(150);
  });
});
