import type { IncomingMessage } from 'node:http';
import { API_BASE_PATH } from '@petstore/schema';

/**
 * A `Host` header we are willing to echo into a URL: a name of labels (letters, digits, `-` and `_`: a Compose
 * service `pet_store` is reached by that name) or an IPv4/[IPv6] address, and an optional port, which WHATWG URL
 * also reads (a port over 65535 is none).
 */
const HOST =
  /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}))*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/**
 * The absolute base URL (…/v1) this request reached, for links in the response (`Link: rel="next"`, the OpenAPI
 * `servers` when none are configured): the configured public URL, else the request's `Host`, else the address.
 */
export function requestBaseUrl(req: IncomingMessage, publicBaseUrl: string | undefined): string {
  if (publicBaseUrl !== undefined) return publicBaseUrl;
  const host = req.headers.host;
  if (host !== undefined && host.length <= 261 && HOST.test(host) && URL.canParse(`http://${host}`))
    return `http://${host}${API_BASE_PATH}`;
  const address = req.socket.localAddress ?? '127.0.0.1';
  const shown = address.includes(':') ? `[${address}]` : address;
  return `http://${shown}:${req.socket.localPort}${API_BASE_PATH}`;
}
