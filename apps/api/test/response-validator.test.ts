// The checker every test server runs on its answers (support/response-validator.ts) catches what it is there for:
// a header the document does not declare for that status, a required one missing, a status not listed, a body
// off its schema, an Error code the status does not list. Exchanges made here, checked against the real document.
import { describe, expect, it } from 'vitest';
import { type Exchange, responseValidator } from './support/response-validator.js';

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
/** What every answer carries, as the api sends it. */
const EVERY = {
  'x-request-id': 'r-1',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'petstore-stability': 'stable',
  'content-type': 'application/json; charset=utf-8',
};
const DEPRECATION = {
  deprecation: '@1795046400',
  sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  link: '</v1/pets>; rel="successor-version"',
};
const pet = { id: 7, name: 'Rex', categoryId: 1 };

async function problemsOf(exchange: Omit<Exchange, 'method'> & { method?: string }): Promise<string[]> {
  const validator = await responseValidator();
  const method = exchange.method ?? 'GET';
  const operation = validator.operationOf(method, exchange.target);
  if (operation === undefined) throw new Error(`no operation for ${exchange.target}`);
  return validator.problems(operation, { ...exchange, method });
}

describe('the response checker of the test servers', () => {
  it('passes an answer the document describes', async () => {
    const headers = { ...EVERY, ...DEPRECATION };
    expect(await problemsOf({ target: '/v1/pets/7', status: 200, headers, body: json(pet) })).toEqual([]);
  });

  it('fails a header the document does not declare for the status', async () => {
    const headers = { ...EVERY, ...DEPRECATION, 'x-debug': '1' };
    expect(await problemsOf({ target: '/v1/pets/7', status: 200, headers, body: json(pet) })).toEqual([
      expect.stringMatching(/sends the header x-debug, which the document does not declare/),
    ]);
    // Declared elsewhere is not declared here: Location belongs to createPet's 201, not to getPet's 200.
    const located = { ...EVERY, ...DEPRECATION, location: '/v1/pets/7' };
    expect(
      await problemsOf({ target: '/v1/pets/7', status: 200, headers: located, body: json(pet) }),
    ).toEqual([expect.stringMatching(/sends the header location/)]);
  });

  it('fails a required header that is missing', async () => {
    const { sunset: _sunset, ...headers } = { ...EVERY, ...DEPRECATION };
    expect(await problemsOf({ target: '/v1/pets/7', status: 200, headers, body: json(pet) })).toEqual([
      expect.stringMatching(/the required header Sunset is missing/),
    ]);
  });

  it('fails a status the operation does not list, a body off its schema and a code its status does not list', async () => {
    const headers = { ...EVERY };
    expect(
      await problemsOf({ method: 'POST', target: '/v1/pets', status: 418, headers, body: json({}) }),
    ).toEqual([expect.stringMatching(/a status the document does not list/)]);
    expect(
      await problemsOf({
        target: '/v1/pets',
        status: 200,
        headers,
        body: json([{ id: 'seven', name: 'Rex' }]),
      }),
    ).toEqual(expect.arrayContaining([expect.stringMatching(/body \/0\/id must be integer/)]));
    const error = { code: 'pet_not_found', message: 'no', status: 400 };
    expect(await problemsOf({ target: '/v1/pets', status: 400, headers, body: json(error) })).toEqual([
      expect.stringMatching(/Error code pet_not_found is not one of/),
    ]);
  });
});
