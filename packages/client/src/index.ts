export type {
  ApiError,
  ListPetsQueryInput,
  NewPetInput,
  OperationApiError,
  OperationErrorCode,
  Pet,
  PetEvent,
  PetEventKind,
  PetStatus,
  PetsPage,
} from '@petstore/schema';
export { apiErrorOf, operationErrorOf } from './api-error-of.js';
export type { PetStoreErrorKind, PetStoreOperationError } from './client-error.js';
export { isPetStoreApiError, PetStoreApiError } from './client-error.js';
export type { PetStoreEnvironment, PetStoreTarget } from './environments.js';
export { ENVIRONMENT_VARIABLES, resolveBaseUrl } from './environments.js';
export type { FollowOptions } from './follow-events.js';
export type {
  CreatePetOptions,
  FollowPetEventsQuery,
  PetsPageResult,
  RestClient,
  RestClientOptions,
} from './rest-client.js';
export { createRestClient, nextCursorFromLink } from './rest-client.js';
export type { CallOptions, CallPolicyOptions, RetryOptions } from './retry.js';
export { CallAbortedError } from './retry.js';
export { CLIENT_RUNTIMES } from './runtime.js';
export type { AppRouter, PetStoreTrpcClient, TrpcClientOptions } from './trpc-client.js';
export { createTrpcClient } from './trpc-client.js';
