import type { Measurement } from './report.js';

/** A measurement as a run would record it, from the figures a test cares about (the tests of report and docs). */
export const measurement = (
  rps: number,
  p99: number,
  cpuPerRequest: number,
  rssMiB: number,
): Measurement => ({
  requests: rps,
  durationSec: 1,
  rps,
  p50: p99 / 4,
  p99,
  non2xx: 0,
  socketErrors: 0,
  peakRss: rssMiB * 1024 * 1024,
  cpuMicros: cpuPerRequest * rps,
});
