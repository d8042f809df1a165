import { describe, expect, it, vi } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { runDatabaseTierScenario } from './database-tier.scenario.js';
import { formatLoadBalancerTable } from './load-balancer.scenario.js';
import { scenarioOptions } from './reliability-plan.js';

// A scenario: two PostgreSQL clusters, two PgBouncers, three API processes, HAProxy, load. The timeout says so.
vi.setConfig({ testTimeout: timeouts.scenario });

describe('the database tier: 3 instances behind HAProxy, through PgBouncer 1.18, on a primary and a streaming replica', () => {
  it('reads every create back at once through the client, and fails no call while the replica stops and restarts', async () => {
    const report = await runDatabaseTierScenario({}, scenarioOptions('bounded').databaseTier);
    expect(report.violations, formatLoadBalancerTable(report.rows)).toEqual([]);
    expect(report.result.serverErrors).toBe(0);
    expect(report.result.acknowledgedWritesLost).toBe(0);
    expect(report.rows.map((row) => [row.step, row.failed])).toEqual([
      ['read-your-writes, replica stopped+restarted', 0],
    ]);
  });
});
