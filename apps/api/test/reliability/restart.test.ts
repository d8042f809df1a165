import { describe, expect, it } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { scenarioOptions } from './reliability-plan.js';
import { runRestartScenario } from './restart.scenario.js';

// Each fault on a PostgreSQL cluster of the test's own (never the shared server), under our REST and tRPC clients.
describe.each(['restart', 'terminate', 'stall'] as const)('PostgreSQL %s under our clients', (fault) => {
  it(
    'no call fails for the caller, no 5xx but 503, every acknowledged create stored once',
    async () => {
      const result = await runRestartScenario({ ...scenarioOptions('bounded').restart, fault });
      expect(result.violations).toEqual([]);
      expect(result.serverErrors).toBe(0);
      expect(result.acknowledgedWritesLost).toBe(0);
      expect(result.details.clientVisibleFailures).toBe(0);
      expect(result.details.duplicated).toBe(0);
      expect(result.recoveryMs).toBeDefined();
    },
    timeouts.scenario,
  );
});
