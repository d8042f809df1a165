import type { IncomingMessage } from 'node:http';
import { API_BASE_PATH } from '@petstore/schema';

/**
 * The absolute base URL (…/v1) this request reached, for links in the response (`Link: rel="next"`, the OpenAPI
 * `servers` when none are configured): the configured public URL, else the request's `Host`, else the address.
 */
export function requestBaseUrl(req: IncomingMessage, publicBaseUrl: string | undefined): string {
  if (publicBaseUrl !== undefined) return publicBaseUrl;
  // The Host the edge admitted (RFC 9110's `uri-host [":" port]`) as a URL reads it: `A%41` is `aa`, `Pet_Store`
  // is `pet_store`. One that is no URL's host and port alone (a port over 65535) gives way to the address.
  const url = req.headers.host ? URL.parse(`http://${req.headers.host}`) : null;
  if (url !== null && url.href === `http://${url.host}/`) return `http://${url.host}${API_BASE_PATH}`;
  const address = req.socket.localAddress ?? '127.0.0.1';
  const shown = address.includes(':') ? `[${address}]` : address;
  return `http://${shown}:${req.socket.localPort}${API_BASE_PATH}`;
}
