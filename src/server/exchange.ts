/**
 * A request and its answer as the API core (api.ts) and its doors (http.ts, embedded.ts) hand them
 * over, and the routes written beside the core (calendar.ts) take them.
 */
import type { ApiError } from '../core/errors.js';
import type { RequestBody } from './body.js';
import type { Principal } from './store.js';

/** A request, as an adapter hands it over. */
export interface ApiRequest {
  readonly method: string;
  /** The full URL: its path is routed; pagination links and Location headers are made from it. */
  readonly url: string;
  /** A request header by its lower-case name. */
  header(name: string): string | undefined;
  /** The body, read only by routes that take one, and within its size limit (body.ts). */
  readonly body: RequestBody;
  /** Aborted when the client has gone away before its answer (a list in progress is then stopped). */
  readonly signal?: AbortSignal | undefined;
  /** The request's id, given by the HTTP door: every error answer carries it (`request_id`). */
  readonly requestId?: string | undefined;
  /**
   * Who sends it, when the door knows without a token (the CLI's embedded default: the data
   * file's owner, in-process). Without it, the bearer token says.
   */
  readonly principal?: Principal | undefined;
}

/**
 * The answer: status, headers, and the JSON text to send (none on 204, nor to HEAD, which gets the
 * headers of GET, Content-Length included).
 */
export interface ApiResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body?: string;
  /**
   * Bytes to send instead of a JSON body (an attachment's: attachments.ts), read as they are
   * sent, never held whole; its Content-Length is in `headers`.
   */
  readonly stream?: AsyncIterable<Uint8Array> | undefined;
  /** Not sent: the route the request matched (`/properties/{uuid}`), and the account it was made for. */
  readonly route?: string | undefined;
  readonly accountId?: number | undefined;
  /**
   * Not sent: a 5xx the store answered (a lost database, a damaged file), with the cause it gave
   * (`cause`), for the server's log; an unexpected error goes to `logError` instead.
   */
  readonly fault?: ApiError | undefined;
}

export type Api = (req: ApiRequest) => Promise<ApiResponse>;
