export type {
  BodyContract,
  Contract,
  DeprecationContract,
  ErrorResponseContract,
  HeaderContract,
  HttpMethod,
  OperationContract,
  OperationId,
  OperationInput,
  OperationOutput,
  OperationParsedInput,
  RequestHeaderContract,
  RestOperationContract,
  RestOperationId,
} from './contract.js';
export {
  API_BASE_PATH,
  checkApiBaseUrl,
  contract,
  DEPRECATION_HEADER_CONTRACTS,
  deprecationHeaders,
  documentedStatuses,
  fillPath,
  GetPetInputSchema,
  inputSubject,
  isRestOperation,
  operations,
  pathParameterNames,
  pathPattern,
  RATE_LIMIT_HEADER_CONTRACTS,
  REQUEST_BODY_LIMIT_BYTES,
  restOperations,
  TRPC_ENDPOINT,
  TRPC_MAX_BATCH_SIZE,
  trpcPath,
} from './contract.js';
export type { ApiError, ErrorCode } from './error.js';
export { ERROR_CODES, ErrorSchema } from './error.js';
export {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IdempotencyKeySchema,
} from './idempotency.js';
export type { Int64, Int64Input } from './int64.js';
export { INT64_MAX, INT64_MIN, Int64Schema, PositiveInt64Schema } from './int64.js';
export { describeIssues } from './issues.js';
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
  PetIdPathSchema,
  PetsPageQuerySchema,
} from './queries.js';
export { laterReadPosition, parseReadPosition, READ_AFTER_HEADER } from './read-after.js';
export type { RuntimeRequirement } from './runtime.js';
export { assertExactJsonSupport, EXACT_JSON_RUNTIMES } from './runtime.js';
