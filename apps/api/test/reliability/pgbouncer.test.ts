import { describe, expect, inject, it, vi } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { runPgbouncerScenario } from './pgbouncer.scenario.js';
import { scenarioOptions } from './reliability-plan.js';

// A scenario: API processes, PgBouncer, a database, load. The timeout says so.
vi.setConfig({ testTimeout: timeouts.scenario });

describe('behind PgBouncer 1.18 in transaction mode (issue 30)', () => {
  it('answers no 5xx and loses nothing with DATABASE_STATEMENTS unset or unnamed; named refuses to start', async () => {
    const result = await runPgbouncerScenario(
      { postgresAdminUrl: inject('postgresAdminUrl') },
      scenarioOptions('bounded').pgbouncer,
    );
    expect(result.violations, JSON.stringify(result.details)).toEqual([]);
    expect(result.serverErrors).toBe(0);
    expect(result.details.named).toBe('refused to start, naming DATABASE_STATEMENTS');
    expect(result.requestsSent).toBeGreaterThan(100);
  });
});
