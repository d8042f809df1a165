/**
 * The hostile probes: fixed requests, each with the answer the API must give, one group per defect an outside
 * review found by probing a running API (and fixed since), each group sampling the rule that fixed it rather
 * than only the review's examples. `probes.scenario.ts` sends them over raw HTTP to the real API in a child
 * process and checks every answer. No vitest import: the report script uses this too.
 *
 * The groups live in hostile-probes/, by what they probe; kit.ts has the Probe type and the request builders.
 */
import { batchSizeProbes, unauthenticatedBatchProbes } from './hostile-probes/batches.js';
import { mediaTypeProbes, plainTrpcInputProbes } from './hostile-probes/content-types.js';
import { ambiguousRequestProbes, edgeProbes } from './hostile-probes/edge.js';
import {
  duplicateKeyProbes,
  invalidUtf8Probes,
  nameLengthProbes,
  protoKeyProbes,
} from './hostile-probes/json-bodies.js';
import { createProbeKit, type Probe, type ProbeKit } from './hostile-probes/kit.js';
import { prototypeNameProbes } from './hostile-probes/lookup-keys.js';
import { bigintTextProbes, numberProbes } from './hostile-probes/numbers.js';

export type { Defect, Probe } from './hostile-probes/kit.js';

/** The groups, in the order they are sent (numbered as in their comments). */
const GROUPS: ((kit: ProbeKit) => void)[] = [
  prototypeNameProbes, // 1
  unauthenticatedBatchProbes, // 2
  batchSizeProbes, // 3
  numberProbes, // 4
  bigintTextProbes, // 5
  invalidUtf8Probes, // 6
  protoKeyProbes, // 7
  mediaTypeProbes, // 8
  plainTrpcInputProbes, // 9
  nameLengthProbes, // 10
  duplicateKeyProbes, // 11
  ambiguousRequestProbes, // 12
  edgeProbes, // 13
];

/** Every probe, in the order they are sent. */
export function hostileProbes(host: string, apiKey: string): Probe[] {
  const kit = createProbeKit(host, apiKey);
  for (const group of GROUPS) group(kit);
  return kit.probes;
}
