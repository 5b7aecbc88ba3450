/**
 * `pm serve --metrics-port`: `GET /metrics` in the Prometheus text format (prom-client), on a port
 * of its own (loopback unless --metrics-host says otherwise), never on the API's. The names are
 * listed in docs/deploy.md. Loaded only by `pm serve`, when metrics are asked for.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Observer } from './observe.js';

/** Where the gauges read the server's state when scraped. */
export interface MetricsSources {
  /** Open connections to the API's port. */
  connections(): Promise<number>;
  /** The PostgreSQL pool: its connections, those idle, and the requests waiting for one. */
  readonly postgresPool?: (() => { total: number; idle: number; waiting: number }) | undefined;
  /** The reader threads (SQLite): how many, and how many are answering a list. */
  readonly readers?: (() => { size: number; busy: number }) | undefined;
}

export interface MetricsServer {
  readonly url: string;
  /** Counts each request the API's door answers. */
  readonly observer: Observer;
  close(): Promise<void>;
}

/** The methods the API answers; any other is counted as `other`, so a client cannot add labels. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']);
/** Latency buckets (seconds): from a quick read to a list at its 10 s budget. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export async function startMetrics(host: string, port: number, sources: MetricsSources): Promise<MetricsServer> {
  const client = await import('prom-client');
  const register = new client.Registry();
  client.collectDefaultMetrics({ register });
  const registers = [register];
  const requests = new client.Counter({
    name: 'pm_http_requests_total',
    help: 'Requests answered, by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const duration = new client.Histogram({
    name: 'pm_http_request_duration_seconds',
    help: 'Time from a request read to its answer sent, by method and route',
    labelNames: ['method', 'route'] as const,
    buckets: BUCKETS,
    registers,
  });
  const bytesIn = new client.Counter({
    name: 'pm_http_request_body_bytes_total',
    help: 'Bytes of request bodies read, by route',
    labelNames: ['route'] as const,
    registers,
  });
  const bytesOut = new client.Counter({
    name: 'pm_http_response_body_bytes_total',
    help: 'Bytes of answer bodies sent, by route',
    labelNames: ['route'] as const,
    registers,
  });
  const limited = new client.Counter({
    name: 'pm_http_rate_limited_requests_total',
    help: 'Requests refused by the rate limit (429)',
    registers,
  });
  new client.Gauge({
    name: 'pm_http_open_connections',
    help: "Connections open to the API's port",
    registers,
    async collect() {
      this.set(await sources.connections());
    },
  });
  const { postgresPool, readers } = sources;
  if (postgresPool) {
    new client.Gauge({
      name: 'pm_postgres_pool_connections',
      help: 'Connections of the PostgreSQL pool, by state (in_use, idle)',
      labelNames: ['state'] as const,
      registers,
      collect() {
        const p = postgresPool();
        this.set({ state: 'in_use' }, p.total - p.idle);
        this.set({ state: 'idle' }, p.idle);
      },
    });
    new client.Gauge({
      name: 'pm_postgres_pool_waiting',
      help: 'Requests waiting for a connection of the PostgreSQL pool',
      registers,
      collect() {
        this.set(postgresPool().waiting);
      },
    });
  }
  if (readers) {
    new client.Gauge({
      name: 'pm_sqlite_reader_threads',
      help: 'Reader threads that answer lists',
      registers,
      collect() {
        this.set(readers().size);
      },
    });
    new client.Gauge({
      name: 'pm_sqlite_reader_threads_busy',
      help: 'Reader threads answering a list',
      registers,
      collect() {
        this.set(readers().busy);
      },
    });
  }

  const observer: Observer = {
    answered(r) {
      const method = METHODS.has(r.method) ? r.method : 'other';
      const route = r.route ?? 'unmatched';
      requests.inc({ method, route, status: r.status });
      duration.observe({ method, route }, r.durationMs / 1000);
      if (r.bytesIn) bytesIn.inc({ route }, r.bytesIn);
      if (r.bytesOut) bytesOut.inc({ route }, r.bytesOut);
      if (r.status === 429) limited.inc();
    },
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found: the metrics are at /metrics.\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }).end('GET /metrics only.\n');
      return;
    }
    register.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': register.contentType }).end(req.method === 'HEAD' ? '' : text),
      () => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('The metrics could not be collected.\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics`,
    observer,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
