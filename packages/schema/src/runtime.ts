// The int64-exact JSON helpers (parseJson, stringifyJson, createOpenApiJson) rest on two recent JSON
// features: `JSON.rawJSON` (write a number's digits verbatim) and the reviver's `context.source` (read
// them verbatim). Without them an id past 2^53 is silently rounded or the call throws mid-request, so a
// server checks once, at start-up, and refuses to run instead.

type JsonWithRaw = typeof JSON & { rawJSON?: (text: string) => unknown };

const PROBE = '9007199254740993'; // 2^53 + 1: the first integer a double cannot hold

function hasExactJson(): boolean {
  const { rawJSON } = JSON as JsonWithRaw;
  if (typeof rawJSON !== 'function') return false;
  let source: unknown;
  JSON.parse(PROBE, (_key, value, context?: { source?: unknown }) => {
    source = context?.source;
    return value;
  });
  return source === PROBE && JSON.stringify([rawJSON(PROBE)]) === `[${PROBE}]`;
}

/** Throws when this runtime lacks what the int64-exact JSON helpers need (Node < 22). */
export function assertExactJsonSupport(): void {
  if (hasExactJson()) return;
  const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
  throw new Error(
    '@petstore/schema needs Node >= 22 (JSON.rawJSON and JSON.parse source text); ' +
      (node === undefined ? 'this runtime has neither' : `this is Node ${node}`),
  );
}
