import { setFlagsFromString } from 'node:v8';

/**
 * Lets V8's old generation grow to at most twice what survived the last full GC (its default allows 4x), once the
 * server listens: why, what it buys and why not as a command-line flag, in docs/operations.md#production-topology.
 * A value given on the command line wins.
 */
export function capHeapGrowth(): void {
  if (process.execArgv.some((arg) => arg.replaceAll('_', '-').startsWith('--heap-growing-percent'))) return;
  setFlagsFromString('--heap-growing-percent=100');
}
