import superjson from 'superjson';
import { AppError } from '../errors.js';

// tRPC inputs are superjson envelopes, `{ json, meta? }`, one per call (a batch is an object keyed by call
// index). tRPC reads them with JSON.parse and superjson.deserialize, which round numbers past 2^53, turn
// `BigInt("0x10")`, `BigInt("")` or `BigInt(" 12 ")` into 16, 0 and 12, drop `__proto__` keys and read a plain
// `{"limit":101}` (no envelope) as "no input". Before tRPC sees anything, each input is read here from its exact
// text (parseJson) and held to the rules REST applies to the same value, so that the same input gets the same
// verdict on both transports.

const BIGINT_TEXT = /^-?[0-9]+$/;
const ENVELOPE_KEYS = new Set(['json', 'meta']);
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

/**
 * Numbers the way REST reads them: a number whose text is not exactly the integer JSON.parse would make of it
 * (`4.0000000000000000001` read as 4, `1e-400` as 0; NaN from parseJson) would reach the procedure changed.
 * (An integer beyond 2^53 reaches it rounded, but no int schema accepts an unsafe number: that is a refusal.)
 * One path, pushed and popped, so a deep value costs no copies; the name is built only for the message.
 */
function checkNumbers(value: unknown, path: (string | number)[] = []): void {
  if (path.length > MAX_DEPTH) throw refused(`tRPC input nests deeper than ${MAX_DEPTH} levels`);
  if (typeof value === 'number' && Number.isNaN(value)) {
    throw refused(`${path.length > 0 ? `${fieldName(path)}: ` : ''}must be an integer (int64)`);
  }
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      path.push(index);
      checkNumbers(value[index], path);
      path.pop();
    }
  } else if (isRecord(value)) {
    for (const key of Object.keys(value)) {
      if (key === '__proto__') throw refused(`unknown field "__proto__"`);
      path.push(key);
      checkNumbers(value[key], path);
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
    if (type === 'undefined') continue;
    if (type !== 'bigint' && type !== 'number') {
      throw refused(`${where}tRPC input annotations may only mark bigint (or undefined) values`);
    }
    let target: unknown = json;
    for (const segment of segments) {
      target = isRecord(target) || Array.isArray(target) ? (target as never)[segment] : undefined;
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

/** One call's input: a superjson envelope `{ json, meta? }` and nothing else. */
function checkEnvelope(envelope: unknown): void {
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
  checkNumbers(json);
  if (meta !== undefined) {
    checkAnnotations(json, meta.values);
    // Annotations superjson cannot apply (an unknown class, a custom type, a `__proto__` path) make it throw:
    // that is the caller's malformed input, not a fault of ours.
    try {
      superjson.deserialize(envelope as never);
    } catch (error) {
      throw refused(`tRPC input "meta" cannot be applied: ${(error as Error).message}`);
    }
  }
}

/**
 * Checks the inputs of a tRPC request, parsed exactly: one envelope, or for a batch an object whose keys are
 * call indexes below `calls`, each an envelope. Throws 400 validation_failed with a message naming the problem.
 */
export function checkTrpcInputs(inputs: unknown, batch: boolean, calls: number): void {
  if (inputs === undefined) return;
  if (!batch) {
    checkEnvelope(inputs);
    return;
  }
  if (!isRecord(inputs)) throw refused('a tRPC batch input must be an object keyed by call index');
  for (const key of Object.keys(inputs)) {
    const index = Number(key);
    if (!/^(0|[1-9][0-9]*)$/.test(key) || index >= calls) {
      throw refused(`a tRPC batch input has no call ${JSON.stringify(key)}`);
    }
    checkEnvelope(inputs[key]);
  }
}
