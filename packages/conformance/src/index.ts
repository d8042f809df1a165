export type { Check, CheckContext } from './check.js';
export { CheckFailure } from './check.js';

import { ALL_CHECKS } from './checks/all.checks.js';

export { curlOf, formatJUnit, formatResult, formatSummary } from './report.js';
export type { CliOutput } from './run-cli.js';
export { EXIT, runCli } from './run-cli.js';
export type { CheckResult, ConformanceOptions, ConformanceReport, Reproduction } from './run-conformance.js';
export {
  DEFAULT_NUM_RUNS,
  DEFAULT_TIMEOUT_MS,
  normaliseBaseUrl,
  runConformance,
  selectChecks,
} from './run-conformance.js';
export { ALL_CHECKS };

/** Every check id with its one-line description, in run order. */
export function listChecks(): Array<{ id: string; description: string }> {
  return ALL_CHECKS.map(({ id, description }) => ({ id, description }));
}
