// The interface's fixed numbers and prefixes, shared by the operations, the HTTP helpers, the api and the clients.
/** Every REST path of the interface lives under this prefix (the spec's `/v1`). */
export const API_BASE_PATH = '/v1';
/** Where the tRPC router is served, relative to the base URL (`<base>/trpc`). */
export const TRPC_ENDPOINT = '/trpc';
/** Largest request body accepted on either transport; larger is 413 `payload_too_large`. */
export const REQUEST_BODY_LIMIT_BYTES = 64 * 1024;
/** Most calls one tRPC batch may carry; more is 400 `validation_failed` before any call runs. */
export const TRPC_MAX_BATCH_SIZE = 10;
/**
 * The stability levels an operation may carry (its `stability`), most settled first. What each promises, and how
 * the contract guard holds it: docs/interface-decisions.md, "Stability levels".
 */
export const STABILITY_LEVELS = ['stable', 'beta', 'experimental'] as const;
