// The package's public entry: the contract, the models and their types, the error codes, the OpenAPI document
// and the exact-JSON helpers, what other teams build on, held to semver by the contract guard. Helpers only our
// api, clients and conformance suite use (paths, deprecation headers, messages) are in ./internal.ts
// (`@petstore/schema/internal`), which carries no compatibility promise.
export type {
  BodyContract,
  CommonErrorCode,
  Contract,
  DeprecationContract,
  EdgeErrorCode,
  ErrorResponseContract,
  HeaderContract,
  HttpMethod,
  OperationApiError,
  OperationContract,
  OperationErrorCode,
  OperationId,
  OperationInput,
  OperationOutput,
  OperationParsedInput,
  RequestHeaderContract,
  RestOperationContract,
  RestOperationId,
  StabilityLevel,
} from './contract.js';
export {
  API_BASE_PATH,
  checkApiBaseUrl,
  contract,
  GetPetInputSchema,
  isOperationErrorCode,
  operations,
  REQUEST_BODY_LIMIT_BYTES,
  TRPC_ENDPOINT,
  TRPC_MAX_BATCH_SIZE,
  trpcPath,
} from './contract.js';
export type { ApiError, ErrorCode } from './error.js';
export { ERROR_CODES, ErrorSchema } from './error.js';
export type { PetEvent, PetEventKind } from './events.js';
export {
  EventPositionSchema,
  EventPositionTextSchema,
  LAST_EVENT_ID_HEADER,
  PET_EVENT_KINDS,
  PetEventSchema,
} from './events.js';
export {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IdempotencyKeySchema,
} from './idempotency.js';
export type { Int64, Int64Input } from './int64.js';
export { INT64_MAX, INT64_MIN, Int64Schema, PositiveInt64Schema } from './int64.js';
export { parseJson, stringifyJson } from './json.js';
export type {
  OpenApiContact,
  OpenApiDocument,
  OpenApiLicense,
  OpenApiOptions,
  OpenApiServer,
} from './openapi.js';
export {
  createOpenApiDocument,
  createOpenApiJson,
  modelJsonSchema,
  OPENAPI_INFO_VERSION,
} from './openapi.js';
export type { NewPet, NewPetInput, Pet, PetInput, PetStatus, Pets, PetsPage } from './pet.js';
export {
  NewPetSchema,
  PET_NAME_MAX_LENGTH,
  PET_STATUSES,
  PetNameSchema,
  PetSchema,
  PetStatusSchema,
  PetsPageSchema,
  PetsSchema,
} from './pet.js';
export type { ListPetsQuery, ListPetsQueryInput } from './queries.js';
export {
  CURSOR_MAX_LENGTH,
  CursorSchema,
  LIST_LIMIT,
  ListLimitSchema,
  ListPetsQuerySchema,
  ListPetsSearchParamsSchema,
  PetEventsQuerySchema,
  PetEventsSearchParamsSchema,
  PetIdPathSchema,
  PetsPageQuerySchema,
} from './queries.js';
export { READ_AFTER_HEADER } from './read-after.js';
export type { RuntimeRequirement } from './runtime.js';
export { assertExactJsonSupport, EXACT_JSON_RUNTIMES } from './runtime.js';
