import { once } from 'node:events';
import { createServer, type RequestListener, type Server, ServerResponse } from 'node:http';
import { AppError, internalError } from '../errors.js';
import type { Metrics } from '../observability/metrics.js';
import { guardServer } from '../server-limits.js';
import { checkMessage, edgeListener, pathOf, refuse, refuseQuery, showAsGet } from './edge.js';
import { answerOtherMethod, READ_ALLOW } from './errors.js';
import { answeredConditionally } from './preconditions.js';
import { answerRules, setFixedHeaders } from './request-context.js';
import { sendError } from './send.js';

/** Node's response with the rules every answer of ours keeps, as the API's (request-context.ts answerRules). */
class MetricsResponse extends ServerResponse {}
answerRules(MetricsResponse.prototype);

/**
 * The scrape endpoint: `GET /metrics` on a server of its own, reachable only where the operator binds it, never
 * through the API's port. The API's edge applies here too, and other methods, OPTIONS and preconditions are answered
 * as on the API's GET routes (errors.ts readRoute).
 */
export async function serveMetrics(metrics: Metrics, port: number, host: string): Promise<Server> {
  const listener: RequestListener = edgeListener(async (req, res) => {
    // First, so that every answer has them, and every field after goes through answerRules' setHeader.
    setFixedHeaders(res);
    if (req.method === 'HEAD') showAsGet(res);
    const refused = checkMessage(req);
    if (refused !== undefined) return refuse(res, refused);
    const path = pathOf(req.url ?? '');
    try {
      if (path !== '*' && path !== '/metrics') {
        throw new AppError('route_not_found', 'no route here: the only one is GET /metrics');
      }
      if (req.method !== 'GET') return answerOtherMethod(req, res, READ_ALLOW);
      refuseQuery(req);
      const text = await metrics.registry.metrics();
      if (answeredConditionally(req, res)) return;
      res.writeHead(200, { 'content-type': metrics.registry.contentType });
      res.end(text);
    } catch (error) {
      sendError(res, error instanceof AppError ? error : internalError());
    }
  });
  const server = createServer({ ServerResponse: MetricsResponse, requireHostHeader: false }, listener);
  guardServer(server, listener, { methods: READ_ALLOW });
  server.listen(port, host);
  await once(server, 'listening'); // rejects on 'error'
  return server;
}
