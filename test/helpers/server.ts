/**
 * Starts the real server (through its one public entry, startServer) on an ephemeral loopback
 * port, over a fresh data file in a temporary directory, with a clock the test controls.
 * One server per test file; tests that count records take an account of their own
 * (`newAccount`), so that no test depends on another's records.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ALL_SCOPES } from '../../src/resources/index.js';
import { openStore, type RateLimit, type SqliteStore, startServer } from '../../src/server/index.js';

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
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
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
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'pm-server-test-'));
  const dataFile = join(dir, 'pm.db');
  const clock = opts.clock ?? new Clock();
  const errors: unknown[] = [];
  const store = openStore(dataFile, clock.now);
  const server = await startServer({
    dataFile,
    store,
    port: 0,
    now: clock.now,
    ...(opts.rateLimit ? { rateLimit: opts.rateLimit } : {}),
    logError: (e) => errors.push(e),
  });
  const token = server.createdToken;
  if (!token) throw new Error('startServer did not create a token for a new data file');
  const { url } = server;
  let n = 0;
  const account = (accountId: number, userId: number, tok: string): Account => ({
    accountId,
    userId,
    token: tok,
    api: makeApi(url, tok),
    token2(scopes, name = 'limited') {
      const t = store.createToken(userId, name, scopes);
      return { ...t, api: makeApi(url, t.token) };
    },
  });
  return {
    url,
    token,
    store,
    clock,
    dataFile,
    api: makeApi(url, token),
    loggedErrors: errors,
    newAccount(name = `account ${++n}`) {
      const { accountId, userId } = store.createAccount(name);
      return account(accountId, userId, store.createToken(userId, 'test', ALL_SCOPES).token);
    },
    async close() {
      await server.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
      if (errors.length) throw new Error(`the server logged unexpected errors: ${errors.map(String).join('; ')}`);
    },
  };
}
