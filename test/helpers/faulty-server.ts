/**
 * A fault-injecting HTTP(S) server on loopback, scripted per test. It stands in front of a real
 * `pm serve` (the upstream) and, for each request, takes the next step of its script: answer
 * as the upstream does, answer something else (503, an HTML page, a 429 with Retry-After), or
 * misbehave at a chosen moment (reset the connection before or after the upstream did the
 * request, stall before the headers or in the middle of the body, cut the body short).
 * Connection-level faults (a reset as soon as the client connects, or in the middle of the TLS
 * handshake) are scripted separately, per connection.
 *
 * Everything it saw is logged, so a test can count what reached the server.
 *
 * The TLS certificate (fixtures/server.pem, for 127.0.0.1, 0.0.0.0, localhost and pm.test) is
 * signed by fixtures/ca.pem, a test CA whose key was thrown away after signing; both are valid
 * for a hundred years.
 */
import { readFileSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import net, { type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';

const FIXTURES = join(import.meta.dirname, '../faults/fixtures');
export const TEST_CA_FILE = join(FIXTURES, 'ca.pem');

export type Step =
  /** Answer with this, without asking the upstream. */
  | {
      readonly kind: 'respond';
      readonly status: number;
      readonly headers?: Record<string, string>;
      readonly body?: string;
    }
  /** Pass to the upstream and answer as it does. */
  | { readonly kind: 'forward' }
  /** Reset the connection as soon as the request's head has arrived: the upstream never sees it. */
  | { readonly kind: 'reset' }
  /** The upstream does the request; then the connection is reset, with no answer. */
  | { readonly kind: 'forward-then-reset' }
  /** Never answer (until the server closes). */
  | { readonly kind: 'stall' }
  /** The upstream does the request; no answer ever comes. */
  | { readonly kind: 'forward-then-stall' }
  /** The upstream's status and headers, half its body, then nothing more. */
  | { readonly kind: 'forward-stall-body' }
  /** The upstream's status and headers (with the full Content-Length), half its body, then the connection closes. */
  | { readonly kind: 'forward-truncate' }
  /** The upstream's answer without Content-Length, delimited by closing the connection half way: truncated JSON. */
  | { readonly kind: 'forward-cut-json' }
  /** The upstream's answer with its body replaced by `body` (and status, when given). */
  | {
      readonly kind: 'forward-replace';
      readonly body: string;
      readonly status?: number;
      readonly headers?: Record<string, string>;
    };

export type ConnectionStep =
  /** Reset at once, before reading anything. */
  | 'reset-on-connect'
  /** Reset when the first bytes arrive (for TLS: the ClientHello, so the handshake never completes). */
  | 'reset-on-first-bytes'
  | 'serve';

export interface LoggedRequest {
  readonly method: string;
  readonly path: string;
  readonly step: Step['kind'];
  readonly headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The upstream's status, when the request was forwarded. */
  upstreamStatus?: number;
}

export interface FaultyServer {
  readonly url: string;
  readonly port: number;
  readonly requests: LoggedRequest[];
  /** Connections accepted, with what was done to each. */
  readonly connections: ConnectionStep[];
  /** Steps for the next requests of this method ('*' for any method), in order. */
  script(method: string, ...steps: Step[]): void;
  /** Steps for the next connections, in order. */
  scriptConnections(...steps: ConnectionStep[]): void;
  /** Requests of a method (and path prefix) seen so far. */
  count(method: string, pathPrefix?: string): number;
  /** Forgets the log and any script left. */
  reset(): void;
  close(): Promise<void>;
}

interface FaultyOptions {
  /** The real server behind; without one, unscripted requests get 404. */
  readonly upstream?: string;
  readonly tls?: boolean;
  /** Listen on this port (to come back on a port closed before). */
  readonly port?: number;
  /** A loopback address to listen on (default 127.0.0.1). */
  readonly host?: string;
}

interface Upstream {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host', 'date']);

/** Passes a request to the upstream; a Location on the upstream is rewritten to `self`, as a reverse proxy does. */
async function forward(upstream: string, self: string, req: IncomingMessage, body: Buffer): Promise<Upstream> {
  const url = new URL(req.url ?? '/', upstream);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP.has(k)) headers[k] = String(v);
  return new Promise((resolve, reject) => {
    const out = http.request(
      url,
      { method: req.method, headers: { ...headers, 'content-length': String(body.length) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const h: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined && !HOP.has(k)) h[k] = Array.isArray(v) ? v.join(', ') : v;
          const origin = new URL(upstream).origin;
          if (h.location?.startsWith(origin)) h.location = self + h.location.slice(origin.length);
          resolve({ status: res.statusCode ?? 502, headers: h, body: Buffer.concat(chunks) });
        });
        res.on('error', reject);
      },
    );
    out.on('error', reject);
    out.end(body);
  });
}

function rawHead(status: number, headers: Record<string, string>): string {
  let head = `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Status'}\r\n`;
  for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
  return `${head}\r\n`;
}

export async function startFaultyServer(opts: FaultyOptions = {}): Promise<FaultyServer> {
  const queues = new Map<string, Step[]>();
  const connectionQueue: ConnectionStep[] = [];
  const requests: LoggedRequest[] = [];
  const connections: ConnectionStep[] = [];
  const sockets = new Set<Socket>();
  let self = '';

  const nextStep = (method: string): Step => {
    const own = queues.get(method);
    if (own?.length) return own.shift() as Step;
    const any = queues.get('*');
    if (any?.length) return any.shift() as Step;
    return opts.upstream ? { kind: 'forward' } : { kind: 'respond', status: 404, body: '{"message":"Not scripted."}' };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const step = nextStep(req.method ?? 'GET');
    const entry: LoggedRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      step: step.kind,
      headers: req.headers,
      body: '',
    };
    requests.push(entry);
    const socket = req.socket;
    if (step.kind === 'reset') {
      socket.resetAndDestroy();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    entry.body = body.toString('utf8');
    if (step.kind === 'stall') return;
    if (step.kind === 'respond') {
      res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
      res.end(step.body ?? '');
      return;
    }
    if (!opts.upstream) throw new Error(`step ${step.kind} needs an upstream`);
    const up = await forward(opts.upstream, self, req, body);
    entry.upstreamStatus = up.status;
    switch (step.kind) {
      case 'forward':
        res.writeHead(up.status, up.headers);
        res.end(up.body);
        return;
      case 'forward-then-reset':
        socket.resetAndDestroy();
        return;
      case 'forward-then-stall':
        return;
      case 'forward-stall-body': {
        const half = Math.max(1, Math.floor(up.body.length / 2));
        socket.write(rawHead(up.status, { ...up.headers, 'content-length': String(up.body.length) }));
        socket.write(up.body.subarray(0, half));
        return;
      }
      case 'forward-truncate': {
        const half = Math.max(1, Math.floor(up.body.length / 2));
        socket.write(rawHead(up.status, { ...up.headers, 'content-length': String(up.body.length) }));
        socket.end(up.body.subarray(0, half));
        return;
      }
      case 'forward-cut-json': {
        const half = Math.max(1, Math.floor(up.body.length / 2));
        socket.write(rawHead(up.status, { ...up.headers, connection: 'close' }));
        socket.end(up.body.subarray(0, half));
        return;
      }
      case 'forward-replace':
        res.writeHead(step.status ?? up.status, { ...up.headers, ...step.headers });
        res.end(step.body);
        return;
    }
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) {
        res.writeHead(599, { 'content-type': 'text/plain' });
        res.end(`faulty server: ${(e as Error).message}`);
      }
    });
  };
  const inner = opts.tls
    ? https.createServer(
        { key: readFileSync(join(FIXTURES, 'server-key.pem')), cert: readFileSync(join(FIXTURES, 'server.pem')) },
        onRequest,
      )
    : http.createServer(onRequest);
  inner.keepAliveTimeout = 5000;
  inner.on('tlsClientError', () => {});
  inner.on('clientError', (_e, socket) => socket.destroy());

  const outer = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    const step = connectionQueue.shift() ?? 'serve';
    connections.push(step);
    if (step === 'reset-on-connect') {
      socket.resetAndDestroy();
      return;
    }
    if (step === 'reset-on-first-bytes') {
      socket.once('data', () => socket.resetAndDestroy());
      return;
    }
    inner.emit('connection', socket);
  });
  await new Promise<void>((resolve, reject) => {
    outer.once('error', reject);
    outer.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (outer.address() as AddressInfo).port;
  self = `${opts.tls ? 'https' : 'http'}://${opts.host ?? '127.0.0.1'}:${port}`;
  return {
    url: self,
    port,
    requests,
    connections,
    script(method, ...steps) {
      const q = queues.get(method) ?? [];
      q.push(...steps);
      queues.set(method, q);
    },
    scriptConnections(...steps) {
      connectionQueue.push(...steps);
    },
    count(method, pathPrefix = '') {
      return requests.filter((r) => r.method === method && r.path.startsWith(pathPrefix)).length;
    },
    reset() {
      requests.length = 0;
      connections.length = 0;
      connectionQueue.length = 0;
      queues.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        outer.close(() => resolve());
      }),
  };
}

/**
 * A forward proxy on loopback that tunnels CONNECT requests. Every tunnel goes to 127.0.0.1 at
 * the port asked for, whatever the host name, so that no name is ever looked up.
 */
export interface TestProxy {
  readonly url: string;
  /** The host:port of each CONNECT, in order. */
  readonly tunnels: string[];
  close(): Promise<void>;
}

export async function startTestProxy(opts: { refuse?: number } = {}): Promise<TestProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((_req, res) => {
    res.writeHead(405, { 'content-type': 'text/plain' });
    res.end('this test proxy only tunnels (CONNECT)');
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    tunnels.push(target);
    if (opts.refuse) {
      client.end(`HTTP/1.1 ${opts.refuse} ${http.STATUS_CODES[opts.refuse]}\r\nProxy-Authenticate: Basic\r\n\r\n`);
      return;
    }
    const port = Number(target.split(':').pop());
    const upstream = net.connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
