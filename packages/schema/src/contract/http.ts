// How the contract meets the transports: base-URL rule, path templates, statuses, deprecation and stability
// headers, tRPC paths and where validation messages point. Pure functions of the declarations.
import { API_BASE_PATH, STABILITY_LEVELS } from './constants.js';
import { restOperations } from './operations.js';
import type { HeaderContract, OperationContract } from './types.js';

/**
 * The rule for a public base URL of the API (what clients are given, what the OpenAPI `servers` list): an
 * absolute http(s) URL whose path ends in {@link API_BASE_PATH}, without query or fragment. Trailing slashes
 * are dropped. One rule for the server's configuration and the clients' presets.
 */
export function checkApiBaseUrl(
  url: string,
): { ok: true; url: string } | { ok: false; problem: 'not-a-url' | 'not-http' | 'no-version' } {
  const parsed = URL.parse(url);
  if (parsed === null) return { ok: false, problem: 'not-a-url' };
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.search || parsed.hash) {
    return { ok: false, problem: 'not-http' };
  }
  if (!parsed.pathname.replace(/\/+$/, '').endsWith(API_BASE_PATH))
    return { ok: false, problem: 'no-version' };
  return { ok: true, url: url.replace(/\/+$/, '') };
}

/** The statuses an operation can answer with, success first. */
export function documentedStatuses(op: OperationContract): number[] {
  return [op.success.status, ...Object.keys(op.errors).map(Number)];
}

/** The names of an operation's path parameters, in template order (`/pets/{petId}` -> `['petId']`). */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
}

/**
 * A path template as a pattern matching its concrete paths, each parameter a capture group in template order:
 * `/pets/{petId}` -> `^/pets/([^/]+)$` (with `prefix`, e.g. API_BASE_PATH, in front).
 */
export function pathPattern(path: string, prefix = ''): RegExp {
  const source = `${prefix}${path}`
    .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
    .replace(/\\?\{[^}]+\\?\}/g, '([^/]+)');
  return new RegExp(`^${source}$`);
}

/** An operation's tRPC procedure path: `pets.list`. */
export function trpcPath(op: Pick<OperationContract, 'trpc'>): string {
  return `${op.trpc.router}.${op.trpc.procedure}`;
}

/** A path template filled in: `/pets/{petId}` with `{ petId: 7n }` -> `/pets/7` (each value percent-encoded). */
export function fillPath(path: string, values: Readonly<Record<string, unknown>>): string {
  return path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(String(values[name])));
}

const httpDate = (isoDate: string) => new Date(`${isoDate}T00:00:00Z`).toUTCString();

/**
 * The headers every response of a deprecated operation carries: RFC 9745 `Deprecation` (`@<unix seconds>`),
 * RFC 8594 `Sunset` (an HTTP date) and a `Link` to the replacement, under `base` (a deployment's public URL, else
 * `/v1`).
 */
export function deprecationHeaders(
  op: OperationContract,
  base: string = API_BASE_PATH,
): Record<string, string> | undefined {
  const deprecated = op.deprecated;
  if (deprecated === undefined) return undefined;
  const replacement = restOperations.find((candidate) => candidate.id === deprecated.replacement);
  if (replacement === undefined) throw new Error(`${op.id} is replaced by unknown ${deprecated.replacement}`);
  return {
    Deprecation: `@${Date.parse(`${deprecated.since}T00:00:00Z`) / 1000}`,
    Sunset: httpDate(deprecated.sunset),
    Link: `<${base}${replacement.path}>; rel="successor-version"`,
  };
}

/** Headers a deprecated operation sets, as the document describes them. */
export const DEPRECATION_HEADER_CONTRACTS: Readonly<Record<string, HeaderContract>> = {
  Deprecation: {
    description: 'RFC 9745: the operation is deprecated, as an `@<unix seconds>` date.',
    required: true,
  },
  Sunset: { description: 'RFC 8594: when the operation is removed, as an HTTP date.', required: true },
  Link: { description: 'The replacement, `rel="successor-version"`.', required: true },
};

/** The response header that names an operation's stability level. */
export const STABILITY_HEADER = 'Petstore-Stability';

/** The stability header, as the document describes it on every response of every operation. */
export const STABILITY_HEADER_CONTRACTS: Readonly<Record<string, HeaderContract>> = {
  [STABILITY_HEADER]: {
    description:
      "The operation's stability level (its `x-stability`): `stable` changes only compatibly outside a major " +
      'version, `beta` may change incompatibly in a minor version that announces it, `experimental` in any minor.',
    required: true,
  },
};

/**
 * The headers every response of an operation carries, errors included: its stability level and, when it is
 * deprecated, its deprecation headers.
 */
export function operationResponseHeaders(op: OperationContract, base?: string): Record<string, string> {
  return { ...deprecationHeaders(op, base), [STABILITY_HEADER]: op.stability };
}

/**
 * The headers of an answer about a path rather than one of its operations (405, OPTIONS): the deprecation headers
 * when every operation on it is deprecated, and the least settled level among them (what the path allows is no
 * more settled than that).
 */
export function pathResponseHeaders(
  ops: readonly OperationContract[],
  base?: string,
): Record<string, string> {
  const [first] = ops;
  if (first === undefined) throw new Error('a path of the contract has at least one operation');
  const deprecated = ops.every((op) => op.deprecated !== undefined)
    ? deprecationHeaders(first, base)
    : undefined;
  const level = Math.max(...ops.map((op) => STABILITY_LEVELS.indexOf(op.stability)));
  return { ...deprecated, [STABILITY_HEADER]: STABILITY_LEVELS[level] as string };
}

/** Where a validation message points for this operation's input: the REST part its fields come from. */
export function inputSubject(op: OperationContract): 'field' | 'query parameter' | 'path parameter' {
  if (op.request.body !== undefined || op.path === undefined) return 'field';
  if (op.request.query !== undefined) return 'query parameter';
  return 'path parameter';
}
