import { describe, expect, it, vi } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { runReadReplicaScenario } from './read-replica.scenario.js';
import { scenarioOptions } from './reliability-plan.js';

// A scenario: two PostgreSQL clusters, an API process, load. The timeout says so.
vi.setConfig({ testTimeout: timeouts.scenario });

describe('a streaming read replica (DATABASE_READ_URL), stopped and restarted under our clients', () => {
  it('reads every create back at once, fails no call, and serves reads from the replica before and after', async () => {
    const result = await runReadReplicaScenario(scenarioOptions('bounded').readReplica);
    expect(result.violations, JSON.stringify(result.details)).toEqual([]);
    expect(result.acknowledgedWritesLost).toBe(0);
    expect(result.details.readBacks).toBeGreaterThan(20);
  });
});
