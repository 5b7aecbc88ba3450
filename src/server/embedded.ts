/**
 * The embedded default without a socket: the API's request handling (routes, auth, validation,
 * SQL) answering the CLI's requests in-process, through a dispatcher the HTTP client uses like any
 * other. It saves a CLI run the cost of an HTTP server, a client connection pool and a round trip;
 * and, calling the handling directly, that of loading node:http's server and Node's fetch classes.
 */
import { createApi } from './api.js';
import { RequestBody } from './body.js';
import { bootstrap, openStore, readLocalToken, uploadDirOf } from './datafile.js';
import type { Store } from './store.js';
import { mark } from '../core/timing.js';
import { ALL_SCOPES } from '../resources/index.js';

/** How long requests answered in-process may keep the event loop from a turn (Ctrl-C waits that long at most). */
const TURN_MS = 20;

/** The origin requests to the embedded default are addressed to (never looked up, never dialled). */
const EMBEDDED_ORIGIN = 'http://localhost';

interface RequestOptions {
  readonly origin?: string | URL;
  readonly path: string;
  readonly method: string;
  readonly headers?: Record<string, string>;
  /** JSON text, or a file's bytes as they come (an upload: its length in Content-Length, when known). */
  readonly body?: string | AsyncIterable<Uint8Array>;
  readonly signal?: AbortSignal;
}

/**
 * An answer's body as the client reads it: its chunks, and destroy() to stop early. Not a stream
 * (node:stream's async iteration costs a CLI run more to load than the answer takes to read).
 */
interface InProcessBody extends AsyncIterable<Buffer> {
  destroy(): void;
}

/** The part of undici's Dispatcher the client uses. */
export interface InProcessDispatcher {
  request(opts: RequestOptions): Promise<{ statusCode: number; headers: Record<string, string>; body: InProcessBody }>;
  close(): Promise<void>;
}

export interface Embedded {
  readonly url: string;
  /**
   * The data file's token (read from beside it, or made when it is missing): for a request that
   * is to be authenticated as over HTTP. A request without one is the owner's.
   */
  readonly token: string;
  readonly store: Store;
  readonly dispatcher: InProcessDispatcher;
  close(): Promise<void>;
}

/** A body of bytes read as they come: of its declared length, or of a length to be seen (chunked). */
function streamed(bytes: AsyncIterable<Uint8Array>, length: string | undefined): RequestBody {
  return new RequestBody(length === undefined ? undefined : Number(length), () => bytes);
}

export function openEmbedded(dataFile: string): Embedded {
  const store = openStore(dataFile);
  mark('store opened');
  try {
    // The first use of a data file makes its account, and the token beside it (for `pm serve`).
    let owner = store.firstUser();
    if (!owner) {
      bootstrap(store);
      owner = store.firstUser();
    }
    if (!owner) throw new Error('the data file has no account');
    // In-process, a request without a token is the data file's owner's, with every scope: the
    // file is theirs alone (mode 0600), and a token would only be read from beside it, hashed
    // and looked up on every run to say the same.
    const principal = { userId: owner.userId, accountId: owner.accountId, scopes: new Set(ALL_SCOPES) };
    mark('owner read');
    const api = createApi({ store, uploadDir: uploadDirOf(dataFile) });
    let turned = Date.now();
    const dispatcher: InProcessDispatcher = {
      async request(opts) {
        // A turn of the event loop, as a socket would take, once TURN_MS have passed without
        // one: without it, a run of requests answered from memory never lets a signal handler
        // run, and Ctrl-C waits for the whole run (a list --all, a bulk write) to end. A run of
        // one request (most) takes none, and so never loads the timers it would need.
        if (Date.now() - turned >= TURN_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          turned = Date.now();
        }
        opts.signal?.throwIfAborted();
        // Header names are case-insensitive, and the handling asks for them in lower case.
        const headers = new Map(Object.entries(opts.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
        const res = await api({
          method: opts.method,
          url: `${EMBEDDED_ORIGIN}${opts.path}`,
          header: (name) => headers.get(name),
          body:
            opts.body === undefined || typeof opts.body === 'string'
              ? RequestBody.of(Buffer.from(opts.body ?? ''))
              : streamed(opts.body, headers.get('content-length')),
          ...(headers.has('authorization') ? {} : { principal }),
        });
        // Lower case, as undici gives them.
        const answer = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k.toLowerCase(), v]));
        let bytes = res.body === undefined ? [] : [Buffer.from(res.body)];
        // An attachment's bytes are read as they are taken, as over a socket.
        let stream = res.stream;
        const body: InProcessBody = {
          async *[Symbol.asyncIterator]() {
            yield* bytes;
            if (stream)
              for await (const chunk of stream) {
                if (!stream) return;
                yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
              }
          },
          destroy() {
            bytes = [];
            stream = undefined;
          },
        };
        return { statusCode: res.status, headers: answer, body };
      },
      async close() {},
    };
    let token: string | undefined;
    return {
      url: EMBEDDED_ORIGIN,
      get token() {
        token ??= readLocalToken(dataFile) ?? (bootstrap(store, { ensure: true }) as string);
        return token;
      },
      store,
      dispatcher,
      close: async () => store.close(),
    };
  } catch (e) {
    store.close();
    throw e;
  }
}
