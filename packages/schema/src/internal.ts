// `@petstore/schema/internal`: plumbing shared by the packages of this repository (the api, @petstore/client,
// @petstore/conformance), built and published with the package so that they can import it, but NOT part of its
// public interface: any release may change or remove it, and the contract guard does not hold it to semver.
// Other teams use the main entry (index.ts).

export { REQUEST_ID_HEADER, SECURITY_HEADER_CONTRACTS } from './contract/response-headers.js';
export {
  DEPRECATION_HEADER_CONTRACTS,
  deprecationHeaders,
  documentedStatuses,
  fillPath,
  inputSubject,
  isRestOperation,
  operationResponseHeaders,
  pathParameterNames,
  pathPattern,
  pathResponseHeaders,
  RATE_LIMIT_HEADER_CONTRACTS,
  restOperations,
  STABILITY_HEADER,
  STABILITY_HEADER_CONTRACTS,
  STABILITY_LEVELS,
} from './contract.js';
export { describeIssues, unknownKeysMessage } from './issues.js';
export { integerFromText, integerOfText, jsonTextOf } from './json.js';
export { GIVEN_ONCE } from './queries.js';
export { laterReadPosition, parseReadPosition } from './read-after.js';
