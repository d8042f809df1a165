import { afterEach, describe, expect, it, vi } from 'vitest';
import { CLIENT_RUNTIMES, createRestClient, createTrpcClient, PetStoreApiError } from './index.js';

type JsonWithRaw = typeof JSON & { rawJSON?: (text: string) => unknown };
const json = JSON as JsonWithRaw;
const { rawJSON } = json;
const { any } = AbortSignal;

afterEach(() => {
  json.rawJSON = rawJSON;
  AbortSignal.any = any;
});

const create = {
  createRestClient: () =>
    createRestClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'key-0123456789abcdef' }),
  createTrpcClient: () =>
    createTrpcClient({ url: 'http://127.0.0.1:9/v1/trpc', apiKey: 'key-0123456789abcdef' }),
};

describe.each(Object.entries(create))('%s on a runtime too old for the client', (_name, make) => {
  const needs = `@petstore/client needs JSON.rawJSON, JSON.parse source text and AbortSignal.any (${CLIENT_RUNTIMES}); this is Node ${process.versions.node}, which lacks`;

  it('throws at creation, naming JSON.rawJSON, instead of a "network" error on the first call', () => {
    delete json.rawJSON;
    expect(make).toThrow(`${needs} JSON.rawJSON`);
  });

  it('throws at creation, naming AbortSignal.any (Chrome 114 and 115 have the JSON features, not it)', () => {
    // @ts-expect-error: what an older runtime lacks
    delete AbortSignal.any;
    expect(make).toThrow(`${needs} AbortSignal.any`);
  });

  it('is created on this Node', () => {
    expect(make).not.toThrow();
  });
});

describe('one PetStoreApiError whatever copy of the package threw it', () => {
  it('an error of another copy (the CommonJS build next to the ESM one) is instanceof, and apiErrorOf reads it', async () => {
    vi.resetModules(); // the next imports are a second instance of each module, as a second build would be
    const other = await import('./client-error.js');
    const { apiErrorOf } = await import('./api-error-of.js');
    expect(other.PetStoreApiError).not.toBe(PetStoreApiError);
    const error = { code: 'pet_not_found', message: 'no pet 7', status: 404 };
    const thrown = new other.PetStoreApiError('api', 'pet_not_found (404)', { status: 404, error });
    expect(thrown).toBeInstanceOf(PetStoreApiError);
    expect(new PetStoreApiError('api', 'x', { error })).toBeInstanceOf(other.PetStoreApiError);
    expect(apiErrorOf(new PetStoreApiError('api', 'x', { error }))).toEqual(error);
    expect(new Error('plain')).not.toBeInstanceOf(PetStoreApiError);
    expect({ name: 'PetStoreApiError' }).not.toBeInstanceOf(PetStoreApiError);
  });
});
