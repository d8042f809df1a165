import type { IncomingMessage } from 'node:http';
import { parseJson, REQUEST_BODY_LIMIT_BYTES } from '@petstore/schema';
import { jsonTextOf } from '@petstore/schema/internal';
import express, { type Request, type Response } from 'express';
import { AppError } from '../errors.js';
import { sendContinue } from './edge.js';

// The one request body reader of every transport (docs/development.md, "Home-made parts", says what it owns).

// The byte order mark is kept for the JSON reader's one rule (jsonTextOf), as a URL's percent-decoding keeps it.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// RFC 9110 section 8.3.1: `type "/" subtype *( OWS ";" OWS [ parameter ] )`, a parameter `token "=" ( token /
// quoted-string )`. Read whole or refused: the `content-type` package (Express's) reads `charset="utf-8` (its quote
// never closed) as no charset at all.
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[\\t !#-\\[\\]-~\\x80-\\xff]|\\\\[\\t -~\\x80-\\xff])*"';
const PARAMETER = new RegExp(`[ \\t]*;[ \\t]*(?:(${TOKEN})=(${TOKEN}|${QUOTED}))?`, 'y');
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}`);

/**
 * `application/json` or an `application/*+json` type, with no charset or one charset=utf-8 (RFC 8259 section 8.1):
 * a charset named twice is refused whatever its values, as every repeated field the api reads is.
 */
export function isJsonContentType(header: string): boolean {
  const type = MEDIA_TYPE.exec(header)?.[0].toLowerCase() ?? '';
  if (type !== 'application/json' && !/^application\/.+\+json$/.test(type)) return false;
  const end = header.trimEnd().length;
  let charsets = 0;
  for (PARAMETER.lastIndex = type.length; PARAMETER.lastIndex < end; ) {
    const [, name = '', value = ''] = PARAMETER.exec(header) ?? [];
    if (PARAMETER.lastIndex === 0) return false; // not a parameter: the field is malformed
    if (name.toLowerCase() !== 'charset') continue;
    const unquoted = value.startsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;
    if (++charsets > 1 || unquoted.toLowerCase() !== 'utf-8') return false;
  }
  return true;
}

// body-parser reads the bytes only (its JSON.parse rounds int64, its charset decoding replaces invalid bytes), of
// any type: checkHead refused the others. A body without a Content-Type is refused with 415 unless it is empty.
const readRaw = express.raw({ type: () => true, limit: REQUEST_BODY_LIMIT_BYTES, inflate: false });

const missingContentType = () =>
  new AppError('unsupported_media_type', 'Content-Type must be application/json');

// The connection is closed once the 413 is written.
const tooLarge = () =>
  new AppError('payload_too_large', `request body is over ${REQUEST_BODY_LIMIT_BYTES / 1024} KiB`, {
    Connection: 'close',
  });

// A compressed body would otherwise reach the JSON reader as bytes and be refused as "not UTF-8".
const unsupportedEncoding = (encoding: string) =>
  new AppError(
    'unsupported_media_type',
    `Content-Encoding ${JSON.stringify(encoding.slice(0, 100))} is not supported: send the body uncompressed`,
    { 'Accept-Encoding': 'identity' },
  );

/** body-parser's errors (their `type`) as ours: every one a 4xx, never a 500. */
export function fromBodyParser(error: { type?: unknown; encoding?: unknown }): AppError {
  if (error.type === 'entity.too.large') return tooLarge();
  if (error.type === 'encoding.unsupported') return unsupportedEncoding(String(error.encoding));
  // `request.aborted`, `request.size.invalid`, a socket error; `raw` has no charset, verify or parse step.
  return new AppError('validation_failed', 'request body was incomplete or could not be read');
}

/**
 * Refuses, with 415 and before the body is read, a Content-Encoding other than identity and a Content-Type other
 * than JSON; a declared length over the limit is 413 (body-parser would read the whole body first).
 */
export function checkHead(req: IncomingMessage): void {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && !/^\s*identity\s*$/i.test(encoding)) throw unsupportedEncoding(encoding);
  const contentType = req.headers['content-type'];
  if (contentType !== undefined && !isJsonContentType(contentType)) {
    throw new AppError(
      'unsupported_media_type',
      `Content-Type must be application/json; got ${JSON.stringify(contentType.slice(0, 100))}`,
    );
  }
  const length = Number(req.headers['content-length'] ?? 0);
  if (length > REQUEST_BODY_LIMIT_BYTES) throw tooLarge();
  // A body declared without a type: known from the head, so refused before 100 Continue (readJsonBody refuses a
  // chunked one once it proves not empty).
  if (contentType === undefined && length > 0) throw missingContentType();
}

/** Reads a required JSON request body: its text (UTF-8) and value (int64-exact); the caller validates the value. */
export async function readJsonBody(req: Request, res: Response): Promise<{ text: string; value: unknown }> {
  checkHead(req);
  sendContinue(req, res);
  const raw = await new Promise<Buffer | undefined>((resolve, reject) => {
    readRaw(req, res, (error?: unknown) =>
      error === undefined ? resolve(req.body) : reject(fromBodyParser(error as object)),
    );
  });
  // A trailer field (an Idempotency-Key after the body) would be read by no one: the message is refused, as the
  // edge's are (RFC 9110 section 6.5.1; docs/interface-decisions.md, "The edge").
  if (req.rawTrailers.length > 0) {
    throw new AppError(
      'malformed_request',
      `trailer fields are not read here (${req.rawTrailers[0]?.slice(0, 100)}): send them as header fields`,
      { Connection: 'close' },
    );
  }
  if (raw === undefined || raw.length === 0) {
    throw new AppError('validation_failed', 'request body is required: a JSON object');
  }
  if (req.headers['content-type'] === undefined) throw missingContentType();
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new AppError('malformed_json', 'request body is not valid UTF-8');
  }
  return parseJsonText(text, 'request body');
}

/**
 * JSON text parsed int64-exactly: its value, and the JSON text it carries (jsonTextOf: without a leading byte order
 * mark), which is what is handed on. A syntax error is 400 malformed_json naming `what`.
 */
export function parseJsonText(sent: string, what: string): { text: string; value: unknown } {
  try {
    return { text: jsonTextOf(sent), value: parseJson(sent) };
  } catch (error) {
    // Nesting deep enough to exhaust the parser's stack (tens of thousands of `[`) is a RangeError.
    const problem = error instanceof RangeError ? 'it is nested too deeply' : (error as Error).message;
    throw new AppError('malformed_json', `${what} is not valid JSON: ${problem}`);
  }
}
