/**
 * Starts the real server (through its one public entry, startServer) on an ephemeral loopback
 * port, over a fresh data file in a temporary directory, with a clock the test controls; or, with
 * `inProcess`, the same API core (createApi) on the same kind of store, called in-process with
 * the same requests and answers: for tests about what the API answers rather than about HTTP.
 * One server per test file; tests that count records take an account of their own
 * (`newAccount`), so that no test depends on another's records. Every answer is checked against
 * the OpenAPI document (./openapi.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ALL_SCOPES } from '../../src/resources/index.js';
import { type Api as CoreApi, createApi } from '../../src/server/api.js';
import { RequestBody } from '../../src/server/body.js';
import { bootstrap, openStore, type RateLimit, type SqliteStore, startServer } from '../../src/server/index.js';
import { FixedWindowRateLimiter } from '../../src/server/ratelimit.js';
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
export const IN_PROCESS_ORIGIN = 'http://pm.test';

/**
 * The API core called in-process with what `makeApi` would send: the URL as fetch makes it
 * (parsed, percent-encoded where it must be, without its fragment), the headers by lower-case
 * name, a string body without a Content-Type labelled text/plain as fetch labels it; and its
 * answer read as fetch reads one.
 */
export function makeInProcessApi(core: CoreApi, origin: string, defaultToken: string | null): Api {
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
  token2(scopes: readonly string[], name?: string): { token: string; id: number; api: Api };
}

export interface TestServer {
  readonly url: string;
  /** The full-scope token of the data file's first account (the one written beside the file). */
  readonly token: string;
  /** The server's store, on its data file (tests may look at the file through `store.db`). */
  readonly store: SqliteStore;
  readonly clock: Clock;
  readonly dataFile: string;
  /** `api` with the first account's token. */
  readonly api: Api;
  /**
   * Errors the server reported to its log (500s). `close()` fails the file when any are left
   * here, so a test that causes one on purpose empties it.
   */
  readonly loggedErrors: unknown[];
  /** A fresh account with its own user and full-scope token: a clean slate for one test. */
  newAccount(name?: string): Account;
  close(): Promise<void>;
}

export interface TestServerOptions {
  readonly clock?: Clock;
  readonly rateLimit?: RateLimit;
  /**
   * Call the API core in-process rather than over HTTP: `url` is then IN_PROCESS_ORIGIN, which
   * only `api` and the accounts' `api` can reach.
   */
  readonly inProcess?: boolean;
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'pm-server-test-'));
  const dataFile = join(dir, 'pm.db');
  const clock = opts.clock ?? new Clock();
  const errors: unknown[] = [];
  const store = openStore(dataFile, clock.now);
  const logError = (e: unknown) => errors.push(e);
  let url: string;
  let token: string | undefined;
  let apiFor: (token: string) => Api;
  let stop: () => Promise<void>;
  if (opts.inProcess) {
    token = bootstrap(store);
    const core = createApi({
      store,
      now: clock.now,
      ...(opts.rateLimit ? { rateLimiter: new FixedWindowRateLimiter(opts.rateLimit, clock.now) } : {}),
      logError,
    });
    url = IN_PROCESS_ORIGIN;
    apiFor = (tok) => makeInProcessApi(core, url, tok);
    stop = async () => {};
  } else {
    const server = await startServer({
      dataFile,
      store,
      port: 0,
      now: clock.now,
      ...(opts.rateLimit ? { rateLimit: opts.rateLimit } : {}),
      logError,
    });
    token = server.createdToken;
    url = server.url;
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
    token2(scopes, name = 'limited') {
      const t = store.createToken(userId, name, scopes);
      return { ...t, api: apiFor(t.token) };
    },
  });
  return {
    url,
    token,
    store,
    clock,
    dataFile,
    api: apiFor(token),
    loggedErrors: errors,
    newAccount(name = `account ${++n}`) {
      const { accountId, userId } = store.createAccount(name);
      return account(accountId, userId, store.createToken(userId, 'test', ALL_SCOPES).token);
    },
    async close() {
      await stop();
      store.close();
      rmSync(dir, { recursive: true, force: true });
      if (errors.length) throw new Error(`the server logged unexpected errors: ${errors.map(String).join('; ')}`);
    },
  };
}
