import { describe, expect, inject, it, vi } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { runFeedFailoverScenario } from './feed-failover.scenario.js';
import { formatLoadBalancerTable } from './load-balancer.scenario.js';
import { scenarioOptions } from './reliability-plan.js';

// A scenario: API processes, HAProxy, a database, a subscriber and creators. The timeout says so.
vi.setConfig({ testTimeout: timeouts.scenario });

describe('the change feed behind HAProxy: three instances on one postgresql database (issue 38)', () => {
  it("delivers every created pet exactly once, in order, when the subscriber's instance is SIGKILLed mid-stream and it resumes through another", async () => {
    const report = await runFeedFailoverScenario(
      { postgresAdminUrl: inject('postgresAdminUrl') },
      scenarioOptions('bounded').feedFailover,
    );
    expect(report.violations, formatLoadBalancerTable(report.rows)).toEqual([]);
    expect(report.result.acknowledgedWritesLost).toBe(0);
    expect(report.result.details.received).toBe(report.result.details.outboxEvents);
    expect(report.result.details.receivedBeforeKill).toBeGreaterThan(0);
  });
});
