export type { ApiError, ListPetsQueryInput, NewPetInput, Pet, PetStatus, PetsPage } from '@petstore/schema';
export type { PetStoreErrorKind } from './client-error.js';
export { apiErrorOf, PetStoreApiError } from './client-error.js';
export type { PetStoreEnvironment, PetStoreTarget } from './environments.js';
export { ENVIRONMENT_VARIABLES, resolveBaseUrl } from './environments.js';
export type { PetsPageResult, RestClient, RestClientOptions } from './rest-client.js';
export { createRestClient, nextCursorFromLink } from './rest-client.js';
export type { AppRouter, PetStoreTrpcClient, TrpcClientOptions } from './trpc-client.js';
export { createTrpcClient } from './trpc-client.js';
