export type { Check, CheckContext, CheckSource, Profile } from './check.js';
export {
  CheckFailure,
  CheckSkipped,
  describeCheck,
  documentedStatusTable,
  inProfile,
  PROFILES,
} from './check.js';
export { checkTable } from './check-table.js';
export type { OpenApiDocument, OpenApiOption } from './openapi.js';
export { OpenApiLoadError } from './openapi.js';

import { describeCheck, inProfile, type Profile, sourceOf } from './check.js';
import { ALL_CHECKS } from './checks/all.checks.js';

export { curlOf, formatJUnit, formatResult, formatSummary } from './report.js';
export type { CliOutput } from './run-cli.js';
export { EXIT, runCli } from './run-cli.js';
export type { CheckResult, ConformanceOptions, ConformanceReport, Reproduction } from './run-conformance.js';
export {
  DEFAULT_NUM_RUNS,
  DEFAULT_PROFILE,
  DEFAULT_TIMEOUT_MS,
  normaliseBaseUrl,
  parseProfile,
  runConformance,
  selectChecks,
} from './run-conformance.js';
export { ALL_CHECKS };

/**
 * Each check of a profile (every check without one), in run order: its id, the line that says what it asserts
 * under that profile (under `reference` without one), the section of the interface it enforces and the decision
 * of ours it adds under `reference`.
 */
export function listChecks(
  profile?: Profile,
): Array<{ id: string; description: string; spec?: string; decision?: string }> {
  return (profile === undefined ? ALL_CHECKS : ALL_CHECKS.filter((check) => inProfile(check, profile))).map(
    (check) => ({
      id: check.id,
      description: describeCheck(check, profile ?? 'reference'),
      ...sourceOf(check),
    }),
  );
}
