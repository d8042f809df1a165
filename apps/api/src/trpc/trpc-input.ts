import superjson from 'superjson';
import { AppError } from '../errors.js';

// tRPC inputs are superjson envelopes, `{ json, meta? }`, one per call (a batch is an object keyed by call
// index). tRPC reads them with JSON.parse and superjson.deserialize, which round numbers past 2^53, turn
// `BigInt("0x10")`, `BigInt("")` or `BigInt(" 12 ")` into 16, 0 and 12, drop `__proto__` keys and read a plain
// `{"limit":101}` (no envelope) as "no input". Before tRPC sees anything, each input is read here from its exact
// text (parseJson) and held to the rules REST applies to the same value, so that the same input gets the same
// verdict on both transports.

// Decimal digits as a JSON integer writes them (integerOfText's rule: no leading zeros).
const BIGINT_TEXT = /^-?(?:0|[1-9][0-9]*)$/;
const ENVELOPE_KEYS = new Set(['json', 'meta']);
// `referentialEqualities`: superjson writes it for a value reached twice, which in this API's inputs can only be
// equal bigints (`{"categoryId":["petId"]}`); applying it copies one field's value into another, so it is taken
// only where that changes nothing (checkEqualities).
const META_KEYS = new Set(['values', 'referentialEqualities', 'v']);

const refused = (message: string) => new AppError('validation_failed', message);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** superjson's path syntax: segments joined by `.`, with `\.` and `\\` escaping. */
function splitPath(path: string): string[] {
  const segments: string[] = [];
  let current = '';
  for (let index = 0; index < path.length; index++) {
    const char = path[index] as string;
    if (char === '\\' && index + 1 < path.length) {
      current += path[++index];
    } else if (char === '.') {
      segments.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  segments.push(current);
  return segments;
}

/** The field path a person reads in a message (`categoryId`, `0.name`). */
const fieldName = (segments: readonly (string | number)[]) => segments.join('.');

/** Deeper than any input of this API nests (3 levels); refused before anything walks it. */
const MAX_DEPTH = 32;

/** A value JSON text cannot carry as tRPC reads it, and the superjson type it is handed on as. */
type Special = [path: (string | number)[], type: 'bigint' | 'number'];

/**
 * Numbers the way REST reads them. An integer beyond 2^53 is exact here (parseJson makes it a bigint), and a number
 * whose text is not exactly the number JSON.parse would make of it (`4.0000000000000000001` read as 4, `1e-400` as
 * 0) is NaN here: tRPC, reading the text again, would see either changed. Their paths go to `specials`, and the
 * envelope is rewritten with them as superjson's bigint and NaN, so that the procedure's schema judges the value
 * REST's schema judges, with the same message (`normalized`). One path, pushed and popped: a deep value costs no
 * copies.
 */
function checkNumbers(value: unknown, specials: Special[], path: (string | number)[] = []): void {
  if (typeof value === 'bigint') {
    specials.push([[...path], 'bigint']);
    return;
  }
  if (path.length > MAX_DEPTH) throw refused(`tRPC input nests deeper than ${MAX_DEPTH} levels`);
  if (typeof value === 'number' && Number.isNaN(value)) {
    specials.push([[...path], 'number']);
    return;
  }
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      path.push(index);
      checkNumbers(value[index], specials, path);
      path.pop();
    }
  } else if (isRecord(value)) {
    for (const key of Object.keys(value)) {
      if (key === '__proto__') throw refused(`unknown field "__proto__"`);
      path.push(key);
      checkNumbers(value[key], specials, path);
      path.pop();
    }
  }
}

/** The texts superjson itself writes for a value it marks as a `number` (JSON has no literal for them). */
const SUPERJSON_NUMBER_TEXTS = new Set(['NaN', 'Infinity', '-Infinity', '-0']);

/**
 * The envelope's annotations, held to what this API's inputs are (JSON plus bigint): each is a leaf `[type]`
 * on a path; `bigint` must annotate decimal digits (superjson reads `"0x10"`, `""` and `" 12 "` as 16n, 0n and
 * 12n), `number` only superjson's own texts (it reads `"0x10"` as 16), `undefined` is allowed; any other type
 * (Date, Map, class, custom...) or a nested annotation tree is refused rather than applied.
 */
function checkAnnotations(json: unknown, values: unknown): void {
  const annotations: [string[], unknown][] = Array.isArray(values)
    ? [[[], values]]
    : isRecord(values)
      ? Object.entries(values).map(([path, annotation]) => [splitPath(path), annotation])
      : values === undefined
        ? []
        : [[[], values]];
  for (const [segments, annotation] of annotations) {
    const where = segments.length > 0 ? `${fieldName(segments)}: ` : '';
    const type = Array.isArray(annotation) && annotation.length === 1 ? annotation[0] : undefined;
    if (type !== 'bigint' && type !== 'number' && type !== 'undefined') {
      throw refused(`${where}tRPC input annotations may only mark bigint (or undefined) values`);
    }
    // An annotation for a field the input does not have would be dropped silently by superjson: refused. (Parsed
    // JSON holds no undefined value, so undefined here is a missing field.)
    const target = valueAt(json, segments);
    if (target === undefined)
      throw refused(`${where}tRPC input annotation names a field the input does not have`);
    // superjson writes an undefined value as null and marks it; a mark on anything else would replace it.
    if (type === 'undefined') {
      if (target !== null) throw refused(`${where}tRPC input marks as undefined a value that is not null`);
      continue;
    }
    const text = typeof target === 'string' ? target : undefined;
    if (type === 'bigint' && (text === undefined || !BIGINT_TEXT.test(text))) {
      throw refused(`${where}must be an integer (int64), written as decimal digits`);
    }
    if (type === 'number' && (text === undefined || !SUPERJSON_NUMBER_TEXTS.has(text))) {
      throw refused(`${where}must be a JSON number`);
    }
  }
}

/** The value at a superjson path of `json`, or undefined when it has none. */
function valueAt(json: unknown, segments: readonly string[]): unknown {
  let target = json;
  for (const segment of segments) {
    if (!(isRecord(target) || Array.isArray(target)) || !Object.hasOwn(target, segment)) return undefined;
    target = (target as never)[segment];
  }
  return target;
}

/**
 * superjson's `referentialEqualities`, taken only where applying them changes nothing: each names paths that are
 * all annotated `bigint` and hold the same digits (what superjson writes for equal bigints). Anything else would
 * copy one field's value over another's, and is refused.
 */
function checkEqualities(json: unknown, values: unknown, equalities: unknown): void {
  if (equalities === undefined) return;
  const cannot = refused('tRPC input "meta.referentialEqualities" may only join equal bigint values');
  if (!isRecord(equalities) || !isRecord(values)) throw cannot;
  for (const [source, targets] of Object.entries(equalities)) {
    if (!Array.isArray(targets)) throw cannot;
    const texts = [source, ...targets].map((path) => {
      const annotation = typeof path === 'string' ? values[path] : undefined;
      if (!Array.isArray(annotation) || annotation.length !== 1 || annotation[0] !== 'bigint') throw cannot;
      return valueAt(json, splitPath(path as string));
    });
    if (texts.some((text) => typeof text !== 'string' || text !== texts[0])) throw cannot;
  }
}

/** superjson's escaping of a key inside a meta path (as transformer.ts writes them). */
const escapeKey = (key: string | number) => String(key).replace(/\\/g, '\\\\').replace(/\./g, '\\.');

/**
 * One call's input: a superjson envelope `{ json, meta? }` and nothing else. Returns the envelope to hand on
 * when it had to be rewritten (a plain JSON integer beyond 2^53, made superjson's bigint), else undefined.
 */
function checkEnvelope(envelope: unknown): Record<string, unknown> | undefined {
  if (!isRecord(envelope) || Object.keys(envelope).some((key) => !ENVELOPE_KEYS.has(key))) {
    throw refused(
      'tRPC input must be a superjson envelope {"json": <input>, "meta"?: {...}}, as @trpc/client with the ' +
        'superjson transformer sends it',
    );
  }
  const { json, meta } = envelope;
  if (meta !== undefined && (!isRecord(meta) || Object.keys(meta).some((key) => !META_KEYS.has(key)))) {
    throw refused('tRPC input "meta" must be superjson metadata');
  }
  const specials: Special[] = [];
  checkNumbers(json, specials);
  if (meta !== undefined) {
    checkAnnotations(json, meta.values);
    checkEqualities(json, meta.values, meta.referentialEqualities);
    // Annotations superjson cannot apply (an unknown class, a custom type, a `__proto__` path) make it throw:
    // that is the caller's malformed input, not a fault of ours.
    try {
      superjson.deserialize(envelope as never);
    } catch (error) {
      throw refused(`tRPC input "meta" cannot be applied: ${(error as Error).message}`);
    }
  }
  if (specials.length === 0) return undefined;
  // What REST reads exactly, tRPC must read alike: each special value becomes what superjson writes for it (a
  // bigint as its decimal digits annotated `bigint`, NaN as "NaN" annotated `number`), which both the fast path
  // and tRPC's handler read back.
  if (Array.isArray(meta?.values) || specials.some(([path]) => path.length === 0)) {
    if (meta?.values !== undefined || specials.length !== 1)
      throw refused('tRPC input "meta" cannot be applied');
    return { json: String(json), meta: { ...meta, values: [specials[0]?.[1]] } };
  }
  const values: Record<string, unknown> = isRecord(meta?.values) ? { ...meta.values } : {};
  for (const [path, type] of specials) values[path.map(escapeKey).join('.')] = [type];
  return { json: JSON.parse(stringify(json)), meta: { ...meta, values } };
}

/**
 * Checks the inputs of a tRPC request, parsed exactly: one envelope, or for a batch an object whose keys are
 * call indexes below `calls`, each an envelope. Throws 400 validation_failed with a message naming the problem.
 * Returns the JSON text to hand on instead of the request's when an input had to be rewritten (checkEnvelope).
 */
export function checkTrpcInputs(inputs: unknown, batch: boolean, calls: number): string | undefined {
  if (inputs === undefined) return undefined;
  if (!batch) {
    const rewritten = checkEnvelope(inputs);
    return rewritten === undefined ? undefined : stringify(rewritten);
  }
  if (!isRecord(inputs)) throw refused('a tRPC batch input must be an object keyed by call index');
  let rewrittenAny = false;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(inputs)) {
    const index = Number(key);
    if (!/^(0|[1-9][0-9]*)$/.test(key) || index >= calls) {
      throw refused(`a tRPC batch input has no call ${JSON.stringify(key)}`);
    }
    const rewritten = checkEnvelope(inputs[key]);
    if (rewritten !== undefined) rewrittenAny = true;
    out[key] = rewritten ?? inputs[key];
  }
  return rewrittenAny ? stringify(out) : undefined;
}

/** JSON text of an exactly-parsed value, its bigints and NaNs as superjson's texts (annotated by checkEnvelope). */
const stringify = (value: unknown) =>
  JSON.stringify(value, (_key, item) =>
    typeof item === 'bigint' || (typeof item === 'number' && Number.isNaN(item)) ? String(item) : item,
  );
