import { API_BASE_PATH, checkApiBaseUrl } from '@petstore/schema';
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
  const checked = checkApiBaseUrl(url);
  if (checked.ok) return checked.url;
  switch (checked.problem) {
    case 'not-a-url':
      throw new TypeError(`${source} is not a URL: ${JSON.stringify(url)}`);
    case 'not-http':
      throw new TypeError(
        `${source} must be an http(s) URL without query or fragment: ${JSON.stringify(url)}`,
      );
    case 'no-version':
      throw new TypeError(
        `${source} must end in the version segment ${API_BASE_PATH}: ${JSON.stringify(url)}`,
      );
  }
}
