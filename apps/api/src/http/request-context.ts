import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../logger.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives each request an id (the caller's X-Request-Id when it is sane, else a new UUID), echoes it, and
 * logs one line per response. Only method, path, status, duration and the id are logged: never headers,
 * bodies or query values that might carry secrets.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.set('X-Request-Id', requestId);
    if (logger.isLevelEnabled('info')) {
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        logger.info(
          {
            requestId,
            method: req.method,
            path: req.path,
            status: res.statusCode,
            ms: Number(process.hrtime.bigint() - started) / 1e6,
          },
          'request',
        );
      });
    }
    next();
  };
}
