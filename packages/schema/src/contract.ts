// The contract, the one module the rest of the package (and the api, clients and conformance) imports it through.
// Split by job under contract/:
//   constants.ts        base path, tRPC endpoint, body and batch limits
//   types.ts            the shape of an operation's declaration (OperationContract and its parts)
//   operations.ts       the declared operations (`contract`) and the errors every operation shares
//   operation-types.ts  types derived from the declarations (ids, inputs, outputs)
//   operation-errors.ts the error codes each operation declares, as types and one runtime test
//   http.ts             how the declarations meet the transports (paths, statuses, deprecation and stability
//                       headers)
export {
  API_BASE_PATH,
  REQUEST_BODY_LIMIT_BYTES,
  STABILITY_LEVELS,
  TRPC_ENDPOINT,
  TRPC_MAX_BATCH_SIZE,
} from './contract/constants.js';
export {
  checkApiBaseUrl,
  DEPRECATION_HEADER_CONTRACTS,
  deprecationHeaders,
  documentedStatuses,
  fillPath,
  inputSubject,
  operationResponseHeaders,
  pathParameterNames,
  pathPattern,
  pathResponseHeaders,
  STABILITY_HEADER,
  STABILITY_HEADER_CONTRACTS,
  trpcPath,
} from './contract/http.js';
export type {
  CommonErrorCode,
  EdgeErrorCode,
  OperationApiError,
  OperationErrorCode,
} from './contract/operation-errors.js';
export { isOperationErrorCode } from './contract/operation-errors.js';
export type {
  Contract,
  OperationId,
  OperationInput,
  OperationOutput,
  OperationParsedInput,
  RestOperationId,
} from './contract/operation-types.js';
export {
  contract,
  GetPetInputSchema,
  operations,
  RATE_LIMIT_HEADER_CONTRACTS,
  restOperations,
} from './contract/operations.js';
export type {
  BodyContract,
  DeprecationContract,
  ErrorResponseContract,
  HeaderContract,
  HttpMethod,
  OperationContract,
  RequestHeaderContract,
  RestOperationContract,
  StabilityLevel,
} from './contract/types.js';
export { isRestOperation } from './contract/types.js';
