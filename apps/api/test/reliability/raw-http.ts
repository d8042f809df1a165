/**
 * HTTP/1.1 over a bare TCP socket: the request goes out byte for byte as given (duplicated headers, lying
 * Content-Length, invalid characters, unknown methods), which fetch and node:http would refuse or normalise.
 */
import { connect } from 'node:net';

export interface RawRequest {
  method: string;
  /** The request target exactly as sent, e.g. `/v1/pets/..%2f..`. */
  target: string;
  /** Header lines in order; a name may repeat. Values are sent as latin1 bytes, unchecked. */
  headers: [string, string][];
  body?: Buffer;
  /**
   * The body is shorter than the Content-Length it declares: the server rightly waits for the rest, so the
   * client half-closes after `incompleteAfterMs`. (Otherwise the client never half-closes: Node's server
   * aborts a request whose client sent FIN, which would hide the real response.)
   */
  incomplete?: boolean;
}

export interface RawResponse {
  status: number;
  headers: Map<string, string[]>;
  body: Buffer;
}

export type RawOutcome =
  | { kind: 'response'; response: RawResponse }
  /** The server closed the connection without an HTTP response (or with unparseable bytes). */
  | { kind: 'closed'; error?: string }
  | { kind: 'timeout' };

/** How long a client with an incomplete body waits for an early answer (413, 400) before giving up. */
const INCOMPLETE_WAIT_MS = 300;

/** The request's bytes. `Connection: close` is added so that the response ends with the connection. */
function serializeRequest(request: RawRequest): Buffer {
  const lines = [`${request.method} ${request.target} HTTP/1.1`];
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  if (!request.headers.some(([name]) => name.toLowerCase() === 'connection')) lines.push('Connection: close');
  return Buffer.concat([
    Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'),
    request.body ?? Buffer.alloc(0),
  ]);
}

function decodeChunked(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset < data.length) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd < 0) break;
    const size = Number.parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Parses one HTTP/1.1 response from everything the server sent before closing. */
export function parseResponse(data: Buffer, method: string): RawResponse | undefined {
  // Skip interim answers (`100 Continue` to `Expect: 100-continue`): the final one follows.
  while (/^HTTP\/1\.[01] 1\d\d/.test(data.subarray(0, 12).toString('latin1'))) {
    const interimEnd = data.indexOf('\r\n\r\n');
    if (interimEnd < 0) return undefined;
    data = data.subarray(interimEnd + 4);
  }
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const [statusLine = '', ...headerLines] = data.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  if (status === undefined) return undefined;
  const headers = new Map<string, string[]>();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  let body = data.subarray(headEnd + 4);
  if (method === 'HEAD') body = Buffer.alloc(0);
  else if (headers.get('transfer-encoding')?.some((value) => /chunked/i.test(value)))
    body = decodeChunked(body);
  else {
    const length = headers.get('content-length')?.[0];
    if (length !== undefined) body = body.subarray(0, Number(length));
  }
  return { status: Number(status), headers, body };
}

/** Sends one request on a new connection and reads until the server closes it (or `timeoutMs`). */
export function sendRaw(
  host: string,
  port: number,
  request: RawRequest,
  timeoutMs = 10_000,
): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = connect({ host, port });
    const finish = (outcome: RawOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    const complete = (error?: string) => {
      const response = parseResponse(Buffer.concat(chunks), request.method);
      finish(response ? { kind: 'response', response } : { kind: 'closed', ...(error ? { error } : {}) });
    };
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => complete());
    // A reset after the server answered (it stops reading a body it refused) still leaves a response.
    socket.on('error', (error: NodeJS.ErrnoException) => complete(error.code ?? error.message));
    socket.on('close', () => complete());
    socket.write(serializeRequest(request), () => {
      if (request.incomplete) setTimeout(() => socket.end(), INCOMPLETE_WAIT_MS).unref();
    });
  });
}
