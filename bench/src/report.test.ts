import { describe, expect, it } from 'vitest';
import { measurement } from './measurement-fixture.js';
import { evaluateTargets, type Row, renderTable } from './report.js';

const run = measurement;

const row = (scenario: string, api: number, raw: number, naive: number | undefined, fastify = 650): Row => ({
  scenario,
  connections: 50,
  runs: {
    api: [run(api, 20, 200, 120)],
    raw: [run(raw, 10, 100, 100)],
    naive: naive === undefined ? [] : [run(naive, 30, 250, 150)],
    fastify: [run(fastify, 15, 110, 110)],
    'fastify-prod': [run(fastify - 150, 18, 140, 130)],
  },
});

// The targets are read from the numbers, never asserted on a real run: this checks the reading only.
describe('targets', () => {
  it('reads each target from the 50-connection rows', () => {
    const rows = [
      row('list20', 700, 1000, 500),
      row('list100-available', 500, 1000, 400),
      row('get-by-id', 600, 1000, 500),
      row('create', 650, 1000, 500),
      row('unauthorized', 600, 1000, 700),
      row('trpc-list20', 600, 1000, 500),
      row('trpc-create', 500, 1000, undefined),
      // api only: no reference serves it, so it is left out of the comparisons rather than "not measured".
      {
        scenario: 'list20-deep',
        connections: 50,
        runs: { api: [run(690, 20, 200, 120)], raw: [], naive: [], fastify: [], 'fastify-prod': [] },
      },
    ];
    const targets = evaluateTargets(rows, {
      api: [250, 260, 400],
      raw: [100],
      naive: [300],
      fastify: [200],
      'fastify-prod': [220],
    });
    const byTarget = Object.fromEntries(targets.map((t) => [t.target, t]));
    expect(byTarget['api faster than naive on every route (req/s)']).toMatchObject({
      met: 'n/a',
      measured: 'lowest 0.86x (unauthorized); 1 route(s) not measured',
    });
    expect(byTarget['api at or above fastify on every route (req/s)']).toMatchObject({
      met: 'NO',
      measured: 'lowest 0.77x (list100-available)',
    });
    expect(byTarget['server CPU per request ≤ 1.3x raw on every route']).toMatchObject({
      met: 'NO',
      measured: 'highest 2.00x (list20)',
    });
    expect(byTarget['tRPC ≥ 0.9x REST on the same operation (api req/s)']).toMatchObject({
      met: 'NO',
      measured: 'trpc-list20/list20 0.86x, trpc-create/create 0.77x',
    });
    expect(byTarget['p99 ≤ 2x raw on every route']?.met).toBe('yes');
    expect(byTarget['peak RSS ≤ 1.3x raw (whole run)']?.met).toBe('yes');
    expect(byTarget['api start-up to first answer < 300 ms']).toMatchObject({
      met: 'yes',
      measured: '260 ms (median)',
    });
    expect(renderTable(rows, 1)).toContain(
      '| list20 | 50 | 700 | 1,000 | 500 | 650 | 500 | 0.70x | 1.40x | 1.08x | 1.40x |',
    );
  });
});
