/** Numbers on both transports and bigint texts in superjson meta (groups 4 and 5). */
import { created, invalid, ok, type ProbeKit } from './kit.js';

export function numberProbes({ rest, trpcGet, trpcPost }: ProbeKit): void {
  // 4. Numbers: exact integers in any notation are that integer; anything JSON.parse would change is refused.
  const categoryIdBody = (text: string) => `{"name":"number probe","categoryId":${text}}`;
  for (const text of [
    '4.0000000000000000001',
    '1e-400',
    '-1e-400',
    '4.5',
    '1e-7',
    '5e-324',
    '9007199254740993.5',
    '9223372036854775808',
    '-9223372036854775809',
    '1e19',
    '1e400',
  ]) {
    rest('inexact numbers', `REST categoryId ${text}`, 'POST', '/v1/pets', invalid, categoryIdBody(text));
  }
  for (const [text, value] of [
    ['1.0', 1n],
    ['1e3', 1000n],
    ['1E3', 1000n],
    ['7000e-3', 7n],
    ['4.00000000000000000000', 4n],
    ['0.0000000000000000000001e22', 1n],
    ['-0', 0n],
    ['9007199254740993', 9007199254740993n],
    ['9.223372036854775807e18', 9223372036854775807n],
    ['-9223372036854775808.000', -9223372036854775808n],
  ] as const) {
    rest(
      'inexact numbers',
      `REST categoryId ${text} = ${value}`,
      'POST',
      '/v1/pets',
      created,
      categoryIdBody(text),
      {
        success: { kind: 'pet', categoryId: value },
      },
    );
  }
  const trpcNumberBody = (text: string) => `{"json":{"name":"number probe","categoryId":${text}}}`;
  for (const text of ['4.0000000000000000001', '1e-400', '4.5', '9223372036854775808', '1e400']) {
    trpcPost('inexact numbers', `tRPC categoryId ${text}`, 'pets.create', trpcNumberBody(text), invalid);
  }
  for (const [text, value] of [
    ['1.0', 1n],
    ['1e3', 1000n],
    ['7000e-3', 7n],
    ['9007199254740991', 9007199254740991n],
    // Past 2^53 too, exactly, as on REST (docs/interface-decisions.md "REST and tRPC inputs").
    ['9007199254740993', 9007199254740993n],
    ['9.223372036854775807e18', 9223372036854775807n],
  ] as const) {
    trpcPost(
      'inexact numbers',
      `tRPC categoryId ${text} = ${value}`,
      'pets.create',
      trpcNumberBody(text),
      ok,
      {
        success: { kind: 'pet', categoryId: value },
      },
    );
  }
  trpcGet(
    'inexact numbers',
    'tRPC pets.list limit 5.0000000000000000001',
    'pets.list',
    '{"json":{"limit":5.0000000000000000001}}',
    invalid,
  );
  trpcGet('inexact numbers', 'tRPC pets.list limit 5.0', 'pets.list', '{"json":{"limit":5.0}}', ok, {
    success: { kind: 'pets' },
  });
  // One rule for an integer's spelling (integerOfText): 5.0 is 5 in a URL as in JSON.
  rest('inexact numbers', 'REST ?limit=5.0', 'GET', '/v1/pets?limit=5.0', ok);
  rest('inexact numbers', 'REST ?limit=5.5', 'GET', '/v1/pets?limit=5.5', invalid);
}

export function bigintTextProbes({ rest, trpcGet, trpcPost }: ProbeKit): void {
  // 5. bigint texts in superjson meta: only decimal digits; BigInt() would read hex, binary, octal, blanks, "".
  const bigintBody = (text: string) =>
    `{"json":{"name":"bigint probe","categoryId":${JSON.stringify(text)}},"meta":{"values":{"categoryId":["bigint"]}}}`;
  for (const text of [
    '0x10',
    '0b11',
    '',
    ' 12 ',
    '0o17',
    '0X10',
    '\t12',
    '12\n',
    '+12',
    '1e3',
    '12n',
    '1_000',
    '12.0',
    '١٢',
    '-0x1',
    // A leading zero is not how a JSON integer is written (integerOfText's rule, for every integer text).
    '007',
    '00',
  ]) {
    trpcPost('bigint text', `tRPC bigint ${JSON.stringify(text)}`, 'pets.create', bigintBody(text), invalid);
  }
  trpcPost(
    'bigint text',
    'tRPC bigint "9223372036854775808" (past int64)',
    'pets.create',
    bigintBody('9223372036854775808'),
    invalid,
  );
  for (const [text, value] of [
    ['12', 12n],
    ['-9223372036854775808', -9223372036854775808n],
    ['0', 0n],
  ] as const) {
    trpcPost('bigint text', `tRPC bigint "${text}" = ${value}`, 'pets.create', bigintBody(text), ok, {
      success: { kind: 'pet', categoryId: value },
    });
  }
  trpcGet(
    'bigint text',
    'tRPC pets.get petId "0x1"',
    'pets.get',
    '{"json":{"petId":"0x1"},"meta":{"values":{"petId":["bigint"]}}}',
    invalid,
  );
  trpcGet(
    'bigint text',
    'tRPC batch: call 1 has petId " 1"',
    'pets.get,pets.get',
    '{"0":{"json":{"petId":"1"},"meta":{"values":{"petId":["bigint"]}}},"1":{"json":{"petId":" 1"},"meta":{"values":{"petId":["bigint"]}}}}',
    invalid,
    { batch: true },
  );
  trpcPost(
    'bigint text',
    'tRPC bigint annotation on a missing field',
    'pets.create',
    '{"json":{"name":"b","categoryId":"1"},"meta":{"values":{"categoryId":["bigint"],"nope":["bigint"]}}}',
    invalid,
  );
  // superjson's "number" annotation reads its text with Number(): "0x10" is 16, " 12 " is 12, "" is 0. Its own
  // serializer writes only "NaN", "Infinity", "-Infinity" and "-0" that way; -0 is the integer 0, as on REST.
  const numberAnnotated = (text: string) =>
    `{"json":{"name":"number-annotated","categoryId":${JSON.stringify(text)}},"meta":{"values":{"categoryId":["number"]}}}`;
  trpcPost('bigint text', 'tRPC "number" annotation "-0" = 0', 'pets.create', numberAnnotated('-0'), ok, {
    success: { kind: 'pet', categoryId: 0n },
  });
  trpcPost('bigint text', 'tRPC "number" annotation "NaN"', 'pets.create', numberAnnotated('NaN'), invalid);
  // superjson's "undefined" annotation: how @trpc/client sends a field set to undefined; the same as leaving it out.
  trpcPost(
    'bigint text',
    'tRPC "undefined" annotation on status (as absent)',
    'pets.create',
    '{"json":{"name":"u","categoryId":"1","status":null},"meta":{"values":{"categoryId":["bigint"],"status":["undefined"]}}}',
    ok,
    { success: { kind: 'pet', name: 'u' } },
  );
  for (const text of ['0x10', ' 12 ', '', '1e3']) {
    trpcPost(
      'bigint text',
      `tRPC "number" annotation ${JSON.stringify(text)}`,
      'pets.create',
      numberAnnotated(text),
      invalid,
    );
  }
  trpcGet(
    'bigint text',
    'tRPC pets.list limit "0x10" as "number"',
    'pets.list',
    '{"json":{"limit":"0x10"},"meta":{"values":{"limit":["number"]}}}',
    invalid,
  );
  rest('bigint text', 'REST /v1/pets/0x10', 'GET', '/v1/pets/0x10', invalid);
  rest('bigint text', 'REST /v1/pets/%2012%20', 'GET', '/v1/pets/%2012%20', invalid);
  rest('bigint text', 'REST ?limit=0x10', 'GET', '/v1/pets?limit=0x10', invalid);
}
