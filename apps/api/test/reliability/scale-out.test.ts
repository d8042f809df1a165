import { describe, expect, inject, it, vi } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { scenarioOptions } from './reliability-plan.js';
import { runScaleOutScenario } from './scale-out.scenario.js';

// A scenario: API processes, a database, load. The timeout says so.
vi.setConfig({ testTimeout: timeouts.scenario });

describe('scale-out: two instances on one postgresql database', () => {
  it('gives unique ids, every pet reads the same from either instance, listings agree', async () => {
    const options = scenarioOptions('bounded').scaleOut;
    const result = await runScaleOutScenario({ postgresAdminUrl: inject('postgresAdminUrl') }, options);
    expect(result.violations).toEqual([]);
    expect(result.details).toEqual({
      created: 2 * options.createsPerInstance,
      uniqueIds: 2 * options.createsPerInstance,
    });
  });
});
