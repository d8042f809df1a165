import compression from 'compression';
import type { RequestHandler } from 'express';
import Negotiator from 'negotiator';

/**
 * Bodies smaller than this are sent as they are: under about 1 KB, gzip saves a few hundred bytes at most and
 * costs a zlib stream per response. The 100-pet page (about 8 KB) is well above it; an Error body is below.
 */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** No body to code: 204 and 304 (a 304 stands for the representation the client holds, as it holds it). */
const compressible = (req: Parameters<RequestHandler>[0], res: Parameters<RequestHandler>[1]) =>
  res.statusCode !== 204 && res.statusCode !== 304 && compression.filter(req, res);

/**
 * Response compression for every route (REST, tRPC and its fast path, the docs), mounted after the edge so that
 * it only ever sees requests the edge admitted. `compression` negotiates `Accept-Encoding` with its q-values
 * (br, then gzip, then deflate at equal q; none without the header), adds `Vary: Accept-Encoding`, and leaves
 * HEAD, `Cache-Control: no-transform` and already-coded bodies alone. One rule of ours on top: a client that
 * refuses `identity` (`identity;q=0`, or `*;q=0` without identity) gets even a small body coded, when it
 * accepts a coding; when it accepts none, it gets the body uncoded (RFC 9110 section 12.5.3), not a 406.
 */
export function responseCompression(): RequestHandler {
  const aboveThreshold = compression({ threshold: COMPRESSION_THRESHOLD_BYTES, filter: compressible });
  const whateverSize = compression({ threshold: 0, filter: compressible });
  return (req, res, next) => {
    const accepted = req.headers['accept-encoding'];
    const identityRefused =
      accepted !== undefined && new Negotiator(req).encodings(['identity']).length === 0;
    (identityRefused ? whateverSize : aboveThreshold)(req, res, next);
  };
}
