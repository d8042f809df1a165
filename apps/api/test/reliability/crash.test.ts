import { describe, expect, inject, it, vi } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { runCrashScenario } from './crash.scenario.js';
import { scenarioOptions } from './reliability-plan.js';
import type { ScenarioDatabase } from './scenario-support.js';

// A scenario: API processes, a database, load. The timeout says so.
vi.setConfig({ testTimeout: timeouts.scenario });

describe.each<ScenarioDatabase>(['postgresql', 'pglite'])(
  'crash: SIGKILL under a stream of creates on %s',
  (database) => {
    it('keeps every pet whose 201 the client received, intact, across a restart', async () => {
      const result = await runCrashScenario(
        { postgresAdminUrl: inject('postgresAdminUrl') },
        { ...scenarioOptions('bounded').crash, database },
      );
      expect(result.violations).toEqual([]);
      expect(result.acknowledgedWritesLost).toBe(0);
      expect(result.details.acknowledged).toBeGreaterThan(0);
    });
  },
);
