import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

// Conditional GET for the public documentation (the OpenAPI document, the /docs page and its assets): a strong
// ETag from the bytes, and `If-None-Match` answered with 304 (RFC 9110 sections 8.8.3 and 13.1.2).

/** A strong entity tag from the bytes of a representation: equal bytes, equal tag, whichever instance served. */
function strongEtag(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url')}"`;
}

const ENTITY_TAG = /(?:W\/)?("[^"]*")/g;

/**
 * Whether `If-None-Match` matches the current representation: `*` matches any; otherwise each listed tag is
 * compared weakly (RFC 9110 section 13.1.2: `W/"x"` matches `"x"`). A field with no tag in it matches nothing.
 */
function ifNoneMatchMatches(field: string | undefined, etag: string): boolean {
  if (field === undefined) return false;
  if (field.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  for (const [, tag] of field.matchAll(ENTITY_TAG)) if (tag === opaque) return true;
  return false;
}

export interface Representation {
  body: string | Buffer;
  /** From {@link strongEtag}, computed once per body. */
  etag: string;
  contentType: string;
  cacheControl: string;
}

/** Sends a GET/HEAD answer: 304 with the validators when the client holds it already, else 200 and the body. */
export function sendRepresentation(
  req: IncomingMessage,
  res: ServerResponse,
  representation: Representation,
): void {
  res.setHeader('ETag', representation.etag);
  res.setHeader('Cache-Control', representation.cacheControl);
  if (ifNoneMatchMatches(req.headers['if-none-match'], representation.etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', representation.contentType);
  res.setHeader('Content-Length', Buffer.byteLength(representation.body));
  res.end(representation.body);
}

/** A representation whose tag is computed when it is built. */
export function representation(
  body: string | Buffer,
  contentType: string,
  cacheControl: string,
): Representation {
  return { body, etag: strongEtag(body), contentType, cacheControl };
}
