/**
 * The server's one public entry: open a data file, and start listening. Used by `pm serve` and by
 * the tests. The CLI's embedded default imports embedded.ts by itself, not through here, so that a
 * CLI run does not load node:http's server.
 */
import type { AddressInfo } from 'node:net';
import { createApi } from './api.js';
import { createHttpServer } from './http.js';
import { FixedWindowRateLimiter, type RateLimit } from './ratelimit.js';
import { bootstrap, type DataFileStore, openStore } from './datafile.js';
import type { SqliteStore } from './sqlite/index.js';
import { ReaderPool, withReaders } from './sqlite/readers.js';

export { parseRateLimit } from './ratelimit.js';
export type { RateLimit, RateLimiter } from './ratelimit.js';
export { bootstrap, type DataFileStore, openStore, readLocalToken } from './datafile.js';
export type { SqliteStore } from './sqlite/index.js';
export type { ApiRecord, Principal, Store, TokenInfo } from './store.js';

export interface ServerOptions {
  readonly dataFile: string;
  readonly host?: string;
  readonly port?: number;
  readonly rateLimit?: RateLimit;
  readonly now?: () => number;
  readonly logError?: (err: unknown) => void;
  /** The origin clients reach the server at (behind a proxy): links and Location use it, not Host. */
  readonly publicUrl?: string;
  /** Connections held at once (default 256); more are closed as they come. */
  readonly maxConnections?: number;
  /**
   * Reader threads that answer lists, each with its own connection to the data file, so that a
   * long list does not hold up other requests (0: lists on the event loop, as the embedded default).
   */
  readonly readers?: number;
  /** Records an account must have in a table for its lists to go to a reader (default 20,000). */
  readonly threadedFrom?: number;
  /** An already open store to serve (tests); the server then does not close it. */
  readonly store?: DataFileStore;
}

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly store: DataFileStore;
  /** The token created on this start, when the data file was new. */
  readonly createdToken: string | undefined;
  close(): Promise<void>;
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const now = opts.now ?? Date.now;
  const opened = opts.store ? undefined : openStore(opts.dataFile, now);
  const store = opts.store ?? (opened as SqliteStore);
  let createdToken: string | undefined;
  try {
    // A damaged file is refused at the start, not answered with a 500 to every request.
    const problem = opened?.quickCheck();
    if (problem) throw new Error(`the data file ${opts.dataFile} is damaged (${problem}); restore it from a backup`);
    createdToken = bootstrap(store);
  } catch (e) {
    opened?.close();
    throw e;
  }
  const pool = opts.readers && opts.dataFile !== ':memory:' ? new ReaderPool(opts.dataFile, opts.readers) : undefined;
  const api = createApi({
    store: pool ? withReaders(store, pool, opts.threadedFrom) : store,
    now,
    ...(opts.rateLimit ? { rateLimiter: new FixedWindowRateLimiter(opts.rateLimit, now) } : {}),
    ...(opts.logError ? { logError: opts.logError } : {}),
  });
  const host = opts.host ?? '127.0.0.1';
  const server = createHttpServer(api, opts.logError, opts.publicUrl, opts.maxConnections);
  await new Promise<void>((resolve, reject) => {
    const fail = (err: Error) => {
      if (!opts.store) store.close();
      void pool?.close();
      reject(err);
    };
    server.once('error', fail);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  let closed = false;
  return {
    url: `http://${shown}:${port}`,
    port,
    store,
    createdToken,
    close: () =>
      new Promise<void>((resolve) => {
        if (closed) return resolve();
        closed = true;
        server.closeIdleConnections();
        server.close(() => {
          if (!opts.store) store.close();
          void (pool?.close() ?? Promise.resolve()).then(() => resolve());
        });
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      }),
  };
}
