import { inputSubject, integerOfText } from '@petstore/schema/internal';
import superjson from 'superjson';
import { AppError } from '../errors.js';
import { parseOr400 } from '../http/rest.js';
import { OPERATION_OF_PROCEDURE } from './trpc.js';

// tRPC inputs are superjson envelopes, `{ json, meta? }`, one per call (a batch: an object keyed by call index).
// tRPC's own reading (JSON.parse, superjson.deserialize) rounds numbers past 2^53, reads `BigInt("0x10")`,
// `BigInt("")` or `BigInt(" 12 ")` as 16, 0 and 12, drops `__proto__` keys and takes a bare `{"limit":101}` as
// no input. So each input is read here from its exact text (parseJson) and held to REST's rules for the same
// value: the same input gets the same verdict on both transports.

// Decimal digits as a JSON integer writes them (no leading zeros), read by integerOfText's rule (its bound too).
const BIGINT_TEXT = /^-?(?:0|[1-9][0-9]*)$/;
const ENVELOPE_KEYS = new Set(['json', 'meta']);
// `referentialEqualities` copies one field's value into another: taken only where that changes nothing
// (checkEqualities); superjson writes it for equal bigints (`{"categoryId":["petId"]}`).
const META_KEYS = new Set(['values', 'referentialEqualities', 'v']);
/** The texts superjson writes for a value it marks as a `number` (JSON has no literal for them). */
const SUPERJSON_NUMBER_TEXTS = new Set(['NaN', 'Infinity', '-Infinity', '-0']);
/** Deeper than any input of this API nests (3 levels); refused before anything walks it. */
const MAX_DEPTH = 32;

const refused = (message: string) => new AppError('validation_failed', message);

/**
 * An input with a `__proto__` key, which superjson would drop: judged by its operation's input with the key kept
 * (the meta applied to the rest), so that the refusal names every unknown key in REST's words.
 */
function judgeWithProto(procedure: string | undefined, json: Record<string, unknown>, meta: unknown): never {
  const { __proto__: proto, ...rest } = json;
  checkNumbers(rest); // its depth bound first (and a `__proto__` deeper down is refused there)
  const op = OPERATION_OF_PROCEDURE.get(procedure ?? '');
  let value: unknown;
  try {
    value = superjson.deserialize({ json: rest, meta } as never);
  } catch {
    // Meta superjson cannot apply: the key is refused on its own, below.
  }
  if (op !== undefined && isRecord(value)) {
    // The keys in the order sent, as every other reader holds them (`fromEntries` defines `__proto__` as an own key).
    const read = Object.fromEntries(
      Object.keys(json).map((key) => [key, key === '__proto__' ? proto : value[key]]),
    );
    parseOr400(op.input, read, inputSubject(op));
  }
  throw refused(`unknown field "__proto__"`);
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** superjson's path syntax: segments joined by `.`, a `\` escaping the character after it. */
const splitPath = (path: string): string[] =>
  path.split(/(?<=(?:^|[^\\])(?:\\\\)*)\./).map((segment) => segment.replace(/\\(.)/gs, '$1'));

/**
 * Numbers the way REST reads them: an integer past 2^53 is exact (parseJson makes it a bigint), and a number
 * whose text is not exactly what JSON.parse would make of it (`1e-400` read as 0) is NaN. Says whether the input
 * holds one, so that the envelope hands them on as superjson's bigint and NaN, and the procedure's schema judges
 * the value REST's judges, with the same message.
 */
function checkNumbers(value: unknown, depth = 0): boolean {
  if (typeof value === 'bigint') return true;
  if (depth > MAX_DEPTH) throw refused(`tRPC input nests deeper than ${MAX_DEPTH} levels`);
  if (typeof value === 'number') return Number.isNaN(value);
  if (typeof value !== 'object' || value === null) return false;
  let special = false;
  for (const key of Array.isArray(value) ? value.keys() : Object.keys(value)) {
    if (key === '__proto__') throw refused(`unknown field "__proto__"`);
    if (checkNumbers((value as Record<string | number, unknown>)[key], depth + 1)) special = true;
  }
  return special;
}

/** The value at a superjson path of `json`, or undefined when it has none. */
function valueAt(json: unknown, segments: readonly string[]): unknown {
  let target = json;
  for (const segment of segments) {
    if (typeof target !== 'object' || target === null || !Object.hasOwn(target, segment)) return undefined;
    target = (target as never)[segment];
  }
  return target;
}

/**
 * The envelope's annotations, held to what this API's inputs are (JSON plus bigint): each a leaf `[type]` on a
 * path of the input; `bigint` on decimal digits only, `number` on superjson's own texts only (it reads `"0x10"` as
 * 16 for both), `undefined` on null. Any other type (Date, Map, class, custom...) or a nested tree is refused.
 * Digits past integerOfText's bound are rewritten to what a JSON number past it reads as, `NaN` (annotated
 * `number`), for the schema to judge as it judges REST's; returns whether one was.
 */
function checkAnnotations(json: unknown, values: unknown): boolean {
  let rewritten = false;
  const annotations: [string, string[], unknown][] = isRecord(values)
    ? Object.entries(values).map(([path, annotation]) => [path, splitPath(path), annotation])
    : values === undefined
      ? []
      : [['', [], values]];
  for (const [path, segments, annotation] of annotations) {
    const where = segments.length > 0 ? `${segments.join('.')}: ` : '';
    const type = Array.isArray(annotation) && annotation.length === 1 ? annotation[0] : undefined;
    if (type !== 'bigint' && type !== 'number' && type !== 'undefined') {
      throw refused(`${where}tRPC input annotations may only mark bigint, number or undefined values`);
    }
    // superjson would drop it silently. (Parsed JSON holds no undefined: undefined is a missing field.)
    const target = valueAt(json, segments);
    if (target === undefined)
      throw refused(`${where}tRPC input annotation names a field the input does not have`);
    if (type === 'undefined') {
      if (target !== null) throw refused(`${where}tRPC input marks as undefined a value that is not null`);
      continue;
    }
    const text = typeof target === 'string' ? target : undefined;
    if (type === 'bigint' && (text === undefined || !BIGINT_TEXT.test(text))) {
      throw refused(`${where}must be an integer (int64), written as decimal digits`);
    }
    if (type === 'bigint' && integerOfText(text as string) === undefined && segments.length > 0) {
      const parent = valueAt(json, segments.slice(0, -1)) as Record<string, unknown>;
      parent[segments.at(-1) as string] = 'NaN';
      (values as Record<string, unknown>)[path] = ['number'];
      rewritten = true;
    }
    if (type === 'number' && (text === undefined || !SUPERJSON_NUMBER_TEXTS.has(text))) {
      throw refused(`${where}must be a JSON number`);
    }
  }
  return rewritten;
}

/** `referentialEqualities` only between paths annotated `bigint` that hold the same digits. */
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

/**
 * One call's input: a superjson envelope and nothing else. Returns the envelope to hand on when it had to be
 * rewritten (a special value, checkNumbers), else undefined.
 */
function checkEnvelope(envelope: unknown, procedure: string | undefined): object | undefined {
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
  if (isRecord(json) && Object.hasOwn(json, '__proto__')) judgeWithProto(procedure, json, meta);
  let special = checkNumbers(json);
  if (meta === undefined && !special) return undefined;
  if (meta !== undefined) {
    if (checkAnnotations(json, meta.values)) special = true;
    checkEqualities(json, meta.values, meta.referentialEqualities);
    // A special value at the root takes the root's annotation, which `values` (a record of paths) cannot be.
    if (special && typeof json !== 'object' && meta.values !== undefined) {
      throw refused('tRPC input "meta" cannot be applied');
    }
  }
  let value: unknown;
  try {
    value = superjson.deserialize(envelope as never);
  } catch (error) {
    // What superjson cannot apply (an unknown class, a `__proto__` path) makes it throw: the caller's fault.
    throw refused(`tRPC input "meta" cannot be applied: ${(error as Error).message}`);
  }
  // The value written again by superjson (a bigint's digits annotated `bigint`, "NaN" annotated `number`), which
  // both the fast path and tRPC's handler read back.
  return special ? superjson.serialize(value) : undefined;
}

/**
 * Checks a tRPC request's inputs, parsed exactly: one envelope, or for a batch an object keyed by call indexes
 * below `calls`. Throws 400 validation_failed naming the problem. Returns the JSON text to hand on instead of
 * the request's when an input had to be rewritten (checkEnvelope).
 */
export function checkTrpcInputs(
  inputs: unknown,
  batch: boolean,
  procedures: readonly string[],
): string | undefined {
  if (inputs === undefined) return undefined;
  if (!batch) {
    const rewritten = checkEnvelope(inputs, procedures[0]);
    return rewritten === undefined ? undefined : stringify(rewritten);
  }
  if (!isRecord(inputs)) throw refused('a tRPC batch input must be an object keyed by call index');
  let rewritten = false;
  for (const key of Object.keys(inputs)) {
    if (!/^(0|[1-9][0-9]*)$/.test(key) || Number(key) >= procedures.length) {
      throw refused(`a tRPC batch input has no call ${JSON.stringify(key)}`);
    }
    const envelope = checkEnvelope(inputs[key], procedures[Number(key)]);
    if (envelope === undefined) continue;
    inputs[key] = envelope;
    rewritten = true;
  }
  return rewritten ? stringify(inputs) : undefined;
}

/** JSON text of an exactly-parsed value, its bigints and NaNs (left only in a `meta`) as their texts. */
const stringify = (value: unknown) =>
  JSON.stringify(value, (_key, item) =>
    typeof item === 'bigint' || (typeof item === 'number' && Number.isNaN(item)) ? String(item) : item,
  );
