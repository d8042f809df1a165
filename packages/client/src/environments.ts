import { API_BASE_PATH, checkApiBaseUrl, TRPC_ENDPOINT } from '@petstore/schema';
/** The two deployments the interface names. */
export type PetStoreEnvironment = 'production' | 'staging';

/**
 * Where the base URL of each environment is read from when a caller picks one by name. The interface names
 * production and staging but gives no hosts, so this package invents none: the deployment tells its apps.
 */
export const ENVIRONMENT_VARIABLES = {
  production: 'PETSTORE_PRODUCTION_URL',
  staging: 'PETSTORE_STAGING_URL',
} as const satisfies Record<PetStoreEnvironment, string>;

/** Either an explicit base URL (ending in `/v1`) or an environment whose URL is read from its variable. */
export type PetStoreTarget =
  | { baseUrl: string; environment?: never }
  | { environment: PetStoreEnvironment; baseUrl?: never };

type Environment = Record<string, string | undefined>;

// Read lazily and defensively: browsers and edge runtimes have no `process`.
const processEnvironment = (): Environment =>
  (globalThis as { process?: { env?: Environment } }).process?.env ?? {};

/**
 * The base URL to call, without a trailing slash. `env` defaults to `process.env` and is read only when an
 * environment is named. Throws a TypeError naming the problem (unset variable, not http(s), not ending in /v1):
 * these are configuration mistakes, found when the client is created rather than on the first call.
 */
export function resolveBaseUrl(target: PetStoreTarget, env: Environment = processEnvironment()): string {
  let url: string;
  let source: string;
  if (target.environment !== undefined) {
    const variable = ENVIRONMENT_VARIABLES[target.environment];
    if (variable === undefined) {
      throw new TypeError(
        `unknown environment ${JSON.stringify(target.environment)}: use "production" or "staging"`,
      );
    }
    const value = env[variable];
    if (value === undefined || value === '') {
      throw new TypeError(
        `environment "${target.environment}" needs its base URL in ${variable} (for example https://<host>/v1), or pass { baseUrl }`,
      );
    }
    url = value;
    source = variable;
  } else if (typeof target.baseUrl === 'string') {
    url = target.baseUrl;
    source = 'baseUrl';
  } else {
    throw new TypeError('pass { baseUrl: "https://<host>/v1" } or { environment: "production" | "staging" }');
  }
  return checkedBaseUrl(url, source);
}

/** A URL for a message, without the credentials it may carry: a password is never echoed. */
function shown(url: string): string {
  const parsed = URL.parse(url);
  if (parsed === null) return JSON.stringify(url);
  parsed.username = '';
  parsed.password = '';
  return JSON.stringify(parsed.href);
}

/**
 * `url` checked by the contract's rule (checkApiBaseUrl) and returned as the URL parser writes it, so what is
 * called is what was checked (`…/v1 ` is `…/v1`, not `…/v1%20`). Credentials are refused: fetch refuses a URL
 * with them, so every call would fail, and the key is `apiKey`.
 */
function checkedBaseUrl(url: string, source: string, original = url): string {
  const checked = checkApiBaseUrl(url);
  const parsed = URL.parse(url);
  if (parsed !== null && (parsed.username !== '' || parsed.password !== '')) {
    throw new TypeError(
      `${source} must not carry credentials (user or password; pass the key as apiKey): ${shown(original)}`,
    );
  }
  if (checked.ok && parsed !== null) return parsed.href.replace(/\/+$/, '');
  switch (checked.ok ? 'not-a-url' : checked.problem) {
    case 'not-a-url':
      throw new TypeError(`${source} is not a URL: ${shown(original)}`);
    case 'not-http':
      throw new TypeError(`${source} must be an http(s) URL without query or fragment: ${shown(original)}`);
    default:
      throw new TypeError(`${source} must end in the version segment ${API_BASE_PATH}: ${shown(original)}`);
  }
}

/**
 * The tRPC client's `url`: the service's base URL (the rule {@link resolveBaseUrl} applies) followed by
 * {@link TRPC_ENDPOINT}. Throws a TypeError naming the problem, as for a base URL.
 */
export function checkTrpcUrl(url: unknown): string {
  if (typeof url !== 'string' || url === '')
    throw new TypeError(`url is required, for example https://<host>${API_BASE_PATH}${TRPC_ENDPOINT}`);
  const parsed = URL.parse(url);
  const path = parsed?.pathname.replace(/\/+$/, '');
  if (parsed === null || path === undefined || !path.endsWith(TRPC_ENDPOINT)) {
    checkedBaseUrl(url, 'url'); // what else is wrong with it first: not a URL, not http(s), credentials
    throw new TypeError(
      `url must be the service's base URL followed by ${TRPC_ENDPOINT} (https://<host>${API_BASE_PATH}${TRPC_ENDPOINT}): ${shown(url)}`,
    );
  }
  parsed.pathname = path.slice(0, -TRPC_ENDPOINT.length);
  return `${checkedBaseUrl(parsed.href, 'url', url)}${TRPC_ENDPOINT}`;
}
