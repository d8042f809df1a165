import { randomInt } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { describeCheck } from './check.js';
import { createHttpClient } from './http-client.js';
import { OpenApiLoadError } from './openapi.js';
import { formatJUnit, formatResult, formatSummary } from './report.js';
import {
  DEFAULT_NUM_RUNS,
  DEFAULT_TIMEOUT_MS,
  normaliseBaseUrl,
  parseProfile,
  runConformance,
  selectChecks,
} from './run-conformance.js';

const USAGE = `Usage: PETSTORE_API_KEY=<key> petstore-conformance --base-url <url ending in /v1> [options]

Certifies a deployment of the Pet Store interface over plain HTTP. It creates pets (with unique names).

The API key: set PETSTORE_API_KEY. --api-key works too, but a key on the command line is printed by the
package manager's command echo (pnpm, npm scripts, CI logs) and visible in ps and the shell history.

Options:
  --base-url <url>     the deployment, ending in /v1 (or PETSTORE_BASE_URL)
  --api-key <key>      sent as "Authorization: Bearer <key>"; prefer PETSTORE_API_KEY (see above)
  --profile <name>     interface (default): what the Pet Store interface requires, every reasonable answer
                       accepted where it is silent; reference: also every decision the reference
                       implementation documents
  --openapi <source>   the deployment's OpenAPI document (a URL or a file) to check every response against;
                       default: <base-url>/openapi.json if it serves one; "none" to turn it off
  --report <file>      also write a JUnit XML report to <file>
  --seed <n>           replay the generated data of an earlier run (each run prints its seed)
  --num-runs <n>       cases per property-based check (default ${DEFAULT_NUM_RUNS})
  --timeout <ms>       per request (default ${DEFAULT_TIMEOUT_MS})
  --only <prefix>      run only the checks whose id starts with <prefix>; repeatable
  --list               print the profile's check ids, descriptions and sources, and exit
  -h, --help           this text

Exit codes: 0 every check passed, 1 a check failed, 2 usage or configuration error (a refused API key,
a base URL that does not answer: checked with one request before the suite).`;

export const EXIT = { passed: 0, failed: 1, usage: 2 } as const;

export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

/** Exit 2: the run could not start, which is not the same as a deployment that fails. */
class UsageError extends Error {}

/** Exit 2 too, in one line without the usage: the arguments were well formed, but the deployment refused them. */
class PreflightError extends Error {}

/**
 * One authenticated listPets before the suite: a wrong key (401/403) or a base URL where nothing answers would
 * otherwise show as dozens of failures, the first one named after whatever check ran first.
 */
async function preflight(baseUrl: string, apiKey: string, timeoutMs: number): Promise<void> {
  const path = '/pets?limit=1';
  let status: number;
  let body: unknown;
  try {
    ({ status, json: body } = await createHttpClient({ baseUrl, apiKey, timeoutMs }).send(path));
  } catch (error) {
    const cause =
      error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : error;
    throw new PreflightError(`the base URL could not be reached: GET ${baseUrl}${path}: ${String(cause)}`);
  }
  if (status === 401 || status === 403) {
    const { code, message } = (body ?? {}) as { code?: unknown; message?: unknown };
    const said =
      typeof message === 'string' ? `: ${typeof code === 'string' ? `${code}: ` : ''}${message}` : '';
    throw new PreflightError(
      `the API key was refused: GET ${baseUrl}${path} answered ${status}${said}. Check PETSTORE_API_KEY (or --api-key)`,
    );
  }
}

function integer(name: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < min) {
    throw new UsageError(`--${name} must be an integer >= ${min}, got ${JSON.stringify(text)}`);
  }
  return Number(text);
}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        profile: { type: 'string' },
        openapi: { type: 'string' },
        report: { type: 'string' },
        seed: { type: 'string' },
        'num-runs': { type: 'string' },
        timeout: { type: 'string' },
        only: { type: 'string', multiple: true },
        list: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * Runs the CLI; returns the exit code. Arguments win over PETSTORE_BASE_URL / PETSTORE_API_KEY from `env` (and
 * those over the older BASE_URL / API_KEY).
 */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv, output: CliOutput): Promise<number> {
  try {
    const values = parse(argv);
    if (values.help) {
      output.out(USAGE);
      return EXIT.passed;
    }
    let profile: ReturnType<typeof parseProfile>;
    try {
      profile = parseProfile(values.profile);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (values.list) {
      for (const check of selectChecks(undefined, profile)) {
        output.out(`${check.id} - ${describeCheck(check, profile)}`);
        if (check.spec !== undefined) output.out(`  # interface: ${check.spec}`);
        if (check.decision !== undefined && profile === 'reference') output.out(`  # ${check.decision}`);
      }
      return EXIT.passed;
    }
    const rawBaseUrl = values['base-url'] ?? env.PETSTORE_BASE_URL ?? env.BASE_URL;
    const apiKey = values['api-key'] ?? env.PETSTORE_API_KEY ?? env.API_KEY;
    if (!rawBaseUrl) throw new UsageError('--base-url (or PETSTORE_BASE_URL) is required');
    if (!apiKey) throw new UsageError('PETSTORE_API_KEY (or --api-key) is required');
    const seed = integer('seed', values.seed, 0) ?? randomInt(0, 2 ** 31 - 1);
    const numRuns = integer('num-runs', values['num-runs'], 1);
    const timeoutMs = integer('timeout', values.timeout, 1);
    let baseUrl: string;
    let count: number;
    try {
      baseUrl = normaliseBaseUrl(rawBaseUrl);
      count = selectChecks(values.only, profile).length;
    } catch (error) {
      throw new UsageError((error as Error).message);
    }

    await preflight(baseUrl, apiKey, timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const openapi = values.openapi === 'none' ? false : values.openapi;
    output.out(
      `# petstore-conformance: ${count} checks of the ${profile} profile against ${baseUrl}, seed ${seed} (replay with --seed ${seed})`,
    );
    let report: Awaited<ReturnType<typeof runConformance>>;
    try {
      report = await runConformance({
        baseUrl,
        apiKey,
        seed,
        numRuns,
        timeoutMs,
        profile,
        openapi,
        only: values.only,
        onResult: (result) => output.out(formatResult(result)),
      });
    } catch (error) {
      if (error instanceof OpenApiLoadError) throw new UsageError(error.message);
      throw error;
    }
    if (values.report) {
      writeFileSync(values.report, formatJUnit(report));
      output.out(`# JUnit report: ${values.report}`);
    }
    output.out(
      `# ${report.durationMs} ms; responses checked against ${report.openapi ?? 'no OpenAPI document'}`,
    );
    output.out(formatSummary(report));
    return report.failed > 0 ? EXIT.failed : EXIT.passed;
  } catch (error) {
    if (error instanceof PreflightError) {
      output.err(`petstore-conformance: ${error.message}`);
      return EXIT.usage;
    }
    if (!(error instanceof UsageError)) throw error;
    output.err(`petstore-conformance: ${error.message}\n\n${USAGE}`);
    return EXIT.usage;
  }
}
