import { describe, expect, inject, it, vi } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { runDatabaseFaultScenario } from './database-fault.scenario.js';
import { scenarioOptions } from './reliability-plan.js';

// A scenario: API processes, a database, load. The timeout says so.
vi.setConfig({ testTimeout: timeouts.scenario });

describe.each(['cut', 'partition'] as const)('database fault: postgresql behind a proxy, %s', (fault) => {
  it('answers 503 service_unavailable with Retry-After fast, keeps /healthz up, and recovers by itself', async () => {
    const result = await runDatabaseFaultScenario(
      { postgresAdminUrl: inject('postgresAdminUrl') },
      { ...scenarioOptions('bounded').fault, fault },
    );
    expect(result.violations).toEqual([]);
    expect(result.acknowledgedWritesLost).toBe(0);
    expect(result.recoveryMs).toBeDefined();
    expect(result.details.answered503).toBeGreaterThan(0);
  });
});
