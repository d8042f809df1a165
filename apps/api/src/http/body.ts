import type { IncomingMessage } from 'node:http';
import { parseJson, REQUEST_BODY_LIMIT_BYTES } from '@petstore/schema';
import { AppError } from '../errors.js';
import { sendContinue } from './edge.js';

// Request bodies, read the same way for REST and tRPC: the same media types, the same size limit, the same
// UTF-8 and JSON rules, the same int64-exact numbers. One reader, so the transports cannot disagree.

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

// The rest of an oversized body is never read: the connection is closed once the 413 is written.
const tooLarge = () =>
  new AppError('payload_too_large', `request body is over ${REQUEST_BODY_LIMIT_BYTES / 1024} KiB`, {
    Connection: 'close',
  });

/** The raw body, at most the limit: a declared or actual size over it is 413 without reading the rest. */
function readRaw(req: IncomingMessage): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > REQUEST_BODY_LIMIT_BYTES)
    return Promise.reject(tooLarge());
  // Everything that could refuse the request before its body has passed: a client waiting on
  // `Expect: 100-continue` may send it now (and never earlier, see edge.ts deferContinue).
  sendContinue(req);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > REQUEST_BODY_LIMIT_BYTES) {
        cleanup();
        // Stop reading; the connection is closed after the 413 is written.
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onAborted = () => {
      cleanup();
      reject(new AppError('validation_failed', 'request body was incomplete'));
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAborted);
      req.off('aborted', onAborted);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAborted);
    req.on('aborted', onAborted);
  });
}

/**
 * Checks the Content-Type and Content-Encoding of a request that carries a JSON body: refused with 415 before the
 * body is read.
 * A missing Content-Type is refused too, once there is a body (an empty body is a 400 first).
 */
function checkContentType(req: IncomingMessage): void {
  // A compressed body would otherwise reach the JSON reader as bytes and be refused as "not UTF-8".
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && !/^\s*identity\s*$/i.test(encoding)) {
    throw new AppError(
      'unsupported_media_type',
      `Content-Encoding ${JSON.stringify(encoding.slice(0, 100))} is not supported: send the body uncompressed`,
      { 'Accept-Encoding': 'identity' },
    );
  }
  const contentType = req.headers['content-type'];
  if (contentType !== undefined && !isJsonContentType(contentType)) {
    throw new AppError(
      'unsupported_media_type',
      `Content-Type must be application/json; got ${JSON.stringify(contentType.slice(0, 100))}`,
    );
  }
}

/** A JSON request body: its text (UTF-8, checked) and its value (int64-exact, see parseJson). */
export interface JsonBody {
  text: string;
  value: unknown;
}

/**
 * Reads a required JSON request body. Refuses a non-JSON Content-Type (415), a body over the limit (413), a
 * missing or empty body (400 validation_failed), a missing Content-Type (415) and text that is not UTF-8 JSON
 * (400 malformed_json). The value is not validated here; the caller validates it against its schema.
 */
export async function readJsonBody(req: IncomingMessage): Promise<JsonBody> {
  checkContentType(req);
  const raw = await readRaw(req);
  if (raw.length === 0) throw new AppError('validation_failed', 'request body is required: a JSON object');
  if (req.headers['content-type'] === undefined) {
    throw new AppError('unsupported_media_type', 'Content-Type must be application/json');
  }
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new AppError('malformed_json', 'request body is not valid UTF-8');
  }
  return { text, value: parseJsonText(text, 'request body') };
}

/** JSON text parsed int64-exactly; a syntax error is 400 malformed_json naming `what`. */
export function parseJsonText(text: string, what: string): unknown {
  try {
    return parseJson(text);
  } catch (error) {
    // Nesting deep enough to exhaust the parser's stack (tens of thousands of `[`) is a RangeError.
    const problem = error instanceof RangeError ? 'it is nested too deeply' : (error as Error).message;
    throw new AppError('malformed_json', `${what} is not valid JSON: ${problem}`);
  }
}
