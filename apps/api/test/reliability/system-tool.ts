/**
 * A system tool a scenario needs from Debian's packages (HAProxy, PgBouncer): found on the machine, else installed
 * by its scripts/ensure-<tool>.sh where that can run (root with apt-get, as in CI; it waits for an apt-get that
 * holds the lock, bounded), so the test runs on a fresh machine; elsewhere it fails with the command that fixes
 * it, never skips. No vitest import: the report scripts use this too.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';

export interface SystemTool {
  /** As the messages name it: `HAProxy`. */
  name: string;
  /** Debian's package. */
  packageName: string;
  /** The variable that names its binary instead (`HAPROXY_PATH`). */
  pathVariable: string;
  /** Binaries to try after the variable's, in order (`haproxy`, `/usr/sbin/haproxy`). */
  candidates: readonly string[];
  /** Arguments that make it print its version and exit 0. */
  versionArgs: readonly string[];
  /** scripts/<script>, which installs it. */
  script: string;
  /** What needs it, for the message: `the load-balancer scale-out test`. */
  neededBy: string;
}

/** The tool's binary: its variable, else the candidates; undefined when absent. */
function findSystemTool(tool: SystemTool): string | undefined {
  for (const candidate of [process.env[tool.pathVariable], ...tool.candidates]) {
    if (candidate === undefined || candidate === '') continue;
    try {
      execFileSync(candidate, [...tool.versionArgs], { stdio: 'ignore' });
      return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** The tool's binary, installed first where it can be (see the module comment). Call before starting anything. */
export function ensureSystemTool(tool: SystemTool): string {
  const found = findSystemTool(tool);
  if (found !== undefined) return found;
  // The script prints progress to stdout and, when it cannot install, one message with the command to stderr.
  const script = spawnSync('bash', [join(import.meta.dirname, '../../../../scripts', tool.script)], {
    stdio: ['ignore', 'inherit', 'pipe'],
    encoding: 'utf8',
  });
  const installed = findSystemTool(tool);
  if (installed === undefined) {
    const message = script.stderr?.trim().split('\n').at(-1);
    throw new Error(
      message?.startsWith(`${tool.name} is missing`)
        ? `${message} (needed by ${tool.neededBy})`
        : `${tool.name} is needed for ${tool.neededBy} and was not found. Install it with ` +
            `\`sudo apt-get update && sudo apt-get install -y ${tool.packageName}\`, or set ${tool.pathVariable} to its binary.`,
    );
  }
  return installed;
}
