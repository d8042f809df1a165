import { INT64_MAX, INT64_MIN, PET_NAME_MAX_LENGTH } from '@petstore/schema';
import {
  type Check,
  type CheckContext,
  type CheckSource,
  check,
  expectPet,
  expectRefused,
  expectSamePet,
  expectStatus,
  reference,
} from '../check.js';
import type { Exchange, RequestOptions } from '../http-client.js';

const JSON_TYPE = { 'content-type': 'application/json' };

const post = (ctx: CheckContext, body: string | Uint8Array, options: RequestOptions = {}) =>
  ctx.http.send('/pets', { method: 'POST', headers: JSON_TYPE, body, ...options });

/** The id of a Pet, read from the raw text so that no parsing can round it. */
function rawId(exchange: Exchange): string {
  const id = /"id"\s*:\s*(-?\d+)/.exec(exchange.text)?.[1];
  check(id !== undefined, 'no numeric "id" in the response', exchange);
  return id;
}

const SPEC_400 = 'Endpoints / POST /pets, Errors / Conditions: 400 with an Error body when {what}';
const spec400 = (what: string) => SPEC_400.replace('{what}', what);
const CODE_DECISION = (code: string) => `Decision: errors (code ${code})`;

/**
 * A 400 refusal of a body, for each body in turn. Under `reference` with `code`; under `interface` any code.
 * A check that enforces only a decision of ours (no `spec`) runs under `reference` only.
 */
function refusesBodies(
  source: CheckSource & { id: string; description: string },
  code: string,
  bodies: (ctx: CheckContext) => Array<string | Uint8Array>,
): Check {
  return {
    ...source,
    async run(ctx) {
      for (const body of bodies(ctx)) expectRefused(ctx, await post(ctx, body), 400, code);
    },
  };
}

const valid = (ctx: CheckContext) => ctx.fixtures.uniqueName('invalid');

export const createPetChecks: Check[] = [
  {
    id: 'createPet.created',
    interfaceDescription:
      'POST /pets is 201 with the Pet (new id, fields as sent), Content-Type application/json',
    description:
      'POST /pets is 201 with the Pet (new id, fields as sent), Content-Type application/json and Location /v1/pets/{id}',
    spec: 'Endpoints / POST /pets: 201 with the Pet, carrying the assigned id; Resources / Pet',
    decision: 'Decision: createPet answers Location: /v1/pets/{id}',
    async run(ctx) {
      const name = ctx.fixtures.uniqueName('created');
      const exchange = await post(ctx, JSON.stringify({ name, categoryId: 3, status: 'available' }));
      const pet = expectPet(ctx, exchange, 201);
      expectSamePet(ctx, pet, { name, categoryId: 3n, status: 'available' }, exchange);
      if (!reference(ctx)) return;
      const location = exchange.headers.get('location');
      check(location !== null, 'no Location header', exchange);
      const expected = new URL(`${ctx.http.baseUrl}/pets/${pet.id}`);
      const actual = new URL(location, ctx.http.baseUrl);
      check(
        actual.href === expected.href,
        `Location ${JSON.stringify(location)} does not name ${expected.pathname}`,
        exchange,
      );
    },
  },
  {
    id: 'createPet.status-omitted',
    interfaceDescription:
      'a pet created without status shows the same status (or none, never null) on create, getPet and listPets',
    description:
      'a pet created without status has none: the "status" key is absent (never null) on create, getPet and listPets',
    spec: 'Resources / Gaps: the status of a pet created without one is not shown (absent or a PetStatus, never null, the same on every read)',
    decision: 'Decision: absent status stays absent',
    async run(ctx) {
      ctx.fixtures.dependOnCreate();
      const name = ctx.fixtures.uniqueName('no status');
      const created = await post(ctx, JSON.stringify({ name, categoryId: 1 }));
      const pet = expectPet(ctx, created, 201);
      const read = await ctx.http.send(`/pets/${pet.id}`);
      const again = expectPet(ctx, read, 200);
      check(
        again.status === pet.status,
        `createPet answered status ${pet.status ?? 'absent'}, getPet ${again.status ?? 'absent'}`,
        read,
      );
      const listed = await ctx.http.send('/pets?limit=100');
      check(!/"status"\s*:\s*null/.test(listed.text), 'listPets returns "status": null', listed);
      if (!reference(ctx)) return;
      check(!/"status"/.test(created.text), `the created Pet carries a status: ${created.text}`, created);
      check(!/"status"/.test(read.text), `getPet returns a status: ${read.text}`, read);
    },
  },
  {
    id: 'createPet.statuses',
    description: 'each PetStatus (available, pending, sold) is accepted and returned as sent',
    spec: 'Resources / PetStatus, NewPet: status is one of available, pending, sold',
    async run(ctx) {
      ctx.fixtures.dependOnCreate();
      for (const status of ['available', 'pending', 'sold'] as const) {
        const name = ctx.fixtures.uniqueName(status);
        const exchange = await post(ctx, JSON.stringify({ name, categoryId: 5, status }));
        expectSamePet(ctx, expectPet(ctx, exchange, 201), { name, categoryId: 5n, status }, exchange);
      }
    },
  },
  {
    id: 'createPet.int64.exact',
    description:
      'categoryId is exact over int64: 2^53+1, 2^63-1 and -2^63 come back digit for digit from createPet and getPet',
    spec: 'Resources / NewPet, Pet: categoryId (and id) are integers of format int64',
    async run(ctx) {
      ctx.fixtures.dependOnCreate();
      for (const categoryId of ['9007199254740993', String(INT64_MAX), String(INT64_MIN), '0']) {
        const name = ctx.fixtures.uniqueName('int64');
        const created = await post(ctx, `{"name":${JSON.stringify(name)},"categoryId":${categoryId}}`);
        expectStatus(created, 201);
        const exact = new RegExp(`"categoryId"\\s*:\\s*${categoryId}[,}\\s]`);
        check(
          exact.test(created.text),
          `categoryId ${categoryId} not returned exactly: ${created.text}`,
          created,
        );
        const read = await ctx.http.send(`/pets/${rawId(created)}`);
        expectStatus(read, 200);
        check(
          exact.test(read.text),
          `getPet: categoryId ${categoryId} not returned exactly: ${read.text}`,
          read,
        );
      }
    },
  },
  refusesBodies(
    {
      id: 'createPet.int64.out-of-range',
      interfaceDescription:
        'categoryId outside int64 (2^63, -2^63-1, 1e30) is 400 with an Error body, never wrapped or rounded',
      description:
        'categoryId outside int64 (2^63, -2^63-1, 1e30) is 400 validation_failed, never wrapped or rounded',
      spec: spec400('categoryId is not an int64 (an invalid value)'),
      decision: CODE_DECISION('validation_failed'),
    },
    'validation_failed',
    (ctx) =>
      ['9223372036854775808', '-9223372036854775809', '1e30', '18446744073709551616'].map(
        (number) => `{"name":${JSON.stringify(valid(ctx))},"categoryId":${number}}`,
      ),
  ),
  refusesBodies(
    {
      id: 'createPet.required.name',
      interfaceDescription: 'a NewPet without name is 400 with an Error body',
      description: 'a NewPet without name is 400 validation_failed',
      spec: spec400('name, a required field, is missing'),
      decision: CODE_DECISION('validation_failed'),
    },
    'validation_failed',
    () => ['{"categoryId":1}', '{"categoryId":1,"status":"sold"}'],
  ),
  refusesBodies(
    {
      id: 'createPet.required.categoryId',
      interfaceDescription: 'a NewPet without categoryId is 400 with an Error body',
      description: 'a NewPet without categoryId is 400 validation_failed',
      spec: spec400('categoryId, a required field, is missing'),
      decision: CODE_DECISION('validation_failed'),
    },
    'validation_failed',
    (ctx) => [JSON.stringify({ name: valid(ctx) }), '{}'],
  ),
  refusesBodies(
    {
      id: 'createPet.name.invalid',
      description:
        'name empty, only whitespace, 256 characters, with NUL or a lone surrogate is 400 validation_failed',
      decision: 'Decision: name is 1-255 code points, not only whitespace, valid Unicode without NUL',
    },
    'validation_failed',
    () => [
      '{"name":"","categoryId":1}',
      '{"name":" \\t\\n ","categoryId":1}',
      JSON.stringify({ name: 'a'.repeat(PET_NAME_MAX_LENGTH + 1), categoryId: 1 }),
      '{"name":"bad\\u0000name","categoryId":1}',
      '{"name":"lone \\ud800 surrogate","categoryId":1}',
    ],
  ),
  {
    id: 'createPet.name.kept-exactly',
    interfaceDescription:
      'a name (255 characters, outer spaces, emoji, combining marks, RTL, a leading U+FEFF) is stored and returned exactly as sent, or refused with 400 and an Error body',
    description:
      'name is stored and returned exactly as sent: 255 characters, outer spaces, emoji, combining marks, RTL, a leading U+FEFF',
    spec: 'Resources / Pet: a Pet has every field of NewPet; name constraints are not shown (a name is stored exactly, or refused with a 400 Error, never changed)',
    decision: 'Decision: name is stored and returned exactly as sent (all of these are accepted)',
    async run(ctx) {
      ctx.fixtures.dependOnCreate();
      const tag = ctx.fixtures.uniqueName('exact');
      const names = [
        `${tag} ${'x'.repeat(PET_NAME_MAX_LENGTH - tag.length - 1)}`,
        `  ${tag}  `,
        `${tag} 🐶‍🦺 Müsli`,
        `${tag} e\u0301 \u00e9`,
        `${tag} שלום 名前`,
        // U+FEFF is a character in a name, not a byte order mark: decoders that strip it lose data.
        `\ufeff${tag}`,
      ];
      for (const name of names) {
        const created = await post(ctx, JSON.stringify({ name, categoryId: 2 }));
        // Under `interface` a name the deployment does not take (too long for its own limit, say) may be
        // refused; what no reading allows is a stored name that differs from the one sent.
        if (!reference(ctx) && created.status === 400) {
          expectRefused(ctx, created, 400);
          continue;
        }
        const pet = expectPet(ctx, created, 201);
        expectSamePet(ctx, pet, { name, categoryId: 2n }, created);
        const read = await ctx.http.send(`/pets/${pet.id}`);
        expectSamePet(ctx, expectPet(ctx, read, 200), { id: pet.id, name, categoryId: 2n }, read);
      }
    },
  },
  {
    id: 'createPet.status.invalid',
    interfaceDescription: 'status unknown or in another case is 400 with an Error body',
    description: 'status null, unknown or in another case is 400 validation_failed (null is not a PetStatus)',
    spec: spec400('status is not a PetStatus (an invalid value)'),
    decision: 'Decision: "status": null is refused (null is not a PetStatus)',
    async run(ctx) {
      // null is "no status" to some readings of an optional field: refused under `reference` only.
      const statuses = reference(ctx) ? [null, 'lost', 'Available', '', 1] : ['lost', 'Available', '', 1];
      for (const status of statuses) {
        const body = JSON.stringify({ name: valid(ctx), categoryId: 1, status });
        expectRefused(ctx, await post(ctx, body), 400, 'validation_failed');
      }
    },
  },
  refusesBodies(
    {
      id: 'createPet.unknown-field',
      description:
        'unknown fields are refused with 400, a misspelt "stauts" and a client-chosen "id" included',
      decision: 'Decision: unknown fields in NewPet are refused with 400',
    },
    'validation_failed',
    (ctx) => [
      JSON.stringify({ name: valid(ctx), categoryId: 1, stauts: 'sold' }),
      JSON.stringify({ id: 12345, name: valid(ctx), categoryId: 1 }),
    ],
  ),
  refusesBodies(
    {
      id: 'createPet.wrong-types',
      interfaceDescription:
        'wrong JSON types (name a number, categoryId a string, a fraction, a boolean or null) are 400 with an Error body',
      description:
        'wrong JSON types (name a number, categoryId a string, a fraction, a boolean or null) are 400 validation_failed',
      spec: spec400('a field has the wrong type (an invalid value)'),
      decision: CODE_DECISION('validation_failed'),
    },
    'validation_failed',
    (ctx) => [
      '{"name":42,"categoryId":1}',
      '{"name":["Rex"],"categoryId":1}',
      JSON.stringify({ name: valid(ctx), categoryId: '1' }),
      JSON.stringify({ name: valid(ctx), categoryId: 1.5 }),
      JSON.stringify({ name: valid(ctx), categoryId: true }),
      JSON.stringify({ name: valid(ctx), categoryId: null }),
      JSON.stringify({ name: valid(ctx), categoryId: { value: 1 } }),
    ],
  ),
  refusesBodies(
    {
      id: 'createPet.body.not-object',
      interfaceDescription:
        'a JSON body that is not an object ([], "Rex", 42, null, true) is 400 with an Error body',
      description: 'a JSON body that is not an object ([], "Rex", 42, null, true) is 400 validation_failed',
      spec: spec400('the body is not a NewPet object'),
      decision: CODE_DECISION('validation_failed'),
    },
    'validation_failed',
    () => ['[]', '"Rex"', '42', 'null', 'true', '[{"name":"Rex","categoryId":1}]'],
  ),
  {
    id: 'createPet.body.missing',
    interfaceDescription: 'createPet with no body, or an empty one, is 400 with an Error body',
    description: 'createPet with no body, or an empty one, is 400 validation_failed',
    spec: spec400('the body is missing'),
    decision: CODE_DECISION('validation_failed'),
    async run(ctx) {
      expectRefused(ctx, await ctx.http.send('/pets', { method: 'POST' }), 400, 'validation_failed');
      expectRefused(ctx, await post(ctx, ''), 400, 'validation_failed');
    },
  },
  refusesBodies(
    {
      id: 'createPet.body.malformed-json',
      interfaceDescription:
        'a body that is not JSON (truncated, single quotes, trailing comma, NaN, comments) is 400 with an Error body',
      description:
        'a body that is not JSON (truncated, single quotes, trailing comma, NaN, comments) is 400 malformed_json',
      spec: spec400('the body is not JSON (bodies are application/json)'),
      decision: CODE_DECISION('malformed_json'),
    },
    'malformed_json',
    () => [
      '{"name":',
      '{not json',
      "{'name':'Rex','categoryId':1}",
      '{"name":"Rex","categoryId":1,}',
      '{"name":"Rex","categoryId":NaN}',
      '{"name":"Rex" /* c */,"categoryId":1}',
      '{"name":"Rex","categoryId":1}}',
    ],
  ),
  refusesBodies(
    {
      id: 'createPet.body.not-utf8',
      description: 'a body that is not UTF-8 is 400 malformed_json',
      decision: 'Decision: request bodies (non-UTF-8 text is 400 malformed_json)',
    },
    'malformed_json',
    () => [Uint8Array.from([...Buffer.from('{"name":"'), 0xff, 0xfe, ...Buffer.from('","categoryId":1}')])],
  ),
  {
    id: 'createPet.too-large',
    description: 'a body over 64 KiB is 413 payload_too_large',
    decision: 'Decision: request bodies (over 64 KiB is 413)',
    async run(ctx) {
      const body = JSON.stringify({ name: 'x'.repeat(70 * 1024), categoryId: 1 });
      expectRefused(ctx, await post(ctx, body), 413, 'payload_too_large');
    },
  },
  {
    id: 'createPet.content-type.unsupported',
    description:
      'a body sent as text/plain, form data, without Content-Type or with a non-UTF-8 charset is 415 unsupported_media_type',
    decision: 'Decision: request bodies (another Content-Type or charset is 415)',
    async run(ctx) {
      const body = JSON.stringify({ name: ctx.fixtures.uniqueName('415'), categoryId: 1 });
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/json; charset=latin1',
      ]) {
        expectRefused(
          ctx,
          await post(ctx, body, { headers: { 'content-type': type } }),
          415,
          'unsupported_media_type',
        );
      }
      // fetch would add `text/plain` to a string body without Content-Type, so this one goes through node:http.
      expectRefused(ctx, await post(ctx, body, { headers: {}, raw: true }), 415, 'unsupported_media_type');
    },
  },
  {
    id: 'createPet.content-type.json',
    interfaceDescription: 'application/json with charset=utf-8, and in upper case, is accepted (201)',
    description: 'application/json with charset=utf-8, and application/*+json, are accepted (201)',
    spec: 'Endpoints: bodies are application/json (media types are case-insensitive, a charset parameter allowed: RFC 9110 8.3)',
    decision: 'Decision: request bodies (application/*+json is accepted)',
    async run(ctx) {
      ctx.fixtures.dependOnCreate();
      const types = ['application/json; charset=utf-8', 'APPLICATION/JSON'];
      if (reference(ctx)) types.push('application/vnd.petstore+json');
      for (const type of types) {
        const name = ctx.fixtures.uniqueName('json type');
        const exchange = await post(ctx, JSON.stringify({ name, categoryId: 1 }), {
          headers: { 'content-type': type },
        });
        expectSamePet(ctx, expectPet(ctx, exchange, 201), { name, categoryId: 1n }, exchange);
      }
    },
  },
  {
    id: 'createPet.not-deprecated',
    description: 'createPet carries no Deprecation header',
    spec: 'Versioning 3: only getPet is deprecated',
    async run(ctx) {
      const { exchange } = await ctx.fixtures.createPet({
        name: ctx.fixtures.uniqueName('not deprecated'),
        categoryId: 1,
      });
      check(exchange.headers.get('deprecation') === null, 'createPet carries a Deprecation header', exchange);
    },
  },
];
