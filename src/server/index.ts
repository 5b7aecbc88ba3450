/**
 * The server's one public entry: open a data file, and start listening. Used by `pm serve`, by
 * the CLI's embedded default, and by the tests.
 */
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { ALL_SCOPES } from '../resources/index.js';
import { tokenFileFor } from '../core/paths.js';
import { createApp } from './app.js';
import { type DB, openDatabase } from './db.js';
import { type RateLimit, RateLimiter } from './ratelimit.js';
import { Repository } from './repository.js';

export { parseRateLimit } from './ratelimit.js';
export type { RateLimit } from './ratelimit.js';
export { Repository } from './repository.js';

export interface Store {
  readonly db: DB;
  readonly repo: Repository;
  readonly file: string;
  close(): void;
}

export function openStore(file: string, now: () => number = Date.now): Store {
  const db = openDatabase(file);
  const repo = new Repository(db, now);
  return { db, repo, file, close: () => db.close() };
}

/** Writes a secret to a new file readable by its owner only. */
function writeSecretFile(path: string, content: string): void {
  const fd = openSync(path, 'w', 0o600);
  try {
    writeSync(fd, `${content}\n`);
  } finally {
    closeSync(fd);
  }
}

/**
 * On first use of a data file, creates an account, its first user and a full-scope token, and
 * writes the token beside the data file (mode 0600). Returns the token when one was written.
 * With `ensure`, also writes a fresh token when the file beside the data is missing.
 */
export function bootstrap(store: Store, opts: { ensure?: boolean } = {}): string | undefined {
  const tokenFile = tokenFileFor(store.file);
  const made = store.repo.write(() => {
    const first = store.repo.firstUser();
    if (first && (!opts.ensure || existsSync(tokenFile))) return undefined;
    const owner = first ?? store.repo.createAccount('default');
    return store.repo.createToken(owner.userId, first ? 'local (renewed)' : 'local', ALL_SCOPES).token;
  });
  if (made && store.file !== ':memory:') writeSecretFile(tokenFile, made);
  return made;
}

/** Reads the token written beside a data file, if any. */
export function readLocalToken(dataFile: string): string | undefined {
  try {
    const t = readFileSync(tokenFileFor(dataFile), 'utf8').trim();
    return t || undefined;
  } catch {
    return undefined;
  }
}

export interface ServerOptions {
  readonly dataFile: string;
  readonly host?: string;
  readonly port?: number;
  readonly rateLimit?: RateLimit;
  readonly now?: () => number;
  readonly logError?: (err: unknown) => void;
  /** An already open store to serve (tests); the server then does not close it. */
  readonly store?: Store;
}

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly store: Store;
  /** The token created on this start, when the data file was new. */
  readonly createdToken: string | undefined;
  close(): Promise<void>;
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const now = opts.now ?? Date.now;
  const store = opts.store ?? openStore(opts.dataFile, now);
  const createdToken = bootstrap(store);
  const app = createApp({
    repo: store.repo,
    now,
    ...(opts.rateLimit ? { rateLimiter: new RateLimiter(opts.rateLimit, now) } : {}),
    ...(opts.logError ? { logError: opts.logError } : {}),
  });
  const host = opts.host ?? '127.0.0.1';
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: host, port: opts.port ?? 0 }, () => resolve(s));
    s.once('error', reject);
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
        if ('closeIdleConnections' in server) server.closeIdleConnections();
        server.close(() => {
          if (!opts.store) store.close();
          resolve();
        });
        if ('closeAllConnections' in server) setTimeout(() => server.closeAllConnections(), 2000).unref();
      }),
  };
}
