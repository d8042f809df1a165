// Generators of logical inputs for the differential fuzzers, and their encodings on each transport.
import fc from 'fast-check';
import superjson from 'superjson';
import { encodePetCursor } from '../../src/pets/pet-cursor.js';

const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

/** Integers where the edges are: 0, ±1, around 2^53 (float-exact) and 2^63 (int64), and anywhere. */
export const edgeInteger: fc.Arbitrary<bigint> = fc.oneof(
  fc.constantFrom(
    0n,
    1n,
    -1n,
    2n ** 53n - 1n,
    2n ** 53n,
    2n ** 53n + 1n,
    2n ** 63n - 1n,
    2n ** 63n,
    -(2n ** 63n),
    -(2n ** 63n) - 1n,
    100n,
    101n,
    // Past 40 digits, where the integer rule stops doing exact arithmetic (@petstore/schema's integerOfText).
    10n ** 39n,
    10n ** 40n,
    -(10n ** 40n),
  ),
  fc.bigInt({ min: -5n, max: 120n }),
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }),
  fc.bigInt({ min: -(10n ** 60n), max: 10n ** 60n }),
);

/** Strings with Unicode's edges: lone surrogates, NUL, combining marks, astral, whitespace only, 255+ long. */
export const edgeString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom(
    '',
    ' ',
    '\t\n',
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfff',
    '\ud83d\ude00',
    'e\u0301',
    '\u0301',
    '\ufeff',
    'Rex',
    'available',
    'sold',
    '9007199254740993',
    'x'.repeat(255),
    'x'.repeat(256),
    '\ud83d\ude00'.repeat(255),
    '\ud83d\ude00'.repeat(256),
  ),
);

export const edgeStatus: fc.Arbitrary<string> = fc.constantFrom(
  'available',
  'pending',
  'sold',
  'Available',
  'lost',
  '',
);

/** A cursor of ours (any position, with or without a status) or something that looks like one. */
export const edgeCursor: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(fc.bigInt({ min: -2n, max: 2n ** 63n }), fc.option(edgeStatus, { nil: undefined }))
    .map(([after, status]) => encodePetCursor({ after, status } as never)),
  fc.constantFrom('', 'not.ours', 'eyJ2IjoxLCJhZnRlciI6IjEifQ.AAAA'),
  fc.string({ maxLength: 12 }),
);

/** One field's value: mostly of the right kind, sometimes not. */
const anyValue = fc.oneof(
  edgeInteger,
  edgeString,
  fc.constant(null),
  fc.boolean(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** A logical input: fields of any operation, each present or not, right kind or not, plus unknown ones. */
export const logicalInput: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    name: fc.oneof(edgeString, anyValue),
    categoryId: fc.oneof(edgeInteger, anyValue),
    status: fc.oneof(edgeStatus, anyValue),
    limit: fc.oneof(edgeInteger, anyValue),
    petId: fc.oneof(edgeInteger, anyValue),
    cursor: fc.oneof(edgeCursor, anyValue),
    extra: anyValue,
  },
  { requiredKeys: [] },
);

/** JSON text with bigints as plain JSON numbers (exact digits), as a REST client writes int64. */
export const plainJson = (value: unknown): string =>
  JSON.stringify(value, (_key, item) => (typeof item === 'bigint' ? rawJSON(item.toString()) : item));

/** A tRPC envelope as @trpc/client with superjson writes it (bigints annotated). */
export const superjsonEnvelope = (value: unknown): string => JSON.stringify(superjson.serialize(value));

/** The same envelope with bigints as plain JSON numbers (what a hand-written client may send). */
export const plainEnvelope = (value: unknown): string =>
  value === undefined ? '{}' : `{"json":${plainJson(value)}}`;

/**
 * An MCP `tools/call` (JSON-RPC) whose `arguments` are the JSON text given, byte for byte: int64 edges travel as
 * the exact JSON numbers (or digit strings) the text spells, as any HTTP client may send them.
 */
export const mcpToolCall = (tool: string, argumentsText: string): string =>
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(tool)},"arguments":${argumentsText}}}`;

/** The headers of a stateless MCP POST any HTTP client can send (the 2025 form: no session, no handshake first). */
export const MCP_POST_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};
