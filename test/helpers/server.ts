/**
 * Starts the real server (through its one public entry, startServer) on an ephemeral loopback
 * port, over a fresh data file in a temporary directory, with a clock the test controls; or, with
 * `inProcess`, the same API core (createApi) on the same kind of store, called in-process with
 * the same requests and answers: for tests about what the API answers rather than about HTTP.
 * One server per test file; tests that count records take an account of their own
 * (`newAccount`), so that no test depends on another's records. Every answer is checked against
 * the OpenAPI document (./openapi.ts).
 *
 * The store is SQLite, or PostgreSQL with `store: 'postgres'` or PM_TEST_STORE=postgres (the
 * `postgres` vitest project runs the server suite so): a database of its own on a private cluster
 * (./postgres.ts). Tests reach the store through `store`, awaiting every answer; `sqlite` is the
 * SQLite store itself, for tests about the data file (SQLite only).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ALL_SCOPES } from '../../src/resources/index.js';
import { type Api as CoreApi, createApi } from '../../src/server/api.js';
import { RequestBody } from '../../src/server/body.js';
import {
  bootstrap,
  openPostgres,
  openStore,
  type PostgresStore,
  type RateLimit,
  type SqliteStore,
  type SqliteTuning,
  type Store,
  startServer,
} from '../../src/server/index.js';
import type { LogOptions } from '../../src/server/access-log.js';
import { FEEDS, PgRateLimiter } from '../../src/server/postgres/ratelimit.js';
import { FixedWindowRateLimiter, type RateLimiter } from '../../src/server/ratelimit.js';
import { inject } from 'vitest';
import { createTestDatabase, type TestDatabase } from './postgres.js';
import { checkAnswer } from './openapi.js';

/** A clock the test sets: every timestamp the server writes comes from it. */
export class Clock {
  ms: number;
  constructor(start: string | number = '2026-01-15T12:00:00Z') {
    this.ms = typeof start === 'number' ? start : Date.parse(start);
  }
  set(at: string | number): void {
    this.ms = typeof at === 'number' ? at : Date.parse(at);
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  readonly now = (): number => this.ms;
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  /** The parsed JSON body, or undefined when the body is empty or not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
  readonly body: any;
  readonly text: string;
}

export interface ApiOptions {
  /** Bearer token; null sends no Authorization header. Defaults to the caller's token. */
  readonly token?: string | null;
  readonly headers?: Record<string, string>;
  /** Sent as is (no JSON encoding, no default Content-Type). */
  readonly raw?: string | Uint8Array;
}

export type Api = (method: string, path: string, body?: unknown, opts?: ApiOptions) => Promise<ApiResponse>;

/** A fetch helper bound to a base URL and a default token. */
export function makeApi(url: string, defaultToken: string | null): Api {
  return async (method, path, body, opts = {}) => {
    const headers: Record<string, string> = {};
    const token = opts.token === undefined ? defaultToken : opts.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let payload: string | Uint8Array | undefined;
    if (opts.raw !== undefined) payload = opts.raw;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    Object.assign(headers, opts.headers ?? {});
    const res = await fetch(url + path, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
    const text = await res.text();
    checkAnswer(method, path, { status: res.status, headers: res.headers, text });
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
}

/** The origin of a server called in-process (never dialled). */
const IN_PROCESS_ORIGIN = 'http://pm.test';

/**
 * The API core called in-process with what `makeApi` would send: the URL as fetch makes it
 * (parsed, percent-encoded where it must be, without its fragment), the headers by lower-case
 * name, a string body without a Content-Type labelled text/plain as fetch labels it; and its
 * answer read as fetch reads one.
 */
function makeInProcessApi(core: CoreApi, origin: string, defaultToken: string | null): Api {
  return async (method, path, body, opts = {}) => {
    const headers = new Map<string, string>();
    const token = opts.token === undefined ? defaultToken : opts.token;
    if (token !== null) headers.set('authorization', `Bearer ${token}`);
    let payload: string | Uint8Array | undefined;
    if (opts.raw !== undefined) payload = opts.raw;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers.set('content-type', 'application/json');
    }
    for (const [k, v] of Object.entries(opts.headers ?? {})) headers.set(k.toLowerCase(), v);
    if (typeof payload === 'string' && !headers.has('content-type'))
      headers.set('content-type', 'text/plain;charset=UTF-8');
    const url = new URL(origin + path);
    url.hash = '';
    const res = await core({
      method,
      url: url.href,
      header: (name) => headers.get(name),
      body: RequestBody.of(typeof payload === 'string' ? Buffer.from(payload) : (payload ?? new Uint8Array())),
    });
    const text = res.body ?? '';
    checkAnswer(method, path, { status: res.status, headers: new Headers(res.headers), text });
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: new Headers(res.headers), body: parsed, text };
  };
}

export interface Account {
  readonly accountId: number;
  readonly userId: number;
  readonly token: string;
  readonly api: Api;
  /** Another token of the same user, with the given scopes. */
  token2(scopes: readonly string[], name?: string): Promise<{ token: string; id: number; api: Api }>;
}

export interface TestServer {
  readonly url: string;
  /** GET /metrics, when the server was started with `metrics`. */
  readonly metricsUrl: string | undefined;
  /** The full-scope token of the data file's first account (the one written beside the file). */
  readonly token: string;
  /** Which store the server runs on. */
  readonly kind: StoreKind;
  /** The server's store (SQLite or PostgreSQL): await its answers. */
  readonly store: Store;
  /** The SQLite store itself, to look at the data file through `sqlite.db`; throws on PostgreSQL. */
  readonly sqlite: SqliteStore;
  /** Runs SQL on the store's database, either store (`?` placeholders): its rows. */
  sql(text: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /** The PostgreSQL store and its database, on PostgreSQL; throws on SQLite. */
  readonly postgres: { readonly store: PostgresStore; readonly database: TestDatabase };
  readonly clock: Clock;
  readonly dataFile: string;
  /** Where the server's uploads wait for their transaction (a folder of the test's own). */
  readonly uploadDir: string;
  /** `api` with the first account's token. */
  readonly api: Api;
  /**
   * Errors the server reported to its log (500s). `close()` fails the file when any are left
   * here, so a test that causes one on purpose empties it.
   */
  readonly loggedErrors: unknown[];
  /** A fresh account with its own user and full-scope token: a clean slate for one test. */
  newAccount(name?: string): Promise<Account>;
  close(): Promise<void>;
}

export type StoreKind = 'sqlite' | 'postgres';

/** The store server tests run on: PM_TEST_STORE (sqlite, the default, or postgres). */
export const TEST_STORE: StoreKind = process.env.PM_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/** Whether the suite runs on PostgreSQL: tests of SQLite's own behaviour skip then (`it.skipIf(ON_POSTGRES)`). */
export const ON_POSTGRES = TEST_STORE === 'postgres';

interface TestServerOptions {
  /** The store (default TEST_STORE). */
  readonly store?: StoreKind;
  readonly clock?: Clock;
  readonly rateLimit?: RateLimit;
  /**
   * Call the API core in-process rather than over HTTP: `url` is then IN_PROCESS_ORIGIN, which
   * only `api` and the accounts' `api` can reach.
   */
  readonly inProcess?: boolean;
  /** How the SQLite store plans its lists (default: as pm serve does). */
  readonly sqliteTuning?: SqliteTuning;
  /** The largest attachment the server takes (bytes; default 100 MiB). */
  readonly maxAttachmentBytes?: number;
  /** The most bytes of files an account may keep (`pm serve --quota`; default none). */
  readonly quotaBytes?: number;
  /** On PostgreSQL, the connections the store's pool holds at most (default: pm serve's). */
  readonly poolSize?: number;
  /** Over HTTP: the access log, and GET /metrics on a port of its own (`metricsUrl`). */
  readonly log?: LogOptions;
  readonly metrics?: boolean;
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const kind = opts.store ?? TEST_STORE;
  const dir = mkdtempSync(join(tmpdir(), 'pm-server-test-'));
  const dataFile = join(dir, 'pm.db');
  const uploadDir = join(dir, 'uploads');
  mkdirSync(uploadDir);
  const clock = opts.clock ?? new Clock();
  const errors: unknown[] = [];
  const logError = (e: unknown) => errors.push(e);
  let sqlite: SqliteStore | undefined;
  let pgStore: PostgresStore | undefined;
  let database: TestDatabase | undefined;
  let token: string | undefined;
  let limiter: RateLimiter | undefined;
  let feedLimiter: RateLimiter<string> | undefined;
  if (kind === 'postgres') {
    database = await createTestDatabase(undefined, sharedAdminUrl());
    pgStore = await openPostgres(database.url, { now: clock.now, poolSize: opts.poolSize });
    await pgStore.ensureAccount();
    const first = await pgStore.firstUser();
    if (!first) throw new Error('no first account on a new database');
    token = (await pgStore.createToken(first.userId, 'local', ALL_SCOPES)).token;
    if (opts.rateLimit) limiter = new PgRateLimiter(pgStore.db, opts.rateLimit, clock.now);
    if (opts.rateLimit) feedLimiter = new PgRateLimiter<string>(pgStore.db, opts.rateLimit, clock.now, FEEDS);
  } else {
    sqlite = openStore(dataFile, clock.now, opts.sqliteTuning);
    if (opts.rateLimit) limiter = new FixedWindowRateLimiter(opts.rateLimit, clock.now);
    if (opts.rateLimit) feedLimiter = new FixedWindowRateLimiter<string>(opts.rateLimit, clock.now);
  }
  const store: Store = (sqlite ?? pgStore) as Store;
  let url: string;
  let metricsUrl: string | undefined;
  let apiFor: (token: string) => Api;
  let stop: () => Promise<void>;
  if (opts.inProcess) {
    if (sqlite) token = bootstrap(sqlite);
    const core = createApi({
      store,
      now: clock.now,
      ...(limiter ? { rateLimiter: limiter, feedLimiter } : {}),
      logError,
      maxAttachmentBytes: opts.maxAttachmentBytes,
      uploadDir,
      quotaBytes: opts.quotaBytes,
    });
    url = IN_PROCESS_ORIGIN;
    apiFor = (tok) => makeInProcessApi(core, url, tok);
    stop = async () => {};
  } else {
    const common = {
      port: 0,
      now: clock.now,
      ...(opts.rateLimit ? { rateLimit: opts.rateLimit } : {}),
      logError,
      maxAttachmentBytes: opts.maxAttachmentBytes,
      uploadDir,
      quotaBytes: opts.quotaBytes,
      log: opts.log,
      metrics: opts.metrics ? { host: '127.0.0.1', port: 0 } : undefined,
    };
    const server = pgStore
      ? await startServer({ ...common, database: (database as TestDatabase).url, store: pgStore })
      : await startServer({ ...common, dataFile, store: sqlite as SqliteStore });
    if (sqlite) token = server.createdToken;
    url = server.url;
    metricsUrl = server.metricsUrl;
    apiFor = (tok) => makeApi(url, tok);
    stop = () => server.close();
  }
  if (!token) throw new Error('bootstrap did not create a token for a new data file');
  let n = 0;
  const account = (accountId: number, userId: number, tok: string): Account => ({
    accountId,
    userId,
    token: tok,
    api: apiFor(tok),
    async token2(scopes, name = 'limited') {
      const t = await store.createToken(userId, name, scopes);
      return { ...t, api: apiFor(t.token) };
    },
  });
  return {
    url,
    metricsUrl,
    token,
    kind,
    store,
    get sqlite(): SqliteStore {
      if (!sqlite) throw new Error('this test looks at the SQLite data file: it runs on SQLite only');
      return sqlite;
    },
    async sql(text, params = []) {
      if (pgStore) return pgStore.db.query(text, params, false);
      return (sqlite as SqliteStore).db.prepare(text).all(...params) as Record<string, unknown>[];
    },
    get postgres() {
      if (!pgStore || !database) throw new Error('this test needs PostgreSQL');
      return { store: pgStore, database };
    },
    clock,
    dataFile,
    uploadDir,
    api: apiFor(token),
    loggedErrors: errors,
    async newAccount(name = `account ${++n}`) {
      const { accountId, userId } = await store.createAccount(name);
      return account(accountId, userId, (await store.createToken(userId, 'test', ALL_SCOPES)).token);
    },
    async close() {
      await stop();
      await store.close();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
      if (errors.length) throw new Error(`the server logged unexpected errors: ${errors.map(String).join('; ')}`);
    },
  };
}

/** The cluster the postgres project's global set-up started (test/helpers/postgres-setup.ts), if any. */
function sharedAdminUrl(): string | undefined {
  try {
    return inject('pmPostgresAdminUrl') || undefined;
  } catch {
    return undefined;
  }
}
