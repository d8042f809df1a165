import type * as z from 'zod/mini';

/** Unknown keys named in a message; the rest are counted. */
const MAX_NAMED_KEYS = 5;

/** What a value of a JSON type zod expected is called in a message. */
const EXPECTED: Readonly<Record<string, string>> = {
  object: 'a JSON object',
  array: 'a JSON array',
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  bigint: 'an integer',
  boolean: 'true or false',
};

/** The value at an issue's path in `input`. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * The issue's message, in this API's words where the schema left zod's default ("Invalid input", or with zod's
 * English messages loaded "Invalid input: expected object, received null"): every field's type error reads alike
 * (`must be a JSON object`, `is required`), whichever schema and transport met it. A missing value is told from a
 * wrong one by `input` when given, else by zod's English message.
 */
function ownMessage(issue: z.core.$ZodIssue, input: unknown, hasInput: boolean): string {
  if (issue.code !== 'invalid_type') return issue.message;
  const value = hasInput ? valueAt(input, issue.path) : undefined;
  // A number field (`limit`) given a bigint a double holds exactly: only a superjson "bigint" annotation makes one
  // (JSON's and a URL's integers are read as numbers up to 2^53), whatever message the field's schema has (its
  // range's, which 10 is in). A bigint past 2^53 is out of every such range, and its message says so.
  if (issue.expected === 'number' && typeof value === 'bigint' && Number.isSafeInteger(Number(value))) {
    return 'must be a JSON number, not a bigint (drop its superjson "bigint" annotation)';
  }
  if (!issue.message.startsWith('Invalid input')) return issue.message;
  const missing = hasInput ? value === undefined : issue.message.endsWith('received undefined');
  return missing ? 'is required' : `must be ${EXPECTED[issue.expected] ?? issue.expected}`;
}

/**
 * The one wording for keys nothing reads (`unknown query parameter "a"`, `unknown fields "a", "b" and 3 more`), on
 * every transport and for every part: a few by name, since a body of 6,000 unknown keys must not get an answer
 * twice its size.
 */
export function unknownKeysMessage(keys: readonly string[], subject: string): string {
  const named = keys.slice(0, MAX_NAMED_KEYS).map((key) => JSON.stringify(key.slice(0, 100)));
  const more = keys.length - named.length;
  return `unknown ${subject}${keys.length > 1 ? 's' : ''} ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/**
 * One line a person can act on, from a zod error: `categoryId: must be an integer (int64); name: is required`.
 * `subject` names what was validated ("field" for a body, "query parameter" for a query string) and is used for
 * unknown keys: `unknown field "id"`. `input`, the value validated, tells a missing field from a mistyped one.
 */
export function describeIssues(error: z.core.$ZodError, subject: string, ...input: [unknown?]): string {
  const lines = error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') return unknownKeysMessage(issue.keys, subject);
    const path = issue.path.map(String).join('.');
    const message = ownMessage(issue, input[0], input.length > 0);
    return path ? `${path}: ${message}` : message;
  });
  // One rule can fail two ways with the same message (1e21 is neither a safe integer nor <= 100): say it once.
  return [...new Set(lines)].join('; ');
}
