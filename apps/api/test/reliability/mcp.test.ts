import { describe, expect, inject, it, vi } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { formatLoadBalancerTable } from './load-balancer.scenario.js';
import { runMcpScenario } from './mcp.scenario.js';
import { scenarioOptions } from './reliability-plan.js';

// A scenario: API processes, HAProxy, a database, MCP clients. The timeout says so.
vi.setConfig({ testTimeout: timeouts.scenario });

describe('MCP behind HAProxy: three instances on one postgresql database, the official client in both eras', () => {
  it('spreads the calls of one client over every instance, with no session; a SIGKILL loses no acknowledged create, stores none twice', async () => {
    const report = await runMcpScenario(
      { postgresAdminUrl: inject('postgresAdminUrl') },
      scenarioOptions('bounded').mcp,
    );
    expect(report.violations, formatLoadBalancerTable(report.rows)).toEqual([]);
    expect(report.rows.map((row) => row.step)).toEqual([
      'MCP spread, modern client (2026-07-28)',
      'MCP spread, legacy client (2025-11-25)',
      'SIGKILL one of 3 under MCP creates',
    ]);
    expect(report.result.acknowledgedWritesLost).toBe(0);
    expect(report.result.serverErrors).toBe(0);
  });
});
