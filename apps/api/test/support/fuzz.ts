// Settings of the differential fuzzers (trpc-fuzz.test.ts, parity.test.ts), from
// the environment so that one command runs them longer and a failure found once replays:
//   FUZZ_RUNS=20000 pnpm --filter @petstore/api exec vitest run test/trpc-fuzz.test.ts test/parity.test.ts
//   FUZZ_SEED=<seed> FUZZ_PATH=<path> ...   (both printed by fast-check with the shrunk counterexample)
import type { Parameters } from 'fast-check';
import { scaled } from '../../../../tooling/vitest.shared.js';

/** Runs per property: FUZZ_RUNS, else `bounded` (what `pnpm test` runs, a few seconds). */
function fuzzRuns(bounded: number): number {
  const runs = Number(process.env.FUZZ_RUNS ?? bounded);
  if (!Number.isSafeInteger(runs) || runs < 1) throw new Error('FUZZ_RUNS must be a positive integer');
  return runs;
}

/** fast-check parameters: the run count, and the seed and path to replay when given. */
export function fuzzParameters<T>(bounded: number): Parameters<T> {
  const seed = process.env.FUZZ_SEED;
  const path = process.env.FUZZ_PATH;
  return {
    numRuns: fuzzRuns(bounded),
    ...(seed === undefined ? {} : { seed: Number(seed) }),
    ...(path === undefined ? {} : { path }),
    // Every failure prints its seed and path (fast-check does), and the shrunk request.
    verbose: 1,
  };
}

/** Vitest's time limit for a property of `bounded` runs, scaled to FUZZ_RUNS (about 20 ms a run, at least). */
export function fuzzTimeout(bounded: number): number {
  return scaled(Math.max(60_000, fuzzRuns(bounded) * 20));
}
