// The response headers that are not particular to one operation: those every answer of the api carries (the
// request id and the security headers, with their fixed values), and those any answer may carry depending on the
// deployment or the request (CORS, content coding, tracing). The api sets the fixed ones from here, and the
// OpenAPI document declares all of them on every response from here: one list for both.
import type { HeaderContract } from './types.js';

/** A header with one value on every answer (the api sets it from `value`). */
export interface FixedHeaderContract extends HeaderContract {
  readonly value: string;
}

/**
 * The security headers of the OWASP REST Security Cheat Sheet, on every answer: a JSON API has no page to frame,
 * no content to sniff and no response a shared cache should keep.
 */
export const SECURITY_HEADER_CONTRACTS: Readonly<Record<string, FixedHeaderContract>> = {
  'Cache-Control': {
    description: '`no-store`: no answer of the API is kept by a cache.',
    required: true,
    value: 'no-store',
  },
  'Content-Security-Policy': {
    description: 'A JSON API has nothing to run or embed.',
    required: true,
    value: "default-src 'none'; frame-ancestors 'none'",
  },
  'Strict-Transport-Security': {
    description: 'HTTPS only, for a year, subdomains included.',
    required: true,
    value: 'max-age=31536000; includeSubDomains',
  },
  'X-Content-Type-Options': {
    description: '`nosniff`: the Content-Type is the content type.',
    required: true,
    value: 'nosniff',
  },
  'X-Frame-Options': { description: '`DENY`: never framed.', required: true, value: 'DENY' },
};

/** The header that carries the request id, sent back on every answer. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * The answers that carry no CORS field: the HTTP parser's, given before any header field is read, so before there is
 * an `Origin` to judge (docs/interface-decisions.md, "The edge").
 */
const WITHOUT_CORS =
  'Never on what the HTTP parser refuses before reading the header fields: a `400` for a message that is not ' +
  'HTTP/1.1, a `408`, a `431` for a request line and headers over the size limit, a `501` for an unknown method.';

/** Headers any answer of any operation may carry, by the deployment's settings or the request's. */
export const OPTIONAL_RESPONSE_HEADER_CONTRACTS: Readonly<Record<string, HeaderContract>> = {
  Vary: {
    description:
      '`Accept-Encoding` on the answers of a paged read (which may be compressed), and `Origin` when the ' +
      `deployment allows browser origins (CORS), the edge's refusals included. ${WITHOUT_CORS}`,
    required: false,
  },
  'Access-Control-Allow-Origin': {
    description: `CORS: the calling origin, when the deployment allows it (CORS_ORIGINS), on every answer, the edge's refusals included. ${WITHOUT_CORS}`,
    required: false,
  },
  'Access-Control-Expose-Headers': {
    description: `CORS: the response headers a page may read, when the deployment allows its origin. ${WITHOUT_CORS}`,
    required: false,
  },
  traceresponse: {
    description: 'W3C Trace Context of the server span, when the deployment traces requests (OpenTelemetry).',
    required: false,
  },
};

/** On an answer whose body may be compressed (a page of a paged read): the coding of its body. */
export const CONTENT_ENCODING_HEADER_CONTRACT: HeaderContract = {
  description:
    "`gzip`, `br` or `deflate` when the body is coded as the request's `Accept-Encoding` allows (bodies of " +
    '1 KiB or more); absent otherwise.',
  required: false,
};
