import { Agent, request as httpRequest } from 'node:http';

/** A reply as bytes arrived: status, headers (repeated ones joined) and the body as text, parsed by no one. */
export interface RawReply {
  status: number;
  headers: Headers;
  text: string;
  /** The body as it came on the wire (still compressed, if it was). */
  bytes: Buffer;
}

/** One kept-alive connection pool per fuzzer, so that thousands of requests do not open thousands of sockets. */
export const fuzzAgent = () => new Agent({ keepAlive: true, maxSockets: 1 });

/**
 * Sends one request under `baseUrl` (…/v1) and reads the whole answer, whatever it is (a jsonl stream, HTML,
 * nothing): what the differential fuzzers compare. No OpenAPI check (fuzzed requests are mostly not in it).
 */
export function rawSend(
  baseUrl: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer | string; agent?: Agent } = {},
): Promise<RawReply> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: options.method ?? 'GET',
        path: `${url.pathname.replace(/\/$/, '')}${path}`, // a bare origin's `/` is not doubled
        headers: options.headers,
        agent: options.agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          const bytes = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers, text: bytes.toString('utf8'), bytes });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
