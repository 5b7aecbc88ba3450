/**
 * The byte path of the HTTP client, beside the JSON one (http.ts): a request whose body is a
 * stream of bytes (an upload), and an answer read as a stream of bytes (a download), neither ever
 * held whole. It shares the client's connection pool, token, pacing and error reading; its own
 * rules: no deadline for the whole exchange (a big file takes as long as it takes; undici's
 * timeouts still end a connection that goes quiet), an upload is retried only when it was never
 * sent (or, carrying its idempotency key, to a server that keeps keys, when its file can be read
 * again), and a download only before its first byte.
 */
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { readErrorBody } from './error-body.js';
import { HttpStatusError, NetworkError, ProtocolError } from './errors.js';
import type { HttpClient } from './http.js';
import { excerpt } from './outcome.js';
import { abortReason, parseRetryAfter, realClock } from './pacer.js';
import { backoffMs, classify, RETRY_STATUSES } from './retry.js';

/** Bytes to send: made anew for each attempt (a file opened again), or once (standard input: never retried). */
interface ByteBody {
  readonly open: () => AsyncIterable<Uint8Array>;
  /** Whether `open` can be called again for a retry. */
  readonly again: boolean;
  readonly type: string;
  /** Its length, when known (a file's size): sent as Content-Length, else the body is chunked. */
  readonly length?: number | undefined;
}

/** An answer whose body is read as it comes. */
interface ByteAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: AsyncIterable<Uint8Array>;
  /** Stops reading it (the connection is dropped). */
  destroy(): void;
}

/** The most of an error answer read to tell what it says. */
const ERROR_BYTES = 64 * 1024;

/**
 * Sends `method path` with `body` (or none), and answers a 2xx with its body unread; any other
 * status is thrown as the JSON path throws it (HttpStatusError with the server's message).
 */
export async function exchangeBytes(
  http: HttpClient,
  method: 'GET' | 'POST',
  path: string,
  opts: {
    query?: URLSearchParams;
    body?: ByteBody;
    headers?: Record<string, string>;
    /**
     * The most bytes the answer's body may have (a file's size, as its record says): a
     * Content-Length above it is refused before anything is read, and a body that grows past it
     * stops with a ProtocolError before the chunk that crosses it is handed on.
     */
    most?: number;
  } = {},
): Promise<ByteAnswer> {
  const url = http.url(path);
  // An upload is a create: its key, the same on every attempt.
  const key = method === 'POST' ? http.freshKey() : undefined;
  /** Whether a request that may have been done may be sent again: its key kept by the server. */
  const keyed = async () => key !== undefined && (await http.keepsKeys());
  if (opts.query) for (const [k, v] of opts.query) url.searchParams.append(k, v);
  const { debug, signal } = http.options;
  const max = http.policy.retries + 1;
  for (let attempt = 1; ; attempt++) {
    const last = attempt >= max;
    const replayable = !opts.body || opts.body.again;
    const ticket = http.pacer ? await http.pacer.acquire(signal) : undefined;
    debug?.(`> ${method} ${url.pathname}${url.search}${attempt > 1 ? `  (attempt ${attempt} of ${max})` : ''}`);
    let res: Dispatcher.ResponseData;
    try {
      const headers: Record<string, string> = { ...http.headers(false, false, key), accept: '*/*', ...opts.headers };
      if (opts.body) {
        headers['content-type'] = opts.body.type;
        if (opts.body.length !== undefined) headers['content-length'] = String(opts.body.length);
      }
      const dispatcher = await http.dispatcherOf();
      res = await dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method,
        headers,
        // undici takes any async iterable of bytes as a body (its types say a Readable).
        ...(opts.body ? { body: opts.body.open() as unknown as Readable } : {}),
        ...(signal ? { signal } : {}),
      });
    } catch (e) {
      if (ticket) http.pacer?.release(ticket);
      if (signal?.aborted) throw abortReason(signal);
      const f = classify(e);
      debug?.(`* ${method} ${url.pathname}: ${f.reason}`);
      // An upload goes again only when none of it went; a download, before it began.
      if (!last && f.transient && replayable && (method === 'GET' || f.sent === 'no' || (await keyed()))) {
        await pause(http, attempt, f.reason);
        continue;
      }
      const message = `${f.sent === 'no' ? 'could not reach' : 'no answer from'} ${url.origin}: ${f.reason}`;
      throw Object.assign(new NetworkError(message, f.code, method, f.sent, f.reason), { attempts: attempt });
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers))
      if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
    const status = res.statusCode;
    if (ticket) http.pacer?.release(ticket, { status, headers });
    debug?.(`< ${status}`);
    const body = res.body as unknown as AsyncIterable<Uint8Array> & { destroy(): void };
    if (status >= 200 && status < 300) {
      const destroy = () => body.destroy();
      if (opts.most === undefined) return { status, headers, body, destroy };
      const said = headers['content-length'];
      if (said !== undefined && Number(said) > opts.most) {
        destroy();
        throw new ProtocolError(`the answer says it has ${said} bytes, more than the ${opts.most} expected`);
      }
      return { status, headers, body: bounded(body, opts.most), destroy };
    }
    const text = await readSome(body);
    if (RETRY_STATUSES.has(status) && !last && replayable && (method === 'GET' || status === 429 || (await keyed()))) {
      const after = parseRetryAfter(headers['retry-after'], Date.now());
      if (after === undefined || after <= http.policy.maxRetryAfterMs) {
        await pause(http, attempt, String(status), after);
        continue;
      }
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const said = readErrorBody(status, parsed, text, excerpt);
    const response = { status, headers, body: parsed, text, url: url.toString() };
    if (status < 400)
      throw new ProtocolError(`the server answered ${status}; pm does not follow redirects, so nothing was done`);
    throw Object.assign(new HttpStatusError(status, said.message, response, said.fields), { attempts: attempt });
  }
}

/** `body` as it comes, stopped (a ProtocolError) before a chunk that would take it past `most` bytes. */
async function* bounded(body: AsyncIterable<Uint8Array>, most: number): AsyncGenerator<Uint8Array> {
  let got = 0;
  for await (const chunk of body) {
    got += chunk.byteLength;
    if (got > most) throw new ProtocolError(`the answer has more than the ${most} bytes expected`);
    yield chunk;
  }
}

/** The first ERROR_BYTES of an answer, as text; the rest is dropped. */
async function readSome(body: AsyncIterable<Uint8Array> & { destroy(): void }): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size >= ERROR_BYTES) {
        body.destroy();
        break;
      }
    }
  } catch {
    // What arrived is what there is to tell.
  }
  return Buffer.concat(chunks).subarray(0, ERROR_BYTES).toString('utf8');
}

async function pause(http: HttpClient, attempt: number, why: string, ms?: number): Promise<void> {
  const wait = ms ?? backoffMs(attempt, http.policy, http.options.random);
  http.options.debug?.(`* retrying after ${why}: waiting ${(wait / 1000).toFixed(2)}s`);
  await (http.options.clock ?? realClock).sleep(wait, http.options.signal);
}
