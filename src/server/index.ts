/**
 * The server's one public entry: open a store (an SQLite data file, or a PostgreSQL database),
 * and start listening. Used by `pm serve` and by the tests. The CLI's embedded default imports
 * embedded.ts by itself, not through here, so that a CLI run does not load node:http's server;
 * the PostgreSQL store (and its driver) is imported only when a database is given.
 */
import type { AddressInfo } from 'node:net';
import type { LogOptions, ServerLog } from './access-log.js';
import { createApi } from './api.js';
import { DEFAULT_QUERY_BUDGET_MS } from './budget.js';
import { createHttpServer, type Door, type HttpOptions } from './http.js';
import type { MetricsServer, MetricsSources } from './metrics.js';
import type { Observer } from './observe.js';
import { FixedWindowRateLimiter, type RateLimit, type RateLimiter } from './ratelimit.js';
import { bootstrap, openStore, uploadDirOf } from './datafile.js';
import type { PgOptions } from './postgres/db.js';
import type { PostgresStore } from './postgres/index.js';
import type { SqliteStore } from './sqlite/index.js';
import { ReaderPool, withReaders } from './sqlite/readers.js';
import type { Store } from './store.js';

export { parseRateLimit, type RateLimit } from './ratelimit.js';
export { bootstrap, openStore, readLocalToken } from './datafile.js';
export type { SqliteStore, SqliteTuning } from './sqlite/index.js';
export type { PostgresStore } from './postgres/index.js';
export type { Store } from './store.js';

interface CommonOptions<S extends Store> extends HttpOptions {
  readonly host?: string;
  readonly port?: number;
  readonly rateLimit?: RateLimit;
  readonly now?: () => number;
  /** An already open store to serve (tests); the server then does not close it. */
  readonly store?: S;
  /**
   * The time a list may take (ms, default DEFAULT_QUERY_BUDGET_MS): then it is stopped and
   * answered 422 naming its filters (budget.ts). On PostgreSQL, every statement's timeout too.
   */
  readonly queryBudgetMs?: number;
  /** The largest attachment taken (bytes; default 100 MiB): a larger upload is answered 413. */
  readonly maxAttachmentBytes?: number | undefined;
  /** The most bytes of files an account may keep, its uploads under way included: past it an upload is 413 or 507. */
  readonly quotaBytes?: number | undefined;
  /**
   * Where an upload's bytes may wait until they are written with its record (spool.ts): on
   * PostgreSQL, an upload no connection is spared for (by default the system's temporary
   * directory); SQLite writes uploads into its data file as they come (checked all the same).
   */
  readonly uploadDir?: string | undefined;
  /**
   * The log (access-log.ts): a line per request at level info, server errors always, with their
   * request ids. Without it, errors go to `logError` alone.
   */
  readonly log?: LogOptions | undefined;
  /** Serve `GET /metrics` on this address (metrics.ts), apart from the API's. */
  readonly metrics?: { readonly host: string; readonly port: number } | undefined;
}

export interface ServerOptions extends CommonOptions<SqliteStore> {
  readonly dataFile: string;
  /**
   * Reader threads that answer lists, each with its own connection to the data file, so that a
   * long list does not hold up other requests (0: lists on the event loop, as the embedded default).
   */
  readonly readers?: number;
  /** Records an account must have in a table for its lists to go to a reader (default 20,000). */
  readonly threadedFrom?: number;
}

export interface PostgresServerOptions extends CommonOptions<PostgresStore> {
  /** The PostgreSQL database's URL (postgres://user:password@host:port/db?sslmode=...). */
  readonly database: string;
  /** Connections to the database held at most (default DEFAULT_POOL_SIZE). */
  readonly poolSize?: number;
}

export interface RunningServer<S extends Store = SqliteStore> {
  readonly url: string;
  readonly port: number;
  readonly store: S;
  /** The token created on this start, when the data file was new (never on PostgreSQL). */
  readonly createdToken: string | undefined;
  /** Whether this start created the first account (a new data file or database). */
  readonly createdAccount: boolean;
  /** Where `GET /metrics` is served, when it is. */
  readonly metricsUrl: string | undefined;
  /**
   * Stops: no new connection is accepted, `GET /health` answers 503 on those open, requests in
   * flight are answered (their connections then closed) for up to `graceMs` (default 2 s), then
   * every connection is closed, and the store.
   */
  close(graceMs?: number): Promise<void>;
}

/** Opens the database (connecting, migrating), and makes the first account on an empty one. */
export async function openPostgres(url: string, opts: Omit<PgOptions, 'url'> = {}): Promise<PostgresStore> {
  const { openPostgresStore } = await import('./postgres/index.js');
  return openPostgresStore({ url, ...opts });
}

// The data file's overload last: ReturnType<typeof startServer> is the usual one.
export async function startServer(opts: PostgresServerOptions): Promise<RunningServer<PostgresStore>>;
export async function startServer(opts: ServerOptions): Promise<RunningServer<SqliteStore>>;
export async function startServer(
  opts: ServerOptions | PostgresServerOptions,
): Promise<RunningServer<SqliteStore> | RunningServer<PostgresStore>> {
  return 'database' in opts ? startOnPostgres(opts) : startOnFile(opts);
}

/** How often a SQLite server looks for uploads another process left unfinished in its data file. */
const SWEEP_EVERY_MS = 10 * 60 * 1000;
/** How long an upload's chunks stay untouched before they are taken for left (longer than any request takes). */
const STRAY_UPLOAD_MS = 25 * 60 * 60 * 1000;

async function startOnFile(opts: ServerOptions): Promise<RunningServer<SqliteStore>> {
  const store = opts.store ?? openStore(opts.dataFile, opts.now);
  let createdToken: string | undefined;
  try {
    // A damaged file is refused at the start, not answered with a 500 to every request.
    const problem = opts.store ? undefined : store.quickCheck();
    if (problem) throw new Error(`the data file ${opts.dataFile} is damaged (${problem}); restore it from a backup`);
    createdToken = bootstrap(store);
  } catch (e) {
    if (!opts.store) store.close();
    throw e;
  }
  const limiter = opts.rateLimit ? new FixedWindowRateLimiter(opts.rateLimit, opts.now) : undefined;
  const feedLimiter = opts.rateLimit ? new FixedWindowRateLimiter<string>(opts.rateLimit, opts.now) : undefined;
  const pool = opts.readers && opts.dataFile !== ':memory:' ? new ReaderPool(opts.dataFile, opts.readers) : undefined;
  const answering = pool ? withReaders(store, pool, opts.threadedFrom) : store;
  if (pool) store.checkpointer = () => pool.checkpoint();
  const started = { store, createdToken, createdAccount: createdToken !== undefined };
  const gauges = pool && { readers: () => ({ size: pool.size, busy: pool.busy }) };
  const uploadDir = opts.uploadDir ?? uploadDirOf(opts.dataFile);
  // What a process killed during an upload left is deleted now, and what one left since, on a timer.
  await store.sweepUploads(0);
  const sweeper = setInterval(() => void store.sweepUploads(STRAY_UPLOAD_MS).catch(() => {}), SWEEP_EVERY_MS);
  sweeper.unref();
  const limiters = { rateLimiter: limiter, feedLimiter };
  return listen({ ...opts, uploadDir }, started, answering, limiters, gauges, async () => {
    clearInterval(sweeper);
    store.checkpointer = undefined;
    await pool?.close();
  });
}

async function startOnPostgres(opts: PostgresServerOptions): Promise<RunningServer<PostgresStore>> {
  const statementTimeoutMs = opts.queryBudgetMs ?? DEFAULT_QUERY_BUDGET_MS;
  const store =
    opts.store ?? (await openPostgres(opts.database, { poolSize: opts.poolSize, now: opts.now, statementTimeoutMs }));
  const createdAccount = await store.ensureAccount().catch(async (e) => {
    if (!opts.store) await store.close();
    throw e;
  });
  const { FEEDS, PgRateLimiter } = await import('./postgres/ratelimit.js');
  const { rateLimit: rule, now } = opts;
  const limiters = {
    rateLimiter: rule && new PgRateLimiter(store.db, rule, now),
    feedLimiter: rule && new PgRateLimiter<string>(store.db, rule, now, FEEDS),
  };
  const { pool } = store.db;
  const gauges = {
    postgresPool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
  return listen(opts, { store, createdToken: undefined, createdAccount }, store, limiters, gauges);
}

async function listen<S extends Store>(
  opts: CommonOptions<S>,
  started: Pick<RunningServer<S>, 'store' | 'createdToken' | 'createdAccount'>,
  /** What the API asks: the store itself, or the store with lists answered elsewhere. */
  answering: Store,
  /**
   * With a rate limit, its two counters: each user's API budget, and each calendar feed's reads
   * (by the same rule, apart).
   */
  limiters: { readonly rateLimiter?: RateLimiter | undefined; readonly feedLimiter?: RateLimiter<string> | undefined },
  /** What the metrics read of the store: its pool, or its reader threads. */
  gauges: Omit<MetricsSources, 'connections'> | undefined,
  /** Closes what else the store's start opened (reader threads), after the store. */
  closeMore?: () => Promise<void>,
): Promise<RunningServer<S>> {
  const uploadDir = opts.uploadDir ?? (await import('node:os')).tmpdir();
  // An upload directory that cannot take a file is said at the start, not to each upload.
  try {
    await (await (await import('./spool.js')).Spool.open(uploadDir)).close();
  } catch (e) {
    if (!opts.store) await started.store.close();
    await closeMore?.();
    const code = (e as { code?: unknown }).code;
    const why =
      code === 'ENOENT'
        ? 'there is no such folder'
        : code === 'ENOTDIR'
          ? 'it is not a folder'
          : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
            ? 'it cannot be written'
            : (e as Error).message;
    throw new Error(`uploads cannot wait in ${uploadDir} (the upload folder): ${why}`);
  }
  const log: ServerLog | undefined = opts.log && (await (await import('./access-log.js')).openLog(opts.log));
  let metrics: MetricsServer | undefined;
  const closeStore = async () => {
    await metrics?.close();
    if (!opts.store) await started.store.close();
    await closeMore?.();
    log?.flush();
  };
  const api = createApi({
    store: answering,
    now: opts.now,
    ...limiters,
    logError: (err, req) => {
      opts.logError?.(err);
      log?.error(err, req?.requestId);
    },
    listBudgetMs: opts.queryBudgetMs ?? DEFAULT_QUERY_BUDGET_MS,
    maxAttachmentBytes: opts.maxAttachmentBytes,
    uploadDir,
    quotaBytes: opts.quotaBytes,
  });
  const host = opts.host ?? '127.0.0.1';
  const door: Door = { draining: false };
  const server = createHttpServer(api, { ...opts, door });
  if (opts.metrics) {
    const connections = () =>
      new Promise<number>((resolve, reject) => server.getConnections((e, n) => (e ? reject(e) : resolve(n))));
    try {
      const { startMetrics } = await import('./metrics.js');
      metrics = await startMetrics(opts.metrics.host, opts.metrics.port, { ...gauges, connections });
    } catch (e) {
      await closeStore();
      throw e;
    }
  }
  door.observer = observerOf([log, metrics?.observer].filter((o) => o !== undefined));
  await new Promise<void>((resolve, reject) => {
    const fail = (err: Error) => {
      void closeStore().finally(() => reject(err));
    };
    server.once('error', fail);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shown}:${port}`,
    port,
    ...started,
    metricsUrl: metrics?.url,
    close: (graceMs = 2000) => {
      closing ??= new Promise<void>((resolve) => {
        door.draining = true;
        // Stops listening and closes the idle connections (Node's close); those with a request in
        // hand are answered, and closed after their answers (Connection: close).
        server.close(() => {
          clearTimeout(grace);
          void closeStore().finally(resolve);
        });
        const grace = setTimeout(() => server.closeAllConnections(), graceMs).unref();
      });
      return closing;
    },
  };
}

/** The observers the door reports to, as one; none when there is none. */
function observerOf(observers: readonly Observer[]): Observer | undefined {
  if (observers.length <= 1) return observers[0];
  return {
    started: (id, method, target) => {
      for (const o of observers) o.started?.(id, method, target);
    },
    answered: (record) => {
      for (const o of observers) o.answered(record);
    },
  };
}
