// An HTTP proxy in front of the API that a test can make misbehave per request, as a network or a gateway
// would: answer for the API (a 503 with Retry-After), or forward a request and then lose the API's answer
// (the API did the work; the client sees a dropped connection). It records what every request carried. An event
// stream (the change feed) is passed on as it comes.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * What to do with one request: pass it on, pass it on and lose the answer, pass it on with another body (what a
 * client of another version would have sent), or answer it here.
 */
export type Fault =
  | 'forward'
  | 'lose-response'
  | { forwardBody: string }
  | { status: number; headers?: Record<string, string>; body: string };

export interface FaultyProxy {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  /** Every request received, in order. */
  requests: ProxiedRequest[];
  /** Decides each request's fate (default: forward everything). */
  plan: (request: ProxiedRequest) => Fault;
  close(): Promise<void>;
}

export async function startFaultyProxy(targetBaseUrl: string): Promise<FaultyProxy> {
  const target = new URL(targetBaseUrl);
  const proxy: FaultyProxy = {
    baseUrl: '',
    requests: [],
    plan: () => 'forward',
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: body.toString(),
      };
      proxy.requests.push(seen);
      const fault = proxy.plan(seen);
      if (typeof fault === 'object' && 'status' in fault) {
        res.writeHead(fault.status, fault.headers);
        res.end(fault.body);
        return;
      }
      const sent = typeof fault === 'object' ? Buffer.from(fault.forwardBody) : body;
      const headers = { ...req.headers };
      if (typeof fault === 'object') {
        headers['content-length'] = String(sent.length);
        delete headers['transfer-encoding'];
      }
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
        (answer) => {
          if (fault !== 'lose-response' && /^text\/event-stream/.test(answer.headers['content-type'] ?? '')) {
            // A stream never ends by itself: it is passed on as it comes, and closed when the client goes.
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            res.once('close', () => answer.destroy());
            return;
          }
          const answerChunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => answerChunks.push(chunk));
          answer.on('end', () => {
            // The whole answer has arrived: the API has done its work. Now it is lost on the way back.
            if (fault === 'lose-response') {
              req.socket.destroy();
              return;
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(answerChunks));
          });
        },
      );
      upstream.on('error', () => req.socket.destroy());
      upstream.end(sent);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${target.pathname}`;
  proxy.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return proxy;
}
