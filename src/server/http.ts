/**
 * The HTTP adapter of `pm serve`: node:http in front of the API core (api.ts). It turns an
 * IncomingMessage into an ApiRequest (the URL from the Host header and the request target, the
 * body as a RequestBody that keeps the size limit) and writes the ApiResponse back. Building the
 * server is separate from listening (see index.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Api } from './api.js';
import { RequestBody } from './body.js';

/** How long a client may take over a request: its headers, and the whole of it, body included. */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;
/** How long an idle keep-alive connection is kept open for the client's next request. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * `publicUrl`: the origin clients reach the server at (behind a proxy), used for pagination links
 * and Location headers instead of the request's Host header, which a client can set to anything.
 */
/** Connections held at once by default: more are closed as they come (each costs a file descriptor). */
export const MAX_CONNECTIONS = 256;

export function createHttpServer(
  api: Api,
  logError?: (err: unknown) => void,
  publicUrl?: string,
  maxConnections = MAX_CONNECTIONS,
): Server {
  const server = createServer(
    {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      // How often the two request timeouts are checked (Node's default, 30 s, would let a request
      // run to twice its time).
      connectionsCheckingInterval: 1_000,
    },
    (req, res) => {
      handle(api, req, res, publicUrl).catch((err) => {
        // The core answers every error itself; this is a failure to write the answer.
        logError?.(err);
        res.destroy();
      });
    },
  );
  server.maxConnections = maxConnections;
  return server;
}

async function handle(api: Api, req: IncomingMessage, res: ServerResponse, publicUrl?: string): Promise<void> {
  const url = requestUrl(req, publicUrl);
  if (url === undefined) {
    send(res, 400, { 'Content-Type': 'application/json', Connection: 'close' }, '{"message":"Bad request target."}');
    return;
  }
  const body = new RequestBody(declaredLength(req), () => req);
  const answer = await api({
    method: req.method ?? 'GET',
    url,
    header: (name) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v.join(', ') : v;
    },
    body,
  });
  // An answer sent before the request body was read (401, 403, 413, 415, 405, ...) closes the
  // connection: the unread rest of the body would otherwise be left on a socket the client reuses.
  const headers = body.complete ? answer.headers : { ...answer.headers, Connection: 'close' };
  send(res, answer.status, headers, answer.body);
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string | undefined): void {
  res.writeHead(status, headers);
  res.end(body);
}

/**
 * The request's absolute URL: its origin from the Host header (pagination links and Location
 * headers are made from it). Undefined, for a 400, when there is no Host header, when the Host
 * header is more than a host and a port, or when the target is not a path (nor an absolute URL)
 * or has a backslash in its path (which a URL parser would read as a slash).
 */
function requestUrl(req: IncomingMessage, publicUrl?: string): string | undefined {
  const target = req.url ?? '';
  const backslash = target.indexOf('\\');
  const query = target.indexOf('?');
  if (backslash !== -1 && (query === -1 || backslash < query)) return undefined;
  try {
    if (publicUrl !== undefined) {
      const path = /^https?:\/\//i.test(target) ? new URL(target) : undefined;
      if (!path && !target.startsWith('/')) return undefined;
      return new URL(path ? `${path.pathname}${path.search}` : target, publicUrl).href;
    }
    if (/^https?:\/\//i.test(target)) return new URL(target).href;
    const host = req.headers.host;
    if (!host || !target.startsWith('/')) return undefined;
    const url = new URL(`http://${host}${target}`);
    const hostOnly = url.hostname.length === host.length || url.hostname === host.replace(/:\d+$/, '');
    return hostOnly ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The Content-Length a request declares; undefined when it is chunked; 0 when it has no body. */
function declaredLength(req: IncomingMessage): number | undefined {
  if (req.headers['transfer-encoding'] !== undefined) return undefined;
  const length = req.headers['content-length'];
  return length === undefined ? 0 : Number.parseInt(length, 10);
}
