// JSON text <-> values without losing int64 precision.
// `JSON.parse` turns 9007199254740993 into 9007199254740992 before any validation can notice; Node >= 21 and
// current browsers give a reviver the source text of each number (`context.source`) and let `JSON.stringify`
// emit a number verbatim through `JSON.rawJSON`, which is all that is needed to round-trip int64 exactly.

import { requireExactJson } from './runtime.js';

type ReviverContext = { source?: string };
type JsonWithRaw = typeof JSON & { rawJSON(text: string): unknown };

// JSON's number grammar (RFC 8259 section 6): no leading zeros (`05`), no `+`, digits on both sides of a point.
const NUMBER_TEXT = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
// Past this many digits the value is far outside int64 anyway; leave it a (rejected) number, do no big math.
const MAX_EXACT_DIGITS = 40;

/** The exact integer a JSON number's text denotes (`9007199254740993`, `9.2e18`), or undefined if it is not one. */
function exactInteger(source: string): bigint | undefined {
  const match = NUMBER_TEXT.exec(source);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
  // Zero, however spelled (`0.0`, `-0e5`, `0e400`).
  const significant = (whole + fraction).replace(/^0+/, '');
  if (significant === '') return 0n;
  // The value is digits x 10^exponent, with no zero at either end of the digits.
  const digits = significant.replace(/0+$/, '');
  const exponent = Number(exponentText) - fraction.length + (significant.length - digits.length);
  if (exponent < 0 || digits.length + exponent > MAX_EXACT_DIGITS) return undefined;
  return BigInt(sign + digits) * 10n ** BigInt(exponent);
}

const PLAIN_INTEGER = /^-?(?:0|[1-9]\d*)$/;

/**
 * The one rule for how an integer may be spelled, wherever it arrives (a JSON number in a REST body or a tRPC
 * input, a URL's query or path text): any JSON number literal that denotes an integer exactly (`7`, `7.0`, `7e0`,
 * `7000e-3`, JSON Schema's `integer`), as a safe-integer `number` or, past 2^53, an exact `bigint`. Anything else
 * (`1.5`, `1e-400`, `4.0000000000000000001`, `0x10`, `+7`, ` 7`, `Infinity`, empty, and `07`, which JSON's
 * grammar does not allow either) is undefined, for the field's schema to refuse: never rounded, never guessed.
 */
export function integerOfText(text: string): number | bigint | undefined {
  if (PLAIN_INTEGER.test(text) && text.length < 16) return Number(text) || 0; // `-0` is 0
  const exact = exactInteger(text);
  if (exact === undefined) return undefined;
  const value = Number(exact);
  return Number.isSafeInteger(value) ? value : exact;
}

/** A text as the integer it spells by {@link integerOfText}, or the text itself, for the field's schema to refuse. */
export const integerFromText = (text: string): unknown => integerOfText(text) ?? text;

/**
 * The JSON text `text` carries, by the one rule for a byte order mark wherever a JSON text is read (a body on
 * every transport, a tRPC `?input=`, a reply): one U+FEFF at its start is no part of it (RFC 8259 section 8.1 lets
 * a reader ignore it); any other outside a string (a second one, one between tokens) stays, and is malformed JSON.
 */
export function jsonTextOf(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * `JSON.parse` of {@link jsonTextOf}'s text, with every integer exact and every object key given once:
 * - an integer too large for a double (beyond ±2^53) becomes an exact `bigint` instead of a rounded `number`;
 * - a number whose text is not exactly the integer its double holds (`4.0000000000000000001` and `1e-400`, which
 *   `JSON.parse` turns into 4 and 0) becomes `NaN`, which no integer schema accepts: exact or refused, never
 *   silently changed. Text that denotes an integer exactly in another form (`7.0`, `7e0`, `7000e-3`) is that
 *   integer. Non-integers (`1.5`) are left as `JSON.parse` reads them;
 * - an object that names a key twice (`{"name":"a","name":"b"}`) is refused: `JSON.parse` keeps the last value,
 *   other parsers keep the first, so one body could mean two pets (I-JSON, RFC 7493, forbids it).
 * Its errors are `SyntaxError`s. On a runtime without the reviver's source text (Node < 22) it throws the
 * {@link assertExactJsonSupport} error rather than round silently.
 */
export function parseJson(sent: string): unknown {
  requireExactJson();
  const text = jsonTextOf(sent);
  const value = JSON.parse(text, revive as (this: unknown, key: string, value: unknown) => unknown);
  if (typeof value === 'object' && value !== null) {
    const duplicate = findDuplicateKey(text);
    if (duplicate !== undefined)
      throw new SyntaxError(`key ${JSON.stringify(duplicate)} appears twice in one object`);
  }
  return value;
}

function revive(this: unknown, _key: string, value: unknown, context?: ReviverContext): unknown {
  if (typeof value !== 'number' || !Number.isInteger(value) || context?.source === undefined) return value;
  // A number JSON.parse made an integer of is read again from its text by the one rule (integerOfText): exact,
  // or NaN, which no integer schema accepts.
  return integerOfText(context.source) ?? Number.NaN;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/**
 * The first key named twice in one object of `text`, which must be valid JSON (so the scan only tells keys
 * from values and strings from the rest). Keys are compared decoded: `"name"` and `"na\u006de"` are one key.
 */
function findDuplicateKey(text: string): string | undefined {
  // One entry per open container: the keys seen so far in an object, null for an array.
  const open: (Set<string> | null)[] = [];
  let keyNext = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === QUOTE) {
      let end = i + 1;
      let escaped = false;
      for (; text.charCodeAt(end) !== QUOTE; end++) {
        if (text.charCodeAt(end) === BACKSLASH) {
          escaped = true;
          end++;
        }
      }
      const keys = open[open.length - 1];
      if (keyNext && keys) {
        const key = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : text.slice(i + 1, end);
        if (keys.has(key)) return key;
        keys.add(key);
        keyNext = false;
      }
      i = end;
    } else if (char === OPEN_OBJECT) {
      open.push(new Set());
      keyNext = true;
    } else if (char === OPEN_ARRAY) {
      open.push(null);
    } else if (char === CLOSE_OBJECT || char === CLOSE_ARRAY) {
      open.pop();
    } else if (char === COMMA) {
      keyNext = open[open.length - 1] != null;
    }
  }
  return undefined;
}

/** `JSON.stringify`, except that a `bigint` is written as a plain JSON number with every digit. */
export function stringifyJson(value: unknown): string {
  requireExactJson();
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'bigint' ? (JSON as JsonWithRaw).rawJSON(item.toString()) : item,
  );
}
