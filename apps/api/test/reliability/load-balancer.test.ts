import { describe, expect, inject, it, vi } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { formatLoadBalancerTable, runLoadBalancerScenario } from './load-balancer.scenario.js';
import { scenarioOptions } from './reliability-plan.js';

// A scenario: API processes, a database, load. The timeout says so.
vi.setConfig({ testTimeout: timeouts.scenario });

describe('scale-out behind HAProxy: three instances on one postgresql database', () => {
  it('passes conformance through the balancer; SIGTERM loses nothing; SIGKILL only what was in flight; a replacement joins', async () => {
    const report = await runLoadBalancerScenario(
      { postgresAdminUrl: inject('postgresAdminUrl') },
      scenarioOptions('bounded').loadBalancer,
    );
    expect(report.violations, formatLoadBalancerTable(report.rows)).toEqual([]);
    expect(report.rows.map((row) => row.step)).toEqual([
      'conformance suite through HAProxy',
      'SIGTERM one of 3 under load',
      'SIGKILL one of 3 under load',
    ]);
    const sigterm = report.rows[1];
    expect(sigterm?.failed).toBe(0);
    expect(sigterm?.requests).toBeGreaterThan(100);
  });
});
