/**
 * The thin HTTP wrapper: one keep-alive connection pool per run (undici), JSON in and out,
 * bearer auth, and errors typed by what went wrong. Liberal in what it accepts from a server.
 *
 * Around each request: pacing by the server's rate-limit headers (pacer.ts), shared by every
 * request of the client; timeouts for connecting, for the answer's headers and between chunks of
 * its body; retries with backoff (outcome.ts decides what each attempt comes to, retry.ts how long
 * to wait); proxies from HTTPS_PROXY,
 * HTTP_PROXY and NO_PROXY; extra CAs from NODE_EXTRA_CA_CERTS. TLS certificates are always
 * verified. A token is never sent over plain http to a host other than this machine, nor to any
 * origin but the base URL's. undici is loaded on the first request.
 */
import { createRequire } from 'node:module';
import type { Dispatcher } from 'undici';
import { InsecureTransportError, NetworkError, ProtocolError } from './errors.js';
import { decide, type HttpResponse, type Outcome, type Raw } from './outcome.js';
import { abortReason, Pacer, type PacerClock, realClock } from './pacer.js';
import { BEFORE_REQUEST, backoffMs, classify, type RetryPolicy, retryPolicy } from './retry.js';
import { hideFeedSecrets, printableUrl } from '../core/redact.js';
import { insecureHost, isLoopbackHost, proxyConfigured, redactUrl } from './transport.js';

const DEFAULT_TIMEOUT_SECONDS = 30;
/** The largest answer pm reads: one declared larger is not read at all, one that grows past it is cut off. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export type { HttpResponse } from './outcome.js';

export interface HttpOptions {
  readonly baseUrl: string;
  readonly token?: string | undefined;
  readonly userAgent?: string;
  /** Seconds for connect, for the answer's headers, and between chunks of its body, each. */
  readonly timeout?: number;
  readonly dispatcher?: Dispatcher;
  /**
   * false: no deadline per request. For an in-process dispatcher (the embedded default), which
   * makes each answer synchronously: a timer could not fire before the answer is whole.
   */
  readonly deadline?: false;
  /** Receives a trace of each exchange (Authorization redacted) and of retry and pacing decisions. */
  readonly debug?: ((line: string) => void) | undefined;
  /** Told of waits a person would wonder about (a rate limit's), for a terminal. */
  readonly notice?: ((line: string) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Retries after the first attempt (default 3). */
  readonly retries?: number;
  /** The first retry's backoff ceiling in ms (default 500); each next one doubles. */
  readonly retryBaseMs?: number;
  /** A Retry-After longer than this is not waited for (ms, default 120 s). */
  readonly maxRetryAfterMs?: number;
  /** false: no pacing by rate-limit headers (by default the client paces its requests). */
  readonly pacer?: false;
  /** The environment (proxy variables, NODE_EXTRA_CA_CERTS); never process.env implicitly. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Send the token over plain http to a host that is not this machine. */
  readonly allowInsecureHttp?: boolean;
  /** For tests: the clock of waits, and the random source of jitter. */
  readonly clock?: PacerClock;
  readonly random?: () => number;
  readonly maxResponseBytes?: number;
}

interface RequestOptions {
  readonly query?: URLSearchParams | undefined;
  readonly body?: unknown;
  /** Return a 2xx whose body is unusable with `problem` set, instead of failing. */
  readonly tolerateBody?: boolean;
  /** Headers of this request's own (an Idempotency-Key), over the client's. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

const clip = (s: string) => (s.length > 2000 ? `${s.slice(0, 2000)}... (${s.length} characters)` : s);

let wasmFlagSet = false;

export class HttpClient {
  readonly baseUrl: URL;
  /** Shared by every request of this client: concurrent requests pace as one. */
  readonly pacer: Pacer | undefined;
  readonly policy: RetryPolicy;
  private dispatcher: Dispatcher | undefined;
  private making: Promise<Dispatcher> | undefined;
  private readonly clock: PacerClock;

  constructor(readonly options: HttpOptions) {
    this.baseUrl = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    const host = options.allowInsecureHttp ? undefined : insecureHost(this.baseUrl, options.token);
    if (host !== undefined) throw new InsecureTransportError(host);
    this.dispatcher = options.dispatcher;
    this.clock = options.clock ?? realClock;
    this.policy = retryPolicy({
      retries: options.retries,
      baseMs: options.retryBaseMs,
      maxRetryAfterMs: options.maxRetryAfterMs,
    });
    this.pacer =
      options.pacer === false
        ? undefined
        : new Pacer({
            clock: this.clock,
            maxWaitMs: this.policy.maxRetryAfterMs,
            debug: options.debug,
            notice: options.notice,
          });
  }

  /** The absolute URL of an API path (relative to the base URL, which may carry a prefix). */
  url(path: string): URL {
    return new URL(path.replace(/^\//, ''), this.baseUrl);
  }

  /** Request headers, with the token in place; `redacted` for traces and dry runs. */
  headers(withBody: boolean, redacted = false): Record<string, string> {
    const h: Record<string, string> = { accept: 'application/json', 'user-agent': this.options.userAgent ?? 'pm' };
    if (withBody) h['content-type'] = 'application/json';
    if (this.options.token) h.authorization = redacted ? 'Bearer ***' : `Bearer ${this.options.token}`;
    return h;
  }

  async request(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResponse> {
    const url = /^https?:\/\//i.test(path) ? new URL(path) : this.url(path);
    if (opts.query) for (const [k, v] of opts.query) url.searchParams.append(k, v);
    if (url.origin !== this.baseUrl.origin)
      throw new ProtocolError(
        `refusing to follow the server to ${url.origin}: pm talks only to ${this.baseUrl.origin}`,
      );
    const hasBody = opts.body !== undefined;
    const payload = hasBody ? JSON.stringify(opts.body) : undefined;
    const { debug, signal } = this.options;
    const max = this.policy.retries + 1;
    // Set when an earlier attempt may have been done by the server.
    let uncertain = false;

    for (let attempt = 1; ; attempt++) {
      const ticket = this.pacer ? await this.pacer.acquire(signal) : undefined;
      if (debug) {
        debug(`> ${method} ${printableUrl(url.toString())}${attempt > 1 ? `  (attempt ${attempt} of ${max})` : ''}`);
        for (const [k, v] of Object.entries(this.headers(hasBody, true))) debug(`> ${k}: ${v}`);
        if (payload) debug(`> ${clip(payload)}`);
      }
      let outcome: Outcome;
      try {
        outcome = { raw: await this.once(method, url, payload, opts.headers) };
      } catch (e) {
        if (ticket) this.pacer?.release(ticket);
        // Only the caller's signal interrupts: undici also calls a proxy's refusal an AbortError.
        if (signal?.aborted) throw abortReason(signal);
        outcome = { threw: e };
      }
      if ('raw' in outcome) {
        const { raw } = outcome;
        if (ticket) this.pacer?.release(ticket, raw);
        if (debug) {
          debug(`< ${raw.status} (${raw.ms} ms)`);
          for (const [k, v] of Object.entries(raw.headers)) debug(`< ${k}: ${v}`);
          if (raw.text) debug(`< ${clip(hideFeedSecrets(raw.text))}`);
          if (raw.cut) debug(`* the answer stopped early: ${classify(raw.cut).reason}`);
        }
      }
      const step = decide(
        {
          method,
          url,
          attempt,
          max,
          uncertain,
          tolerateBody: opts.tolerateBody === true,
          maxRetryAfterMs: this.policy.maxRetryAfterMs,
          maxBytes: this.maxBytes,
          now: this.clock.now(),
        },
        outcome,
      );
      for (const note of step.notes) debug?.(`* ${note}`);
      if (step.kind === 'answer') return step.response;
      if (step.kind === 'fail') throw step.error;
      uncertain = step.uncertain;
      await this.pause(attempt, step.why, step.waitMs);
    }
  }

  private get maxBytes(): number {
    return this.options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  }

  /** Waits before retry number `attempt` (`ms`, else a backoff), saying why in the trace. */
  private async pause(
    attempt: number,
    why: string,
    ms = backoffMs(attempt, this.policy, this.options.random),
  ): Promise<void> {
    this.options.debug?.(
      `* retrying (${attempt} of ${this.policy.retries}) after ${why}: waiting ${(ms / 1000).toFixed(2)}s`,
    );
    await this.clock.sleep(ms, this.options.signal);
  }

  /** One attempt: send, and read the whole answer (up to the size limit). */
  private async once(
    method: string,
    url: URL,
    payload: string | undefined,
    own?: Readonly<Record<string, string>>,
  ): Promise<Raw> {
    const dispatcher = await this.getDispatcher();
    const started = Date.now();
    // --timeout is a deadline for the whole answer, not only for each read: a server trickling a
    // byte a second is given up on as one that says nothing. Pacing waits come before it starts.
    const ms = (this.options.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
    const deadline = this.options.deadline === false ? undefined : new AbortController();
    const timer = deadline && setTimeout(() => deadline.abort(), ms);
    const user = this.options.signal;
    /** The error to report when the deadline (not the caller) ended the attempt. */
    const late = (code: string) =>
      deadline?.signal.aborted && !user?.aborted
        ? Object.assign(new Error(`the answer took longer than ${ms / 1000} s in all`), { code })
        : undefined;
    try {
      const res = await dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: method as Dispatcher.HttpMethod,
        headers: { ...this.headers(payload !== undefined), ...own },
        ...(payload !== undefined ? { body: payload } : {}),
        signal: deadline ? (user ? AbortSignal.any([user, deadline.signal]) : deadline.signal) : user,
      });
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers))
        if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
      let chunks: Buffer[] = [];
      let size = 0;
      let cut: unknown;
      // An answer that says it is larger than the limit is not read at all; one that grows past
      // it is given up on as soon as it does, and what was read of it dropped: pm never holds
      // more than the limit of one answer, nor parses part of one.
      const declared = Number(headers['content-length']);
      let tooLarge = Number.isFinite(declared) && declared > this.maxBytes;
      if (tooLarge) res.body.destroy();
      else
        try {
          for await (const chunk of res.body as AsyncIterable<Buffer>) {
            size += chunk.length;
            if (size > this.maxBytes) {
              tooLarge = true;
              chunks = [];
              res.body.destroy();
              break;
            }
            chunks.push(chunk);
          }
        } catch (e) {
          if (user?.aborted) throw e;
          cut = late('UND_ERR_BODY_TIMEOUT') ?? e ?? new Error('the answer was cut off');
        }
      // Most answers come as one chunk (all of the embedded default's do): no copy made of it.
      const bytes =
        chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size > this.maxBytes ? 0 : size);
      chunks = [];
      const text = bytes.toString('utf8');
      return { status: res.statusCode, headers, text, cut, tooLarge, ms: Date.now() - started };
    } catch (e) {
      throw late('UND_ERR_HEADERS_TIMEOUT') ?? e;
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  /** The connection pool (made on first use): the byte path (bytes.ts) sends through it too. */
  dispatcherOf(): Promise<Dispatcher> {
    return this.getDispatcher();
  }

  private getDispatcher(): Promise<Dispatcher> {
    if (this.dispatcher) return Promise.resolve(this.dispatcher);
    this.making ??= this.makeDispatcher().then((d) => {
      this.dispatcher = d;
      return d;
    });
    return this.making;
  }

  private async makeDispatcher(): Promise<Dispatcher> {
    // undici parses HTTP with WebAssembly; V8 would optimise that module again in the background
    // and hold the process's exit until it is done (some 60 ms for a one-request run). The
    // baseline compiler alone is fast enough for a CLI's few answers.
    if (!wasmFlagSet) {
      wasmFlagSet = true;
      // bin/pm's code cache, when this run makes one, is made now: V8 refuses one made after.
      (globalThis as { [k: symbol]: (() => void) | undefined })[Symbol.for('pm.beforeV8Flags')]?.();
      createRequire(import.meta.url)('node:v8').setFlagsFromString('--liftoff-only');
    }
    const env = this.options.env ?? {};
    const ms = (this.options.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
    // rejectUnauthorized given, so that not even NODE_TLS_REJECT_UNAUTHORIZED=0 turns verification off.
    const tls = this.baseUrl.protocol === 'https:' ? { ...(await extraCa(env)), rejectUnauthorized: true } : {};
    const common = { headersTimeout: ms, bodyTimeout: ms, keepAliveTimeout: 10_000, connections: 16 };
    // Like Go's net/http: a request to this machine never goes through a proxy.
    if (proxyConfigured(env) && !isLoopbackHost(this.baseUrl.hostname)) {
      const httpProxy = env.http_proxy ?? env.HTTP_PROXY ?? '';
      const httpsProxy = env.https_proxy ?? env.HTTPS_PROXY ?? '';
      const noProxy = env.no_proxy ?? env.NO_PROXY ?? '';
      const via = this.baseUrl.protocol === 'https:' ? httpsProxy || httpProxy : httpProxy;
      this.options.debug?.(
        `* proxy: ${via ? redactUrl(via) : 'none for this scheme'}${noProxy ? ` (NO_PROXY=${noProxy})` : ''}`,
      );
      // '' (not undefined) so that undici never falls back to process.env.
      const EnvHttpProxyAgent = (await import('./undici.js')).envHttpProxyAgent();
      return new EnvHttpProxyAgent({
        ...common,
        httpProxy,
        httpsProxy,
        noProxy,
        connect: { timeout: ms, ...tls },
        requestTls: { timeout: ms, ...tls },
        proxyTls: { timeout: ms },
      });
    }
    const { Agent, buildConnector } = await import('./undici.js');
    const connector = buildConnector({ timeout: ms, ...tls });
    // Errors while connecting come before any byte of a request was written: say so on them. A
    // frozen error stays untagged (Reflect.set does not throw): the request then counts as maybe sent.
    const connect: typeof connector = (opts, callback) =>
      connector(opts, (...args) => {
        if (args[0]) Reflect.set(Object(args[0]), BEFORE_REQUEST, true);
        callback(...args);
      });
    return new Agent({ ...common, connect });
  }

  async close(): Promise<void> {
    // A dispatcher given is its owner's to close.
    if (!this.options.dispatcher && this.dispatcher) await this.dispatcher.close();
  }
}

/**
 * NODE_EXTRA_CA_CERTS of the environment given. Node reads the variable itself at start-up, so
 * this matters only when the environment pm is given is not the process's (in-process runs).
 */
async function extraCa(env: Readonly<Record<string, string | undefined>>): Promise<{ ca?: string[] }> {
  const file = env.NODE_EXTRA_CA_CERTS;
  if (!file || file === process.env.NODE_EXTRA_CA_CERTS) return {};
  const [{ readFile }, { rootCertificates }] = await Promise.all([import('node:fs/promises'), import('node:tls')]);
  const pem = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
    throw new NetworkError(
      `cannot read NODE_EXTRA_CA_CERTS (${file}): ${e.code ?? e.message}`,
      'EXTRA_CA',
      'GET',
      'no',
    );
  });
  return { ca: [...rootCertificates, pem] };
}
