import type { ServerResponse } from 'node:http';
import compression from 'compression';
import type { Request, RequestHandler, Response } from 'express';
import Negotiator from 'negotiator';
import onHeaders from 'on-headers';
import vary from 'vary';

/**
 * Bodies smaller than this are sent as they are: under about 1 KB, gzip saves a few hundred bytes at most and
 * costs a zlib stream per response. The 100-pet page (about 8 KB) is well above it; an Error body is below.
 */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** No body to code: 204 and 304 (a 304 stands for the representation the client holds, as it holds it). */
const compressible = (req: Request, res: Response) =>
  res.statusCode !== 204 && res.statusCode !== 304 && compression.filter(req, res);

/** The stock middleware twice: for a client that accepts identity, and for one that refuses it. */
function stockMiddlewares() {
  return {
    aboveThreshold: compression({ threshold: COMPRESSION_THRESHOLD_BYTES, filter: compressible }),
    whateverSize: compression({ threshold: 0, filter: compressible }),
  };
}

/**
 * The response compression as it was before the identity-only path: the stock `compression` middleware on every
 * request. Not mounted; kept as the oracle of test/compression.differential.test.ts, which must find
 * `responseCompression` answering exactly as this does.
 */
export function stockResponseCompression(): RequestHandler {
  const { aboveThreshold, whateverSize } = stockMiddlewares();
  return (req, res, next) => {
    const accepted = req.headers['accept-encoding'];
    const identityRefused =
      accepted !== undefined && new Negotiator(req).encodings(['identity']).length === 0;
    (identityRefused ? whateverSize : aboveThreshold)(req, res, next);
  };
}

/**
 * compression 1.8.2's negotiation (index.js, `SUPPORTED_ENCODING` and `PREFERRED_ENCODING` with brotli, which
 * Node 24 has): the coding it picks at header time. Copied, not imported (it exports neither); a release that
 * changes them, or anything else `varyOnly` mirrors, fails the differential test. @types/negotiator omits the
 * second argument negotiator 0.6 takes (the preferred order at equal q).
 */
const SUPPORTED_CODINGS = ['br', 'gzip', 'deflate', 'identity'];
const PREFERRED_CODINGS = ['br', 'gzip'];
const IDENTITY_ONLY: readonly string[] = ['identity'];
type CodingNegotiator = {
  encodings(available: readonly string[], preferred: readonly string[]): string[];
};

/**
 * The codings compression may use for this request, best first, as its negotiation orders them: a coding first
 * means it may code the body (when it is large enough, and so on); `identity` missing means the client refuses it
 * (our rule: code even a small body). Empty, or `identity` first: it will code nothing. compression takes no (or an
 * empty) Accept-Encoding as identity, whatever the negotiation would say.
 */
function acceptableCodings(req: Request): readonly string[] {
  if (!req.headers['accept-encoding']) return IDENTITY_ONLY;
  return (new Negotiator(req) as unknown as CodingNegotiator).encodings(SUPPORTED_CODINGS, PREFERRED_CODINGS);
}

/** compression's `shouldTransform`: `Cache-Control: no-transform` forbids coding, and then it adds no Vary. */
const NO_TRANSFORM = /(?:^|,)\s*?no-transform\s*?(?:,|$)/i;
const transformable = (res: ServerResponse) => {
  const cacheControl = res.getHeader('Cache-Control');
  return !cacheControl || !NO_TRANSFORM.test(String(cacheControl));
};

type Chunk = string | Buffer | Uint8Array | undefined;
type WriteOrEnd = (this: ServerResponse, chunk?: Chunk, encoding?: BufferEncoding) => unknown;

/**
 * What the stock middleware does to a response it cannot code, and nothing more: at header time, when its filter
 * passes and Cache-Control allows a transform, `Vary: Accept-Encoding` (through the same `on-headers` hook and
 * `vary` it uses, so headers given to `writeHead` are set the same way and in the same order). Its write and end
 * wrappers are kept as well, minus the stream: they call `writeHead` before the body goes out, as there, so Node
 * never derives a Content-Length from `res.end(body)` (the answer is chunked unless the handler set one) and a
 * chunk Node refuses throws after the headers are stored; and `res.end` throws for a chunk whose length
 * compression cannot estimate.
 */
function varyOnly(req: Request, res: Response): void {
  const write = res.write as WriteOrEnd;
  const end = res.end as WriteOrEnd;
  res.write = function writeAfterHeaders(this: ServerResponse, chunk?: Chunk, encoding?: BufferEncoding) {
    if (!this.headersSent) this.writeHead(this.statusCode);
    return write.call(this, chunk, encoding);
  } as Response['write'];
  res.end = function endAfterHeaders(this: ServerResponse, chunk?: Chunk, encoding?: BufferEncoding) {
    if (!this.headersSent) {
      // compression's length estimate: Buffer.byteLength of anything but a string or a Buffer, which throws
      // for what it cannot measure (a callback passed as the chunk).
      if (
        chunk &&
        typeof chunk !== 'string' &&
        !Buffer.isBuffer(chunk) &&
        !this.getHeader('Content-Length')
      ) {
        Buffer.byteLength(chunk, encoding);
      }
      this.writeHead(this.statusCode);
    }
    return end.call(this, chunk, encoding);
  } as Response['end'];
  onHeaders(res, function addVary() {
    if (compressible(req, this as Response) && transformable(this)) vary(this, 'Accept-Encoding');
  });
}

/**
 * Response compression for every route (REST, tRPC and its fast path, the docs), mounted after the edge so that
 * it only ever sees requests the edge admitted. `compression` negotiates `Accept-Encoding` with its q-values
 * (br, then gzip, then deflate at equal q; none without the header), adds `Vary: Accept-Encoding`, and leaves
 * HEAD, `Cache-Control: no-transform` and already-coded bodies alone. One rule of ours on top: a client that
 * refuses `identity` (`identity;q=0`, or `*;q=0` without identity) gets even a small body coded, when it
 * accepts a coding; when it accepts none, it gets the body uncoded (RFC 9110 section 12.5.3), not a 406.
 *
 * A request that accepts no coding but identity (no Accept-Encoding, or one whose q-values rule out br, gzip and
 * deflate) can only get `Vary: Accept-Encoding` from the stock middleware, so it gets just that (`varyOnly`),
 * without the middleware's per-request set-up. A request that accepts a coding goes through the stock middleware,
 * which decides at header time (size, type, status, HEAD, no-transform, Content-Encoding) and codes the body.
 * test/compression.differential.test.ts holds this to `stockResponseCompression`'s answers, header for header and
 * byte for byte.
 */
export function responseCompression(): RequestHandler {
  const { aboveThreshold, whateverSize } = stockMiddlewares();
  return (req, res, next) => {
    const codings = acceptableCodings(req);
    const best = codings[0];
    if (best === undefined || best === 'identity') {
      varyOnly(req, res);
      next();
      return;
    }
    (codings.includes('identity') ? aboveThreshold : whateverSize)(req, res, next);
  };
}
