/**
 * The thin HTTP wrapper: one keep-alive connection pool per run (undici), JSON in and out,
 * bearer auth, and errors typed by what went wrong. Liberal in what it accepts from a server.
 */
import { Agent, type Dispatcher } from 'undici';
import { HttpStatusError, NetworkError, ProtocolError } from './errors.js';

export { HttpStatusError, NetworkError, ProtocolError } from './errors.js';

export interface HttpOptions {
  readonly baseUrl: string;
  readonly token?: string | undefined;
  readonly userAgent?: string;
  /** Seconds for connect, headers and body each. */
  readonly timeout?: number;
  readonly dispatcher?: Dispatcher;
  /** Receives a trace of each exchange (Authorization redacted). */
  readonly debug?: (line: string) => void;
  readonly signal?: AbortSignal | undefined;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Parsed JSON, or undefined for an empty body. */
  readonly body: unknown;
  /** The raw text, when the body was not JSON. */
  readonly text: string;
  readonly url: string;
}

export interface RequestOptions {
  readonly query?: URLSearchParams | undefined;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

function excerpt(text: string): string {
  const plain = text
    .replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length > 160 ? `${plain.slice(0, 157)}...` : plain;
}

/** One sentence for an error response, whatever its shape. */
function errorMessage(status: number, body: unknown, text: string): string {
  if (body && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string') {
    const m = (body as { message: string }).message.trim();
    if (m) return m;
  }
  const bit = excerpt(text);
  return `the server answered ${status}${bit ? `: ${bit}` : ' with no message'}`;
}

export class HttpClient {
  readonly baseUrl: URL;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;

  constructor(readonly options: HttpOptions) {
    this.baseUrl = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    const ms = (options.timeout ?? 30) * 1000;
    this.ownsDispatcher = !options.dispatcher;
    this.dispatcher =
      options.dispatcher ??
      new Agent({
        connect: { timeout: ms },
        headersTimeout: ms,
        bodyTimeout: ms,
        keepAliveTimeout: 10_000,
        connections: 16,
      });
  }

  /** The absolute URL of an API path (relative to the base URL, which may carry a prefix). */
  url(path: string, query?: URLSearchParams): URL {
    const u = new URL(path.replace(/^\//, ''), this.baseUrl);
    if (query) for (const [k, v] of query) u.searchParams.append(k, v);
    return u;
  }

  /** Request headers, with the token in place; `redacted` for traces and dry runs. */
  headers(withBody: boolean, redacted = false, extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.options.userAgent ?? 'pm',
      ...extra,
    };
    if (withBody) h['content-type'] = 'application/json';
    if (this.options.token) h.authorization = redacted ? 'Bearer ***' : `Bearer ${this.options.token}`;
    return h;
  }

  async request(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResponse> {
    const url = path.startsWith('http://') || path.startsWith('https://') ? new URL(path) : this.url(path, opts.query);
    const hasBody = opts.body !== undefined;
    const payload = hasBody ? JSON.stringify(opts.body) : undefined;
    const debug = this.options.debug;
    if (debug) {
      debug(`> ${method} ${url}`);
      for (const [k, v] of Object.entries(this.headers(hasBody, true, opts.headers))) debug(`> ${k}: ${v}`);
      if (payload) debug(`> ${payload.length > 2000 ? `${payload.slice(0, 2000)}...` : payload}`);
    }
    let res: Dispatcher.ResponseData;
    try {
      res = await this.dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: method as Dispatcher.HttpMethod,
        headers: this.headers(hasBody, false, opts.headers),
        ...(payload !== undefined ? { body: payload } : {}),
        ...(this.options.signal ? { signal: this.options.signal } : {}),
      });
    } catch (e) {
      throw this.networkError(e, url);
    }
    let text: string;
    try {
      text = await res.body.text();
    } catch (e) {
      throw this.networkError(e, url);
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers))
      if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    let body: unknown;
    const type = headers['content-type'] ?? '';
    if (text.trim() !== '' && (type.includes('json') || /^\s*[[{]/.test(text))) {
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
    }
    if (debug) {
      debug(`< ${res.statusCode}`);
      for (const [k, v] of Object.entries(headers)) debug(`< ${k}: ${v}`);
      if (text) debug(`< ${text.length > 2000 ? `${text.slice(0, 2000)}...` : text}`);
    }
    const response: HttpResponse = { status: res.statusCode, headers, body, text, url: url.toString() };
    if (res.statusCode >= 400) {
      const errors =
        body && typeof body === 'object' && typeof (body as { errors?: unknown }).errors === 'object'
          ? ((body as { errors: Record<string, string[]> }).errors ?? undefined)
          : undefined;
      throw new HttpStatusError(res.statusCode, errorMessage(res.statusCode, body, text), response, errors);
    }
    if (text.trim() !== '' && body === undefined && res.statusCode !== 204)
      throw new ProtocolError(
        `the server answered ${res.statusCode} with a body that is not JSON${excerpt(text) ? `: ${excerpt(text)}` : ''}`,
      );
    return response;
  }

  private networkError(e: unknown, url: URL): Error {
    const err = e as { name?: string; code?: string; message?: string; cause?: { code?: string } };
    if (err?.name === 'AbortError' || err?.code === 'UND_ERR_ABORTED') return e as Error;
    const code = err?.code ?? err?.cause?.code;
    const where = url.origin;
    const why =
      code === 'ECONNREFUSED'
        ? 'connection refused'
        : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
          ? 'host not found'
          : code === 'UND_ERR_CONNECT_TIMEOUT'
            ? 'timed out connecting'
            : code === 'UND_ERR_HEADERS_TIMEOUT'
              ? 'timed out waiting for a response'
              : code === 'UND_ERR_BODY_TIMEOUT'
                ? 'timed out reading the response'
                : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET'
                  ? 'the connection was closed'
                  : (err?.message ?? String(e));
    return new NetworkError(`could not reach ${where}: ${why}`, code);
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}
