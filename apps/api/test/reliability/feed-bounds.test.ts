import { describe, expect, inject, it, vi } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { runFeedBoundsScenario } from './feed-bounds.scenario.js';
import { formatLoadBalancerTable } from './load-balancer.scenario.js';
import { scenarioOptions } from './reliability-plan.js';

// A scenario: an API process, a database, 1,000 streams, thousands of creates. The timeout says so.
vi.setConfig({ testTimeout: timeouts.scenario });

describe('the change feed within its bounds on one instance (issue 38)', () => {
  it('holds 1,000 idle subscribers within the stated memory; closes one that stops reading, which then resumes without a gap', async () => {
    const options = scenarioOptions('bounded').feedBounds;
    const report = await runFeedBoundsScenario({ postgresAdminUrl: inject('postgresAdminUrl') }, options);
    expect(report.violations, formatLoadBalancerTable(report.rows)).toEqual([]);
    // The scenario holds the growth to options.rssGrowthLimitBytes; the figure is in the report either way.
    expect(report.result.memory).toBeDefined();
    expect(report.rows.map((row) => row.step)).toEqual([
      'change feed: 1000 idle subscribers on one instance',
      'change feed: a subscriber that stops reading',
    ]);
  });
});
