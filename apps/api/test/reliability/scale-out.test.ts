import { describe, expect, inject, it } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { scenarioOptions } from './reliability-plan.js';
import { runScaleOutScenario } from './scale-out.scenario.js';

describe('scale-out: two instances on one postgresql database', () => {
  it(
    'gives unique ids, every pet reads the same from either instance, listings agree',
    async () => {
      const options = scenarioOptions('bounded').scaleOut;
      const result = await runScaleOutScenario({ postgresAdminUrl: inject('postgresAdminUrl') }, options);
      expect(result.violations).toEqual([]);
      expect(result.details).toEqual({
        created: 2 * options.createsPerInstance,
        uniqueIds: 2 * options.createsPerInstance,
      });
    },
    timeouts.scenario,
  );
});
