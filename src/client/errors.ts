/** Errors of the HTTP client, typed by what went wrong. Free of undici, so cheap to import. */

export interface ResponseLike {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
  readonly text: string;
  readonly url: string;
}

/** The server answered with an error status. */
export class HttpStatusError extends Error {
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

/** The server could not be reached, or did not answer in time. */
export class NetworkError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'NetworkError';
  }
}

/** The server answered 2xx with something the contract does not allow. */
export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}
