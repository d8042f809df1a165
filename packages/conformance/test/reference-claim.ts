import { ERROR_CODES } from '@petstore/schema';

/**
 * What only the reference profile asserts: our error codes, our WWW-Authenticate challenge, Location, our
 * ordering. A line printed under `interface` that names one claims what was not checked.
 */
export const REFERENCE_CLAIM = new RegExp(
  `\\b(${Object.keys(ERROR_CODES).join('|')})\\b|realm="petstore"|invalid_token|Location|ids? ascending|application/\\*\\+json`,
);
