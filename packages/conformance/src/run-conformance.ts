import { randomInt } from 'node:crypto';
import {
  type Check,
  CheckFailure,
  CheckSkipped,
  describeCheck,
  inProfile,
  PROFILES,
  type Profile,
  sourceOf,
} from './check.js';
import { ALL_CHECKS } from './checks/all.checks.js';
import { createFixtures } from './fixtures.js';
import { createHttpClient, type Exchange, type SentRequest } from './http-client.js';
import { loadOpenApi, type OpenApiOption } from './openapi.js';

export interface ConformanceOptions {
  /** The deployment's base URL, ending in the version segment: `https://staging.example/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /** Seeds the generated data; the same seed replays the same cases. Random when omitted (see the report). */
  seed?: number;
  /** Cases per property-based check. Default 25. */
  numRuns?: number;
  /** Per request, in milliseconds. Default 10000. */
  timeoutMs?: number;
  /** Run only the checks whose id equals or starts with one of these (`auth.`, `getPet.not-found`). */
  only?: readonly string[];
  /**
   * `interface` (default): what the Pet Store interface requires, every reasonable answer accepted where it is
   * silent. `reference`: also every decision the reference implementation documents.
   */
  profile?: Profile;
  /**
   * The deployment's OpenAPI document to hold its responses to: a URL or a file; `false` for none. Default: the
   * one at `<baseUrl>/openapi.json`, if it serves one (otherwise `responses.openapi` is skipped).
   */
  openapi?: OpenApiOption;
  /** Called as each check finishes, for streaming output. */
  onResult?: (result: CheckResult) => void;
}

/** What to send to see a failure again. The API key is never included: headers say `$API_KEY` instead. */
export interface Reproduction {
  method: string;
  /** Absolute URL. */
  url: string;
  headers: Record<string, string>;
  /** The body as text (non-UTF-8 bytes as `\xHH`), possibly cut; undefined when none was sent. */
  body?: string;
  bodyBytes?: number;
  /** What came back, when something did. */
  response?: { status: number; headers: Record<string, string>; body: string };
}

export interface CheckResult {
  id: string;
  description: string;
  ok: boolean;
  durationMs: number;
  /** Why it failed. */
  reason?: string;
  /** Why it did not apply (ok, but nothing was certified). */
  skipped?: string;
  /** The interface section it enforces, when it enforces one. */
  spec?: string;
  /** The decision of ours it enforces under the `reference` profile, when it enforces one. */
  decision?: string;
  reproduction?: Reproduction;
}

export interface ConformanceReport {
  baseUrl: string;
  profile: Profile;
  /** The OpenAPI document responses were checked against, if any. */
  openapi?: string;
  seed: number;
  numRuns: number;
  results: CheckResult[];
  /** Checks that ran and passed (skipped ones not included). */
  passed: number;
  failed: number;
  skipped: number;
  durationMs: number;
}

export const DEFAULT_NUM_RUNS = 25;
export const DEFAULT_TIMEOUT_MS = 10_000;
const BODY_SHOWN = 2_000;

export const DEFAULT_PROFILE: Profile = 'interface';

/** `profile` checked, for callers that read it from a command line or a JavaScript caller. */
export function parseProfile(profile: string | undefined): Profile {
  if (profile === undefined) return DEFAULT_PROFILE;
  if (!(PROFILES as readonly string[]).includes(profile))
    throw new Error(`profile must be one of ${PROFILES.join(', ')}, got ${JSON.stringify(profile)}`);
  return profile as Profile;
}

/**
 * The checks of a profile that `only` selects (all of the profile without it); an empty selection is an error
 * rather than a green run.
 */
export function selectChecks(only?: readonly string[], profile: Profile = DEFAULT_PROFILE): readonly Check[] {
  const ofProfile = ALL_CHECKS.filter((check) => inProfile(check, profile));
  if (only === undefined || only.length === 0) return ofProfile;
  const selected = ofProfile.filter((check) => only.some((prefix) => check.id.startsWith(prefix)));
  if (selected.length === 0)
    throw new Error(
      `no check of the ${profile} profile has an id starting with ${only.map((p) => JSON.stringify(p)).join(' or ')}`,
    );
  return selected;
}

/** `https://host/v1/` -> `https://host/v1`; anything not ending in the `v1` segment is refused. */
export function normaliseBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error(`base URL ${JSON.stringify(baseUrl)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error('base URL must be http:// or https://');
  if (url.search !== '' || url.hash !== '') throw new Error('base URL must have no query or fragment');
  const normalised = url.href.replace(/\/+$/, '');
  if (!normalised.endsWith('/v1')) {
    throw new Error(
      `base URL must end with the version segment /v1 (e.g. https://staging.example/v1), got ${baseUrl}`,
    );
  }
  return normalised;
}

function showBody(body: string | Uint8Array): string {
  const text =
    typeof body === 'string'
      ? body
      : Array.from(body, (byte) =>
          byte >= 0x20 && byte < 0x7f && byte !== 0x5c
            ? String.fromCharCode(byte)
            : `\\x${byte.toString(16).padStart(2, '0')}`,
        ).join('');
  return text.length > BODY_SHOWN ? `${text.slice(0, BODY_SHOWN)}…` : text;
}

function reproduce(request: SentRequest, apiKey: string, exchange?: Exchange): Reproduction {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers))
    headers[name] = value.replaceAll(apiKey, '$API_KEY');
  const reproduction: Reproduction = { method: request.method, url: request.url, headers };
  if (request.body !== undefined) {
    reproduction.body = showBody(request.body);
    reproduction.bodyBytes =
      typeof request.body === 'string' ? Buffer.byteLength(request.body) : request.body.length;
  }
  if (exchange) {
    const responseHeaders: Record<string, string> = {};
    exchange.headers.forEach((value, name) => {
      responseHeaders[name] = value;
    });
    reproduction.response = {
      status: exchange.status,
      headers: responseHeaders,
      body: showBody(exchange.text),
    };
  }
  return reproduction;
}

/** A check that threw: why, and the request that shows it (the last one the check sent, for a network error). */
function failedResult(
  base: Omit<CheckResult, 'ok'>,
  error: unknown,
  lastSent: SentRequest | undefined,
  apiKey: string,
): CheckResult {
  const failure = error instanceof CheckFailure ? error : undefined;
  const cause = error instanceof Error ? error : new Error(String(error));
  const reason = cause.cause instanceof Error ? `${cause.message}: ${cause.cause.message}` : cause.message;
  const exchange = failure?.exchange;
  const request = exchange?.request ?? failure?.request ?? lastSent;
  const result: CheckResult = { ...base, ok: false, reason };
  if (request) result.reproduction = reproduce(request, apiKey, exchange);
  return result;
}

/**
 * Runs the conformance checks against a deployment, one after another, and reports each. It never throws for a
 * deviation: a check that fails is a result with `ok: false`. Checks create their own pets, with unique names.
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const baseUrl = normaliseBaseUrl(options.baseUrl);
  const seed = options.seed ?? randomInt(0, 2 ** 31 - 1);
  const numRuns = options.numRuns ?? DEFAULT_NUM_RUNS;
  const profile = parseProfile(options.profile);
  const checks = selectChecks(options.only, profile);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const http = createHttpClient({ baseUrl, apiKey: options.apiKey, timeoutMs });
  // The document is read outside the suite's own log: it is not a response of the interface.
  const { document: openapi, reason: openapiUnavailable } = await loadOpenApi(
    options.openapi,
    baseUrl,
    async (url) => {
      const response = await fetch(url, {
        headers: { authorization: `Bearer ${options.apiKey}`, accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { status: response.status, text: await response.text() };
    },
  );
  const ctx = {
    http,
    fixtures: createFixtures(http, { profile }),
    seed,
    numRuns,
    profile,
    openapi,
    openapiUnavailable,
  };

  const started = performance.now();
  const results: CheckResult[] = [];
  for (const check of checks) {
    const checkStarted = performance.now();
    const lastBefore = http.lastRequest;
    const base = {
      id: check.id,
      description: describeCheck(check, profile),
      durationMs: 0,
      ...sourceOf(check),
    };
    let result: CheckResult;
    try {
      await check.run(ctx);
      result = { ...base, ok: true };
    } catch (error) {
      if (error instanceof CheckSkipped) {
        result = { ...base, ok: true, skipped: error.message };
      } else {
        result = failedResult(
          base,
          error,
          http.lastRequest === lastBefore ? undefined : http.lastRequest,
          options.apiKey,
        );
      }
    }
    result.durationMs = Math.round(performance.now() - checkStarted);
    results.push(result);
    options.onResult?.(result);
  }

  const failed = results.filter((result) => !result.ok).length;
  const skipped = results.filter((result) => result.skipped !== undefined).length;
  return {
    baseUrl,
    profile,
    ...(openapi === undefined ? {} : { openapi: openapi.source }),
    seed,
    numRuns,
    results,
    passed: results.length - failed - skipped,
    failed,
    skipped,
    durationMs: Math.round(performance.now() - started),
  };
}
