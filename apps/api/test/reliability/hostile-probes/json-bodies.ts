/**
 * What a JSON body may hold: valid UTF-8, no "__proto__" key, names up to 255 code points, no duplicate keys
 * (groups 6, 7, 10 and 11).
 */
import { created, invalid, malformed, ok, type ProbeKit, trpcNewPet } from './kit.js';

export function invalidUtf8Probes({ rest, trpcGet, trpcPost }: ProbeKit): void {
  // 6. Invalid UTF-8: refused (400 malformed_json on bodies and tRPC input), never replaced by U+FFFD.
  const invalidSequences: [string, Buffer][] = [
    ['ff fe', Buffer.from([0xff, 0xfe])],
    ['c3 28', Buffer.from([0xc3, 0x28])],
    ['overlong c0 af', Buffer.from([0xc0, 0xaf])],
    ['surrogate ed a0 80', Buffer.from([0xed, 0xa0, 0x80])],
    ['truncated e2 82', Buffer.from([0xe2, 0x82])],
    ['past U+10FFFF f4 90 80 80', Buffer.from([0xf4, 0x90, 0x80, 0x80])],
  ];
  const nameWithBytes = (prefix: string, sequence: Buffer, suffix: string) =>
    Buffer.concat([Buffer.from(prefix), sequence, Buffer.from(suffix)]);
  for (const [label, sequence] of invalidSequences) {
    rest(
      'invalid utf-8',
      `REST body bytes ${label}`,
      'POST',
      '/v1/pets',
      malformed,
      nameWithBytes('{"name":"a', sequence, '","categoryId":1}'),
    );
    trpcPost(
      'invalid utf-8',
      `tRPC POST body bytes ${label}`,
      'pets.create',
      nameWithBytes('{"json":{"name":"a', sequence, '","categoryId":1}}'),
      malformed,
    );
    const encoded = [...sequence]
      .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
      .join('');
    trpcGet('invalid utf-8', `tRPC GET input %-encoded ${label}`, 'pets.list', undefined, malformed, {
      encodedInput: `%7B%22json%22%3A%7B%22status%22%3A%22${encoded}%22%7D%7D`,
    });
  }
  trpcPost(
    'invalid utf-8',
    'tRPC batch POST, call 1 with byte ff',
    'pets.create,pets.create',
    nameWithBytes(
      `{"0":${trpcNewPet('ok')},"1":{"json":{"name":"a`,
      Buffer.from([0xff]),
      '","categoryId":1}}}',
    ),
    malformed,
    {
      batch: true,
    },
  );
  rest('invalid utf-8', 'REST ?status=%FF', 'GET', '/v1/pets?status=%FF', invalid);
  rest('invalid utf-8', 'REST /v1/pets/%FF', 'GET', '/v1/pets/%FF', invalid);
  rest(
    'invalid utf-8',
    'REST lone surrogate escape \\ud800 in name',
    'POST',
    '/v1/pets',
    invalid,
    '{"name":"a\\ud800","categoryId":1}',
  );
  trpcPost(
    'invalid utf-8',
    'tRPC lone surrogate escape \\ud800 in name',
    'pets.create',
    '{"json":{"name":"a\\ud800","categoryId":1}}',
    invalid,
  );
  // RFC 8259 section 8.1 lets a parser ignore a byte order mark; both transports do, alike.
  rest(
    'invalid utf-8',
    'REST byte order mark before the body (ignored)',
    'POST',
    '/v1/pets',
    created,
    '\ufeff{"name":"bom","categoryId":1}',
    {
      success: { kind: 'pet', name: 'bom' },
    },
  );
  trpcPost(
    'invalid utf-8',
    'tRPC byte order mark before the body (ignored)',
    'pets.create',
    `\ufeff${trpcNewPet('bom')}`,
    ok,
    {
      success: { kind: 'pet', name: 'bom' },
    },
  );
  rest(
    'invalid utf-8',
    'REST name U+FFFD itself (control)',
    'POST',
    '/v1/pets',
    created,
    '{"name":"a\ufffd","categoryId":1}',
    {
      success: { kind: 'pet', name: 'a\ufffd' },
    },
  );
  trpcPost('invalid utf-8', 'tRPC name U+FFFD itself (control)', 'pets.create', trpcNewPet('a\ufffd'), ok, {
    success: { kind: 'pet', name: 'a\ufffd' },
  });
}

export function protoKeyProbes({ rest, trpcGet, trpcPost }: ProbeKit): void {
  // 7. A "__proto__" key is refused on both transports, wherever it is (JSON.parse keeps it as an own key).
  rest(
    '__proto__ key',
    'REST body __proto__',
    'POST',
    '/v1/pets',
    invalid,
    '{"name":"p","categoryId":1,"__proto__":{"status":"sold"}}',
  );
  rest(
    '__proto__ key',
    'REST body \\u005f_proto__ (escaped)',
    'POST',
    '/v1/pets',
    invalid,
    '{"name":"p","categoryId":1,"\\u005f_proto__":{}}',
  );
  rest(
    '__proto__ key',
    'REST body prototype',
    'POST',
    '/v1/pets',
    invalid,
    '{"name":"p","categoryId":1,"prototype":{}}',
  );
  trpcPost(
    '__proto__ key',
    'tRPC body __proto__',
    'pets.create',
    '{"json":{"name":"p","categoryId":1,"__proto__":{"status":"sold"}}}',
    invalid,
  );
  trpcPost(
    '__proto__ key',
    'tRPC body \\u005f_proto__ (escaped)',
    'pets.create',
    '{"json":{"name":"p","categoryId":1,"\\u005f_proto__":{}}}',
    invalid,
  );
  trpcPost(
    '__proto__ key',
    'tRPC envelope-level __proto__',
    'pets.create',
    '{"json":{"name":"p","categoryId":1},"__proto__":{}}',
    invalid,
  );
  trpcPost(
    '__proto__ key',
    'tRPC meta-level __proto__',
    'pets.create',
    '{"json":{"name":"p","categoryId":1},"meta":{"__proto__":{}}}',
    invalid,
  );
  trpcGet(
    '__proto__ key',
    'tRPC GET input __proto__',
    'pets.list',
    '{"json":{"__proto__":{"limit":1}}}',
    invalid,
  );
  trpcGet(
    '__proto__ key',
    'tRPC GET nested __proto__',
    'pets.list',
    '{"json":{"status":{"__proto__":"sold"}}}',
    invalid,
  );
  trpcGet(
    '__proto__ key',
    'tRPC batch input key __proto__',
    'pets.list',
    '{"__proto__":{"json":{}}}',
    invalid,
    { batch: true },
  );
  trpcPost(
    '__proto__ key',
    'tRPC meta values path __proto__.x',
    'pets.create',
    '{"json":{"name":"p","categoryId":"1"},"meta":{"values":{"categoryId":["bigint"],"__proto__.x":["bigint"]}}}',
    invalid,
  );
  trpcPost(
    '__proto__ key',
    'tRPC referentialEqualities onto __proto__',
    'pets.create',
    '{"json":{"name":"p","categoryId":"1"},"meta":{"values":{"categoryId":["bigint"]},"referentialEqualities":{"name":["__proto__"]}}}',
    invalid,
  );
}

export function nameLengthProbes({ rest, trpcPost }: ProbeKit): void {
  // 10. Names: at most 255 Unicode code points, whatever their UTF-16 or UTF-8 length.
  const names: [string, string, boolean][] = [
    ['256 ASCII', 'x'.repeat(256), false],
    ['255 ASCII', 'x'.repeat(255), true],
    ['255 emoji', '🐾'.repeat(255), true],
    ['256 emoji', '🐾'.repeat(256), false],
    ['255 CJK', '猫'.repeat(255), true],
    ['256 CJK', '猫'.repeat(256), false],
    ['128 e + combining acute (256 code points)', 'e\u0301'.repeat(128), false],
    ['127 e + combining acute, 1 e (255 code points)', `${'e\u0301'.repeat(127)}e`, true],
    ['51 ZWJ families (255 code points)', '👨‍👩‍👧'.repeat(51), true],
    ['52 ZWJ families (260 code points)', '👨‍👩‍👧'.repeat(52), false],
    ['254 emoji and 1 ASCII', `${'🐾'.repeat(254)}x`, true],
  ];
  for (const [label, name, accepted] of names) {
    rest(
      'name length',
      `REST name ${label}`,
      'POST',
      '/v1/pets',
      accepted ? created : invalid,
      JSON.stringify({ name, categoryId: 1 }),
      {
        ...(accepted ? { success: { kind: 'pet', name } } : {}),
      },
    );
    trpcPost('name length', `tRPC name ${label}`, 'pets.create', trpcNewPet(name), accepted ? ok : invalid, {
      ...(accepted ? { success: { kind: 'pet', name } } : {}),
    });
  }
  trpcPost(
    'name length',
    'tRPC name 256 ASCII, \\u-escaped',
    'pets.create',
    `{"json":{"name":"${'\\u0078'.repeat(256)}","categoryId":1}}`,
    invalid,
  );
}

export function duplicateKeyProbes({ rest, trpcGet, trpcPost }: ProbeKit): void {
  // 11. Duplicate keys: JSON.parse keeps the last value, other parsers the first, so a body naming a key twice
  // could mean two different pets to two readers. Refused on both transports, at any depth, however escaped.
  rest(
    'duplicate keys',
    'REST name twice',
    'POST',
    '/v1/pets',
    malformed,
    '{"name":"a","categoryId":1,"name":"b"}',
  );
  rest(
    'duplicate keys',
    'REST categoryId twice, same value',
    'POST',
    '/v1/pets',
    malformed,
    '{"name":"a","categoryId":1,"categoryId":1}',
  );
  rest(
    'duplicate keys',
    'REST escaped twin \\u006e',
    'POST',
    '/v1/pets',
    malformed,
    '{"name":"a","\\u006eame":"b","categoryId":1}',
  );
  trpcPost(
    'duplicate keys',
    'tRPC name twice',
    'pets.create',
    '{"json":{"name":"a","categoryId":1,"name":"b"}}',
    malformed,
  );
  trpcPost(
    'duplicate keys',
    'tRPC envelope json twice',
    'pets.create',
    `{"json":{"name":"a","categoryId":1},"json":{"name":"b","categoryId":2}}`,
    malformed,
  );
  trpcGet(
    'duplicate keys',
    'tRPC GET input limit twice',
    'pets.list',
    '{"json":{"limit":1,"limit":100}}',
    malformed,
  );
  trpcPost(
    'duplicate keys',
    'tRPC batch, call key 0 twice',
    'pets.create,pets.create',
    `{"0":${trpcNewPet('dup-a')},"0":${trpcNewPet('dup-b')}}`,
    malformed,
    { batch: true },
  );
}
