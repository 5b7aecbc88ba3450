/** The HTTP adapter of `pm serve`: node:http in front of the API core (api.ts); index.ts listens. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Api } from './api.js';
import { HEALTH_PATH } from '../core/endpoints.js';
import { MAX_BODY_BYTES } from '../core/limits.js';
import { RequestBody } from './body.js';
import { type Connection, limitConnections, MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS } from './connections.js';
import { maskSecrets, type Observer, REQUEST_ID_HEADER, requestIdOf } from './observe.js';

/** How long a client may take over a request: its headers, and the whole of it, body included. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** How long an idle keep-alive connection is kept open for the client's next request. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

export interface HttpOptions {
  // What a client may hold of the server (the defaults above, and connections.ts').
  readonly maxConnections?: number | undefined;
  /** Connections one address may hold; behind a proxy, every client has the proxy's address. */
  readonly maxConnectionsPerAddress?: number | undefined;
  readonly headersTimeoutMs?: number | undefined;
  readonly requestTimeoutMs?: number | undefined;
  /**
   * The origin clients reach the server at (behind a proxy), used for pagination links and
   * Location headers instead of the request's Host header, which a client can set to anything.
   */
  readonly publicUrl?: string;
  readonly logError?: ((err: unknown) => void) | undefined;
  /** What the door reports each answer to, and whether it is draining (index.ts sets both). */
  readonly door?: Door | undefined;
}

/**
 * The door's state: while it drains (the server is stopping), `GET /health` is answered 503 and
 * every answer closes its connection; `observer` hears of every request answered.
 */
export interface Door {
  draining: boolean;
  observer?: Observer | undefined;
}

export function createHttpServer(api: Api, opts: HttpOptions): Server {
  const { publicUrl, logError } = opts;
  const door: Door = opts.door ?? { draining: false };
  const requestTimeout = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const server = createServer(
    {
      // Node requires the headers' time to be no more than the whole request's.
      headersTimeout: Math.min(opts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS, requestTimeout),
      requestTimeout,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      // How often the two request timeouts are checked (Node's default, 30 s, would let a request
      // run to twice its time).
      connectionsCheckingInterval: 1_000,
    },
    (req, res) => {
      // A request past the connection's pipelining depth, or on a closing connection, is never
      // answered: the client sends it again on another connection.
      const conn = connectionOf(req.socket);
      if (!conn?.take()) return;
      res.once('close', () => conn.done());
      handle(api, req, res, conn, door, publicUrl).catch((err) => {
        // The core answers every error itself; this is a failure to write the answer.
        logError?.(err);
        res.destroy();
      });
    },
  );
  const connectionOf = limitConnections(server, {
    max: opts.maxConnections ?? MAX_CONNECTIONS,
    perAddress: opts.maxConnectionsPerAddress ?? MAX_CONNECTIONS_PER_ADDRESS,
  });
  return server;
}

async function handle(
  api: Api,
  req: IncomingMessage,
  res: ServerResponse,
  conn: Connection,
  door: Door,
  publicUrl?: string,
): Promise<void> {
  const requestId = requestIdOf(req.headers['x-request-id']);
  const method = req.method ?? 'GET';
  // A body read only in part (a 413 past the limit) must not take the connection down with it.
  const body = new RequestBody(declaredLength(req), () => req.iterator({ destroyOnReturn: false }));
  const { observer } = door;
  let told: Told | undefined;
  let streamed: { bytes: number } | undefined;
  if (observer) {
    const started = performance.now();
    const target = maskSecrets(targetOf(req.url ?? ''));
    observer.started?.(requestId, method, target);
    res.once('close', () => {
      const [route, accountId, bytesOut, fault] = told ?? [undefined, undefined, 0];
      // A streamed answer counts what was written of it, sent whole or not.
      const sent = streamed === undefined ? (res.writableFinished ? bytesOut : 0) : streamed.bytes;
      observer.answered({
        requestId,
        method,
        target,
        route,
        // An answer not sent whole: its client went away first (nginx's 499).
        status: res.writableFinished ? res.statusCode : CLIENT_GONE,
        durationMs: performance.now() - started,
        bytesIn: body.bytesRead,
        bytesOut: sent,
        accountId,
        remote: req.socket.remoteAddress,
        fault,
      });
    });
  }
  const url = requestUrl(req, publicUrl);
  if (url === undefined) {
    const text = JSON.stringify({ message: 'Bad request target.', request_id: requestId });
    res.writeHead(400, { 'Content-Type': 'application/json', Connection: 'close', [REQUEST_ID_HEADER]: requestId });
    res.end(text);
    told = [undefined, undefined, Buffer.byteLength(text)];
    return;
  }
  if (door.draining && new URL(url).pathname === HEALTH_PATH) {
    const text = method === 'HEAD' ? '' : JSON.stringify(STOPPING(requestId));
    res.writeHead(503, { ...STOPPING_HEADERS, [REQUEST_ID_HEADER]: requestId });
    res.end(text);
    told = [HEALTH_PATH, undefined, text.length];
    return;
  }
  // Aborted when the client goes away before its answer: a list in progress is stopped (api.ts).
  // Made when first asked for (by a list): an AbortController costs a request some 5 µs.
  let gone: AbortController | undefined;
  let left = false;
  res.once('close', () => {
    left = !res.writableEnded;
    if (left) gone?.abort();
  });
  const answer = await api({
    method: req.method ?? 'GET',
    url,
    header: (name) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v.join(', ') : v;
    },
    body,
    get signal() {
      gone ??= new AbortController();
      if (left) gone.abort();
      return gone.signal;
    },
    requestId,
  });
  answer.headers[REQUEST_ID_HEADER] = requestId;
  // While the server stops, a client is sent elsewhere for its next request.
  if (door.draining) answer.headers.Connection = 'close';
  const bytes = answer.body === undefined ? 0 : Number(answer.headers['Content-Length']);
  told = [answer.route, answer.accountId, bytes, answer.fault];
  // An answer sent before the request body was read (401, 403, 413, 415, 405, ...) is read by a
  // client still sending, not met with a broken pipe: the rest of a body of reasonable size is read
  // and thrown away, and the connection kept; past that, or a larger body declared, the connection
  // is closed after the answer, lingering (connections.ts). A body that stops coming closes it.
  const unread = !body.complete;
  const close = unread && (body.declaredLength ?? 0) > DRAIN_BYTES;
  if (close) conn.lingerAfterAnswer(req);
  res.writeHead(answer.status, close ? { ...answer.headers, Connection: 'close' } : answer.headers);
  if (answer.stream) {
    streamed = { bytes: 0 };
    await sendStream(answer.stream, res, streamed);
  } else res.end(answer.body);
  if (unread && !close) drain(req, conn);
}

/**
 * Bytes sent as they are read, each chunk after the client took the one before (a slow client
 * holds no more than a chunk in memory), counted in `sent` as they are written. A failure half-way, or a client gone, ends the connection:
 * the answer's Content-Length tells the client it did not get it whole.
 */
async function sendStream(
  stream: AsyncIterable<Uint8Array>,
  res: ServerResponse,
  sent: { bytes: number },
): Promise<void> {
  try {
    for await (const chunk of stream) {
      if (res.destroyed) return;
      sent.bytes += chunk.byteLength;
      if (!res.write(chunk))
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
    }
    res.end();
  } catch (e) {
    res.destroy();
    throw e;
  }
}

/** What the answer told the observer: its route, its account, the bytes of its body, a store's 5xx. */
type Told = readonly [string | undefined, number | undefined, number, Error?];

/** The status a request is logged with when its client went away before its answer was sent. */
const CLIENT_GONE = 499;

/** `GET /health` while the server stops: a load balancer sends no more. */
const STOPPING = (requestId: string) => ({
  status: 'stopping',
  message: 'The server is shutting down.',
  request_id: requestId,
});
const STOPPING_HEADERS = {
  'Content-Type': 'application/json',
  'Cache-Control': 'no-store',
  'Retry-After': '5',
  Connection: 'close',
};

/** A request target as the log shows it: path and query as sent, without an absolute form's origin. */
function targetOf(target: string): string {
  const absolute = /^https?:\/\/[^/?#]*/i.exec(target);
  return absolute ? target.slice(absolute[0].length) || '/' : target;
}

/** The most of an unread body thrown away with the connection kept, and how long it may pause. */
const DRAIN_BYTES = 4 * MAX_BODY_BYTES;
const DRAIN_IDLE_MS = 2000;

function drain(req: IncomingMessage, conn: Connection): void {
  let drained = 0;
  const idle = setTimeout(() => req.socket.destroy(), DRAIN_IDLE_MS).unref();
  const stop = () => {
    clearTimeout(idle);
    req.off('data', counted);
  };
  const counted = (chunk: Buffer) => {
    drained += chunk.length;
    if (drained <= DRAIN_BYTES) return void idle.refresh();
    stop();
    conn.linger(req);
  };
  req.on('data', counted);
  req.once('end', stop);
  req.once('close', stop);
  req.resume();
}

/**
 * The request's absolute URL: its origin from the Host header (pagination links and Location
 * headers are made from it). Undefined, for a 400, when there is no Host header, when the Host
 * header is more than a host and a port, or when the target is not a path (nor an absolute URL)
 * or has a backslash in its path (which a URL parser would read as a slash).
 */
function requestUrl(req: IncomingMessage, publicUrl?: string): string | undefined {
  const target = req.url ?? '';
  if (target.split('?', 1)[0]?.includes('\\')) return undefined;
  try {
    const absolute = /^https?:\/\//i.test(target) ? new URL(target) : undefined;
    if (!absolute && !target.startsWith('/')) return undefined;
    if (publicUrl !== undefined)
      return new URL(absolute ? `${absolute.pathname}${absolute.search}` : target, publicUrl).href;
    if (absolute) return absolute.href;
    const host = req.headers.host;
    if (!host) return undefined;
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
