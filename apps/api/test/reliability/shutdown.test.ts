import { describe, expect, inject, it, vi } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { scenarioOptions } from './reliability-plan.js';
import { runShutdownScenario } from './shutdown.scenario.js';

// A scenario: API processes, a database, load. The timeout says so.
vi.setConfig({ testTimeout: timeouts.scenario });

describe('graceful shutdown on postgresql', () => {
  it('completes in-flight requests with 2xx, refuses new connections, exits 0 before the deadline', async () => {
    const result = await runShutdownScenario(
      { postgresAdminUrl: inject('postgresAdminUrl') },
      scenarioOptions('bounded').shutdown,
    );
    expect(result.violations).toEqual([]);
    expect(result.details).toMatchObject({
      completed2xx: scenarioOptions('bounded').shutdown.inFlight,
      exitCode: 0,
    });
  });
});
