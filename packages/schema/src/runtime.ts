// The int64-exact JSON helpers (parseJson, stringifyJson, createOpenApiJson) rest on two recent JSON
// features: `JSON.rawJSON` (write a number's digits verbatim) and the reviver's `context.source` (read
// them verbatim). Without them an id past 2^53 is silently rounded or a call throws mid-request, so whatever
// uses them checks once, up front (a server at start-up, a client when it is created, the helpers on first
// use), and refuses with one sentence naming what is needed instead.

type JsonWithRaw = typeof JSON & { rawJSON?: (text: string) => unknown };

const PROBE = '9007199254740993'; // 2^53 + 1: the first integer a double cannot hold

/** The oldest runtimes with both JSON features (web-features "json-raw"; Node 21 is out of support). */
export const EXACT_JSON_RUNTIMES = 'Node >= 22, Chrome/Edge >= 114, Firefox >= 135, Safari >= 18.4';

function exactJsonFeatures(): Record<string, boolean> {
  const { rawJSON } = JSON as JsonWithRaw;
  let source: unknown;
  JSON.parse(PROBE, (_key, value, context?: { source?: unknown }) => {
    source = context?.source;
    return value;
  });
  return {
    'JSON.rawJSON': typeof rawJSON === 'function' && JSON.stringify([rawJSON(PROBE)]) === `[${PROBE}]`,
    'JSON.parse source text': source === PROBE,
  };
}

/** What a package needs of its runtime, beyond the JSON features every int64-exact package needs. */
export interface RuntimeRequirement {
  /** Who needs it, the subject of the message: `@petstore/client`. */
  packageName: string;
  /** The oldest runtimes that have every feature, when older than {@link EXACT_JSON_RUNTIMES} allows. */
  runtimes?: string;
  /** Further features, by name, and whether this runtime has them. */
  features?: Record<string, boolean>;
}

const names = (list: string[]) =>
  list.length <= 1 ? list.join('') : `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`;

/**
 * Throws one clear error when this runtime lacks what the int64-exact JSON helpers need (Node < 22, Chrome < 114,
 * Firefox < 135, Safari < 18.4), naming what is needed and what is missing. `requirement` adds a package's own
 * features to the check and names that package in the message.
 */
export function assertExactJsonSupport(requirement?: RuntimeRequirement): void {
  const features = { ...exactJsonFeatures(), ...requirement?.features };
  const missing = Object.keys(features).filter((name) => !features[name]);
  if (missing.length === 0) return;
  const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
  throw new Error(
    `${requirement?.packageName ?? '@petstore/schema'} needs ${names(Object.keys(features))} ` +
      `(${requirement?.runtimes ?? EXACT_JSON_RUNTIMES}); ` +
      `${node === undefined ? 'this runtime' : `this is Node ${node}, which`} lacks ${names(missing)}`,
  );
}

let supported = false;

/** {@link assertExactJsonSupport}, remembered once it has passed: for the helpers' every call. */
export function requireExactJson(): void {
  if (supported) return;
  assertExactJsonSupport();
  supported = true;
}
