import { describe, expect, inject, it, vi } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { runFeedPgbouncerScenario } from './feed-pgbouncer.scenario.js';
import { formatLoadBalancerTable } from './load-balancer.scenario.js';
import { scenarioOptions } from './reliability-plan.js';

// A scenario: API processes, PgBouncer, a database, a subscriber. The timeout says so.
vi.setConfig({ testTimeout: timeouts.scenario });

describe('the change feed behind PgBouncer 1.18 in transaction mode (issue 38)', () => {
  it('delivers every event by polling when LISTEN would go through the pooler, and by wake-ups on a direct connection', async () => {
    const options = scenarioOptions('bounded').feedPgbouncer;
    const report = await runFeedPgbouncerScenario({ postgresAdminUrl: inject('postgresAdminUrl') }, options);
    expect(report.violations, formatLoadBalancerTable(report.rows)).toEqual([]);
    expect(report.rows).toHaveLength(options.listen.length);
    expect(report.result.acknowledgedWritesLost).toBe(0);
  });
});
