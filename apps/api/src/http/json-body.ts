import { parseJson } from '@petstore/schema';
import express, { type RequestHandler } from 'express';
import { AppError } from '../errors.js';

/** Largest request body accepted; a NewPet is well under 1 KiB. Larger bodies get 413 payload_too_large. */
export const BODY_LIMIT_BYTES = 64 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** `application/json` or a `+json` type, with no charset or charset=utf-8 (RFC 8259 section 8.1). */
function isJsonContentType(header: string): boolean {
  const [type = '', ...params] = header
    .toLowerCase()
    .split(';')
    .map((part) => part.trim());
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) return false;
  return params.every((param) => !param.startsWith('charset=') || /^charset="?utf-8"?$/.test(param));
}

const readRawBody = express.raw({ type: () => true, limit: BODY_LIMIT_BYTES });

/**
 * Reads a required JSON request body into `req.body` (as `unknown`, int64-exact). Refuses a missing or empty
 * body (400), a non-JSON Content-Type (415), a body over the limit (413) and text that is not UTF-8 JSON (400).
 * The value is not validated here; the route validates it against its schema.
 */
export function jsonBody(): RequestHandler[] {
  const checkContentType: RequestHandler = (req, _res, next) => {
    const contentType = req.headers['content-type'];
    if (contentType !== undefined && !isJsonContentType(contentType)) {
      throw new AppError(
        'unsupported_media_type',
        `Content-Type must be application/json; got ${JSON.stringify(contentType.slice(0, 100))}`,
      );
    }
    next();
  };

  const parse: RequestHandler = (req, _res, next) => {
    const raw: unknown = req.body;
    if (!Buffer.isBuffer(raw) || raw.length === 0) {
      throw new AppError('validation_failed', 'request body is required: a JSON object');
    }
    if (req.headers['content-type'] === undefined) {
      throw new AppError('unsupported_media_type', 'Content-Type must be application/json');
    }
    let text: string;
    try {
      text = utf8.decode(raw);
    } catch {
      throw new AppError('malformed_json', 'request body is not valid UTF-8');
    }
    try {
      req.body = parseJson(text);
    } catch (error) {
      throw new AppError('malformed_json', `request body is not valid JSON: ${(error as Error).message}`);
    }
    next();
  };

  return [checkContentType, readRawBody, parse];
}
