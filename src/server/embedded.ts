/**
 * The embedded default without a socket: the same app (routes, auth, validation, SQL) answering
 * the CLI's requests in-process, through a dispatcher the HTTP client uses like any other. It
 * saves a CLI run the cost of an HTTP server, a client connection pool and a round trip.
 */
import { Readable } from 'node:stream';
import { createApp } from './app.js';
import { bootstrap, openStore, readLocalToken, type Store } from './store.js';

/** The origin requests to the embedded default are addressed to (never looked up, never dialled). */
export const EMBEDDED_ORIGIN = 'http://localhost';

interface RequestOptions {
  readonly origin?: string | URL;
  readonly path: string;
  readonly method: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly signal?: AbortSignal;
}

/** The part of undici's Dispatcher the client uses. */
export interface InProcessDispatcher {
  request(opts: RequestOptions): Promise<{ statusCode: number; headers: Record<string, string>; body: Readable }>;
  close(): Promise<void>;
}

export interface Embedded {
  readonly url: string;
  readonly token: string;
  readonly store: Store;
  readonly dispatcher: InProcessDispatcher;
  close(): Promise<void>;
}

export function openEmbedded(dataFile: string): Embedded {
  const store = openStore(dataFile);
  try {
    const token = bootstrap(store) ?? readLocalToken(dataFile) ?? (bootstrap(store, { ensure: true }) as string);
    const app = createApp({ repo: store.repo });
    const dispatcher: InProcessDispatcher = {
      async request(opts) {
        opts.signal?.throwIfAborted();
        const url = `${EMBEDDED_ORIGIN}${opts.path}`;
        const res = await app.fetch(
          new Request(url, {
            method: opts.method,
            headers: opts.headers ?? {},
            ...(opts.body !== undefined ? { body: opts.body } : {}),
          }),
        );
        const headers: Record<string, string> = {};
        res.headers.forEach((v, k) => {
          headers[k] = v;
        });
        const bytes = Buffer.from(await res.arrayBuffer());
        return { statusCode: res.status, headers, body: Readable.from(bytes.length ? [bytes] : []) };
      },
      async close() {},
    };
    return { url: EMBEDDED_ORIGIN, token, store, dispatcher, close: async () => store.close() };
  } catch (e) {
    store.close();
    throw e;
  }
}
