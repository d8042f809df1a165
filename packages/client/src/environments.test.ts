import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_VARIABLES, resolveBaseUrl } from './environments.js';
import { createRestClient } from './rest-client.js';
import { createTrpcClient } from './trpc-client.js';

describe('base URLs and environments', () => {
  it('takes an explicit base URL ending in /v1, without a trailing slash', () => {
    expect(resolveBaseUrl({ baseUrl: 'https://pets.example.test/v1/' })).toBe('https://pets.example.test/v1');
    expect(resolveBaseUrl({ baseUrl: 'http://127.0.0.1:3000/api/v1' })).toBe('http://127.0.0.1:3000/api/v1');
  });

  it.each([
    ['https://pets.example.test', 'must end in the version segment /v1'],
    ['https://pets.example.test/v2', 'must end in the version segment /v1'],
    ['ftp://pets.example.test/v1', 'must be an http(s) URL'],
    ['https://pets.example.test/v1?x=1', 'must be an http(s) URL without query'],
    ['not a url', 'is not a URL'],
  ])('refuses %j', (baseUrl, message) => {
    expect(() => resolveBaseUrl({ baseUrl })).toThrow(message);
  });

  it('uses the URL as parsed: no stray whitespace in every path', () => {
    expect(resolveBaseUrl({ baseUrl: 'http://127.0.0.1:4308/v1 ' })).toBe('http://127.0.0.1:4308/v1');
    expect(resolveBaseUrl({ baseUrl: ' https://Pets.Example.test/v1/\t' })).toBe(
      'https://pets.example.test/v1',
    );
  });

  it.each([
    'http://user:secret-pw@127.0.0.1:4308/v1',
    'http://user@127.0.0.1:4308/v1',
    'http://:secret-pw@127.0.0.1:4308/v1/trpc',
  ])('refuses credentials in %j, and does not echo them', (url) => {
    for (const create of [
      () => resolveBaseUrl({ baseUrl: url }),
      () => createTrpcClient({ url, apiKey: 'k' }),
    ]) {
      expect(create).toThrow(TypeError);
      expect(create).toThrow('must not carry credentials');
      expect(create).not.toThrow('secret-pw');
    }
  });

  it.each([
    ['ftp://x', 'must be an http(s) URL'],
    ['not a url', 'is not a URL'],
    ['http://h/v1', 'followed by /trpc'],
    ['http://h/trpc', 'must end in the version segment /v1'],
    ['http://h/v1/trpc?x=1', 'must be an http(s) URL without query'],
    ['', 'url is required'],
  ])('the tRPC client refuses url %j when it is created', (url, message) => {
    expect(() => createTrpcClient({ url, apiKey: 'k' })).toThrow(TypeError);
    expect(() => createTrpcClient({ url, apiKey: 'k' })).toThrow(message);
  });

  it('the tRPC client takes <base URL>/trpc by the same rule', () => {
    expect(() => createTrpcClient({ url: 'http://127.0.0.1:1/v1/trpc/ ', apiKey: 'k' })).not.toThrow();
    expect(() => createTrpcClient({ url: 'http://127.0.0.1:1/api/v1/trpc', apiKey: 'k' })).not.toThrow();
  });

  it('reads an environment from its documented variable, and only then', () => {
    expect(ENVIRONMENT_VARIABLES).toEqual({
      production: 'PETSTORE_PRODUCTION_URL',
      staging: 'PETSTORE_STAGING_URL',
    });
    const env = {
      PETSTORE_PRODUCTION_URL: 'https://prod.example.test/v1',
      PETSTORE_STAGING_URL: 'https://staging.example.test/v1',
    };
    expect(resolveBaseUrl({ environment: 'production' }, env)).toBe('https://prod.example.test/v1');
    expect(resolveBaseUrl({ environment: 'staging' }, env)).toBe('https://staging.example.test/v1');
    expect(() =>
      resolveBaseUrl({ environment: 'staging' }, { PETSTORE_STAGING_URL: 'https://staging.example.test' }),
    ).toThrow('PETSTORE_STAGING_URL must end in the version segment /v1');
  });

  it('says which variable to set when it is unset, and invents no host', () => {
    expect(() => resolveBaseUrl({ environment: 'production' }, {})).toThrow(
      'environment "production" needs its base URL in PETSTORE_PRODUCTION_URL',
    );
    expect(() => resolveBaseUrl({ environment: 'qa' as never }, {})).toThrow('unknown environment "qa"');
  });

  it('the clients read process.env when given an environment', () => {
    const saved = process.env.PETSTORE_STAGING_URL;
    try {
      delete process.env.PETSTORE_STAGING_URL;
      expect(() => createRestClient({ environment: 'staging', apiKey: 'k' })).toThrow('PETSTORE_STAGING_URL');
      expect(() => createTrpcClient({ environment: 'staging', apiKey: 'k' })).toThrow('PETSTORE_STAGING_URL');
      process.env.PETSTORE_STAGING_URL = 'http://127.0.0.1:1/v1';
      expect(createRestClient({ environment: 'staging', apiKey: 'k' })).toHaveProperty('listPets');
    } finally {
      if (saved === undefined) delete process.env.PETSTORE_STAGING_URL;
      else process.env.PETSTORE_STAGING_URL = saved;
    }
  });

  it('requires an API key', () => {
    expect(() => createRestClient({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: '' })).toThrow(
      'apiKey is required',
    );
    expect(() => createTrpcClient({ url: 'http://127.0.0.1:1/v1/trpc', apiKey: '' })).toThrow(
      'apiKey is required',
    );
  });

  it('sends no Authorization header with apiKey null (a proxy in front adds the key)', async () => {
    const sent: Headers[] = [];
    const fetch = async (_input: string | URL | Request, init?: RequestInit) => {
      sent.push(new Headers(init?.headers));
      return new Response(JSON.stringify([]), { headers: { 'content-type': 'application/json' } });
    };
    await createRestClient({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: null, fetch }).listPets();
    await createTrpcClient({ url: 'http://127.0.0.1:1/v1/trpc', apiKey: null, fetch, batch: false })
      .pets.list.query({})
      .catch(() => undefined); // the answer is no tRPC envelope: only the request matters here
    expect(sent).toHaveLength(2);
    expect(sent.map((headers) => headers.has('authorization'))).toEqual([false, false]);
  });
});
