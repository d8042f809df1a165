// One table of replies, malformed and well-formed, and what the REST client must make of each. It is run against
// every form a consumer gets the client in: the TypeScript source (src/response-table.test.ts), the packed package
// from ES modules and from CommonJS, and the browser bundle in Chromium (scripts/pack-test.mjs). Only erasable
// TypeScript, so Node runs this file as it is and esbuild bundles it into a page.
import type { createRestClient as CreateRestClient, PetStoreApiError } from '../src/index.js';

type Operation = 'listPets' | 'createPet' | 'getPet';

export interface ResponseCase {
  name: string;
  operation: Operation;
  status: number;
  body: string;
  /** `ok`: the call returns; otherwise the `kind` of the PetStoreApiError it must throw. */
  expect: 'ok' | 'invalid_body' | 'non_json' | 'api';
  /** For `ok`: the result, bigints written `123n`. Otherwise: text the error message must contain. */
  detail: string;
}

const pet = (fields: string) => `{${fields}}`;
const GOOD = '"id":1,"name":"Rex","categoryId":7';
const INT64_MAX = '9223372036854775807';
const INT64_MIN = '-9223372036854775808';

export const RESPONSE_CASES: ResponseCase[] = [
  // Well-formed replies are returned, int64 values exact.
  {
    name: 'a list at the int64 bounds',
    operation: 'listPets',
    status: 200,
    body: `[{"id":${INT64_MAX},"name":"Rex","categoryId":${INT64_MIN},"status":"sold"}]`,
    expect: 'ok',
    detail: `[{"id":"${INT64_MAX}n","name":"Rex","categoryId":"${INT64_MIN}n","status":"sold"}]`,
  },
  {
    name: 'a pet without status',
    operation: 'getPet',
    status: 200,
    body: pet(GOOD),
    expect: 'ok',
    detail: '{"id":"1n","name":"Rex","categoryId":"7n"}',
  },
  {
    name: 'an Error body',
    operation: 'getPet',
    status: 404,
    body: '{"code":"pet_not_found","message":"no pet 1","status":404}',
    expect: 'api',
    detail: 'pet_not_found (404): no pet 1',
  },
  // Malformed success bodies: refused, naming the field.
  {
    name: 'an object for a list',
    operation: 'listPets',
    status: 200,
    body: '{}',
    expect: 'invalid_body',
    detail: 'must be a JSON array',
  },
  {
    name: 'null for a pet',
    operation: 'getPet',
    status: 200,
    body: 'null',
    expect: 'invalid_body',
    detail: 'must be a JSON object',
  },
  {
    name: 'an array for a pet',
    operation: 'createPet',
    status: 201,
    body: '[]',
    expect: 'invalid_body',
    detail: 'must be a JSON object',
  },
  {
    name: 'missing id',
    operation: 'getPet',
    status: 200,
    body: pet('"name":"Rex","categoryId":7'),
    expect: 'invalid_body',
    detail: 'id: is required',
  },
  {
    name: 'missing name',
    operation: 'listPets',
    status: 200,
    body: `[${pet('"id":1,"categoryId":7')}]`,
    expect: 'invalid_body',
    detail: '0.name: is required',
  },
  {
    name: 'missing categoryId',
    operation: 'createPet',
    status: 201,
    body: pet('"id":1,"name":"Rex"'),
    expect: 'invalid_body',
    detail: 'categoryId: is required',
  },
  {
    name: 'a name that is a number',
    operation: 'getPet',
    status: 200,
    body: pet('"id":1,"name":5,"categoryId":7'),
    expect: 'invalid_body',
    detail: 'name: must be a string',
  },
  {
    name: 'an empty name',
    operation: 'getPet',
    status: 200,
    body: pet('"id":1,"name":"","categoryId":7'),
    expect: 'invalid_body',
    detail: 'name: must not be empty',
  },
  {
    name: 'a blank name',
    operation: 'getPet',
    status: 200,
    body: pet('"id":1,"name":"  ","categoryId":7'),
    expect: 'invalid_body',
    detail: 'name: must contain a visible character, not only whitespace or control characters',
  },
  {
    name: 'a name of 256 characters',
    operation: 'getPet',
    status: 200,
    body: pet(`"id":1,"name":"${'x'.repeat(256)}","categoryId":7`),
    expect: 'invalid_body',
    detail: 'name: must be at most 255 characters long',
  },
  {
    name: 'a categoryId that is a string',
    operation: 'getPet',
    status: 200,
    body: pet('"id":1,"name":"Rex","categoryId":"7"'),
    expect: 'invalid_body',
    detail: 'categoryId: must be an integer (int64)',
  },
  {
    name: 'a fractional id',
    operation: 'getPet',
    status: 200,
    body: pet('"id":1.5,"name":"Rex","categoryId":7'),
    expect: 'invalid_body',
    detail: 'id: must be an integer (int64)',
  },
  {
    name: 'an id of 0',
    operation: 'getPet',
    status: 200,
    body: pet('"id":0,"name":"Rex","categoryId":7'),
    expect: 'invalid_body',
    detail: 'id: must be a positive integer',
  },
  {
    name: 'a negative id',
    operation: 'listPets',
    status: 200,
    body: `[${pet(GOOD)},${pet('"id":-5,"name":"Rex","categoryId":7')}]`,
    expect: 'invalid_body',
    detail: '1.id: must be a positive integer',
  },
  {
    name: 'an id above int64',
    operation: 'getPet',
    status: 200,
    body: pet('"id":9223372036854775808,"name":"Rex","categoryId":7'),
    expect: 'invalid_body',
    detail: 'id: must be a positive integer (1 to',
  },
  {
    name: 'a categoryId below int64',
    operation: 'getPet',
    status: 200,
    body: pet('"id":1,"name":"Rex","categoryId":-9223372036854775809'),
    expect: 'invalid_body',
    detail: 'categoryId: must be an integer between',
  },
  {
    name: 'an id JSON cannot hold exactly',
    operation: 'getPet',
    status: 200,
    body: pet('"id":1e400,"name":"Rex","categoryId":7'),
    expect: 'invalid_body',
    detail: 'id: must be an integer (int64)',
  },
  {
    name: 'an unknown status',
    operation: 'getPet',
    status: 200,
    body: pet(`${GOOD},"status":"lost"`),
    expect: 'invalid_body',
    detail: 'status: must be one of available, pending, sold',
  },
  {
    name: 'a null status',
    operation: 'getPet',
    status: 200,
    body: pet(`${GOOD},"status":null`),
    expect: 'invalid_body',
    detail: 'null is not a status',
  },
  {
    name: 'an unknown field',
    operation: 'createPet',
    status: 201,
    body: pet(`${GOOD},"owner":"Ann"`),
    expect: 'invalid_body',
    detail: 'unknown field "owner"',
  },
  // Error statuses must carry an Error body.
  {
    name: 'an error without an Error body',
    operation: 'listPets',
    status: 503,
    body: '{"message":"upstream down"}',
    expect: 'invalid_body',
    detail: 'answered 503 without an Error body',
  },
  {
    name: 'an Error body with another status',
    operation: 'getPet',
    status: 404,
    body: '{"code":"pet_not_found","message":"m","status":200}',
    expect: 'invalid_body',
    detail: 'without an Error body',
  },
  {
    name: 'an Error body with an unknown field',
    operation: 'getPet',
    status: 500,
    body: '{"code":"internal_error","message":"m","status":500,"stack":"..."}',
    expect: 'invalid_body',
    detail: 'without an Error body',
  },
  // Not JSON at all.
  {
    name: 'truncated JSON',
    operation: 'listPets',
    status: 200,
    body: '[{"id":1,',
    expect: 'non_json',
    detail: 'answered 200 with a body that is not JSON',
  },
  {
    name: 'an HTML error page',
    operation: 'createPet',
    status: 502,
    body: '<html>Bad Gateway</html>',
    expect: 'non_json',
    detail: 'answered 502 with a body that is not JSON',
  },
];

const show = (value: unknown) =>
  JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? `${item}n` : item));

/** Runs one case against a `createRestClient`; returns what went wrong, or undefined when the client was right. */
export async function checkCase(
  createRestClient: typeof CreateRestClient,
  testCase: ResponseCase,
): Promise<string | undefined> {
  const client = createRestClient({
    baseUrl: 'https://petstore.example/v1',
    apiKey: 'key-0123456789abcdef',
    fetch: async () =>
      new Response(testCase.body, {
        status: testCase.status,
        headers: { 'content-type': 'application/json' },
      }),
  });
  const call = {
    listPets: () => client.listPets(),
    createPet: () => client.createPet({ name: 'Rex', categoryId: 7 }),
    getPet: () => client.getPet(1),
  }[testCase.operation];
  let result: unknown;
  try {
    result = await call();
  } catch (error) {
    const failure = error as PetStoreApiError;
    if (failure?.name !== 'PetStoreApiError') return `threw ${String(error)}`;
    if (failure.kind !== testCase.expect) return `threw kind ${failure.kind}: ${failure.message}`;
    if (!failure.message.includes(testCase.detail)) return `message ${JSON.stringify(failure.message)}`;
    return undefined;
  }
  if (testCase.expect !== 'ok') return `accepted it: ${show(result)}`;
  return show(result) === testCase.detail ? undefined : `returned ${show(result)}`;
}

/**
 * Every case; one line per case that the client got wrong (empty: all right).
 * @public scripts/pack-test.mjs imports it into the page and scripts it writes for the packed client.
 */
export async function runResponseTable(createRestClient: typeof CreateRestClient): Promise<string[]> {
  const wrong: string[] = [];
  for (const testCase of RESPONSE_CASES) {
    const problem = await checkCase(createRestClient, testCase);
    if (problem !== undefined) wrong.push(`${testCase.name}: ${problem}`);
  }
  return wrong;
}
