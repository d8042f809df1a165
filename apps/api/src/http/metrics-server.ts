import { createServer, type RequestListener, type Server } from 'node:http';
import { AppError, internalError } from '../errors.js';
import type { Metrics } from '../observability/metrics.js';
import { guardServer } from '../server-limits.js';
import { checkMessage, queryOf, refuse } from './edge.js';
import { sendError } from './send.js';

/**
 * The scrape endpoint: `GET /metrics` on a server of its own, so that it is reachable only where the operator
 * binds it (127.0.0.1 unless METRICS_HOST says otherwise), never through the API's port or its load balancer.
 */
export async function serveMetrics(metrics: Metrics, port: number, host: string): Promise<Server> {
  // The API's edge applies here too (edge.ts): every answer is an Error body, every rule the same.
  const listener: RequestListener = (req, res) => {
    const refused = checkMessage(req);
    if (refused !== undefined) return refuse(res, refused);
    const url = req.url ?? '';
    const queryStart = url.indexOf('?');
    const path = queryStart === -1 ? url : url.slice(0, queryStart);
    if (path === '*' || path === '/metrics') {
      const allow = path === '*' ? 'GET, HEAD, OPTIONS' : 'GET, HEAD';
      if (req.method === 'OPTIONS') {
        res.writeHead(204, { Allow: allow }).end();
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('Allow', allow);
        return sendError(
          res,
          new AppError('method_not_allowed', `${req.method} is not allowed here; allowed: ${allow}`),
        );
      }
    } else {
      return sendError(res, new AppError('route_not_found', 'no route here: the only one is GET /metrics'));
    }
    try {
      for (const name in queryOf(req)) {
        throw new AppError(
          'validation_failed',
          `unknown query parameter ${JSON.stringify(name.slice(0, 100))}`,
        );
      }
    } catch (error) {
      return sendError(res, error as AppError);
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => sendError(res, internalError()),
    );
  };
  const server = createServer({ requireHostHeader: false }, listener);
  guardServer(server, listener);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
    server.listen(port, host);
  });
  return server;
}
