/** Errors of the HTTP client, typed by what went wrong. Free of undici, so cheap to import. */

export interface ResponseLike {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Parsed JSON, or undefined for an empty body. */
  readonly body: unknown;
  /** The raw text, when the body was not JSON. */
  readonly text: string;
  readonly url: string;
}

/** The server answered with an error status. */
export class HttpStatusError extends Error {
  /** How many times the request was sent (more than 1 when it was retried). */
  attempts = 1;
  constructor(
    readonly status: number,
    message: string,
    readonly response: ResponseLike,
    readonly fieldErrors?: Record<string, string[]>,
  ) {
    super(message);
    this.name = 'HttpStatusError';
  }
}

/**
 * Whether a failed request reached the server: 'no' when it certainly did not (the connection
 * was refused, or failed before a byte of the request was written), 'maybe' when it may have
 * (a reset or timeout after sending), 'yes' when the server answered and the answer was lost.
 */
export type RequestSent = 'no' | 'maybe' | 'yes';

/** The server could not be reached, or did not answer in time. */
export class NetworkError extends Error {
  /** How many times the request was sent. */
  attempts = 1;
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly method: string = 'GET',
    readonly requestSent: RequestSent = 'maybe',
    /** A short reason, without the server's address: "connection refused". */
    readonly reason: string = message,
  ) {
    super(message);
    this.name = 'NetworkError';
  }
}

/** The server answered 2xx with something the API (docs/api.md) does not allow. */
export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/** A token would go over plain http to a host that is not this machine. */
export class InsecureTransportError extends Error {
  constructor(readonly host: string) {
    super(
      `refusing to send the token over plain http to ${host}: anyone on the network could read it. Use https, or pass --allow-insecure-http if this network is trusted.`,
    );
    this.name = 'InsecureTransportError';
  }
}
