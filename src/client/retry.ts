/**
 * When a failed request is sent again, and after how long: the policy of docs/faults.md
 * ("Retries", "A POST", "Backoff") as pure functions. A POST creates something, so it is retried
 * only when it certainly did not reach the server, or when the rate limit refused it (429); a 500
 * is the server's own failure, and never retried.
 */
import type { RequestSent } from './errors.js';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly retries: number;
  /** The first retry waits up to this (ms); each next one up to twice as long. */
  readonly baseMs: number;
  /** No backoff is longer than this (ms). */
  readonly capMs: number;
  /** A Retry-After longer than this is not waited for: the failure is reported (ms). */
  readonly maxRetryAfterMs: number;
}

export const MAX_RETRIES = 10;

export function retryPolicy(over: Partial<RetryPolicy> = {}): RetryPolicy {
  const baseMs = over.baseMs ?? 500;
  return {
    retries: over.retries ?? 3,
    baseMs,
    capMs: over.capMs ?? Math.max(baseMs, 20_000),
    maxRetryAfterMs: over.maxRetryAfterMs ?? 120_000,
  };
}

export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
export const IDEMPOTENT: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** The wait before retry number `n` (1 for the first retry): full jitter. */
export function backoffMs(n: number, p: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(p.capMs, p.baseMs * 2 ** Math.max(0, n - 1));
  return Math.floor(random() * ceiling);
}

/** Set on errors raised while connecting, before any byte of a request was written. */
export const BEFORE_REQUEST = 'pmBeforeRequest';

interface Failure {
  readonly code: string | undefined;
  /** A short reason: "connection refused". */
  readonly reason: string;
  readonly sent: RequestSent;
  /** Worth trying again (if the method allows). */
  readonly transient: boolean;
}

const NOT_TLS = 'the server does not speak TLS: is it http://, not https://?';

/**
 * What each error code says: its reason in words (else the error's message), whether the request
 * certainly did not reach the server (`notSent`), and whether it is worth trying again.
 */
const CODES: Record<string, { reason?: string; notSent?: boolean; transient?: boolean }> = {
  ECONNREFUSED: { reason: 'connection refused', notSent: true, transient: true },
  ENOTFOUND: { reason: 'host not found', notSent: true },
  EAI_AGAIN: { reason: 'host not found (the name server did not answer)', notSent: true, transient: true },
  EAI_FAIL: { reason: 'host not found', notSent: true },
  EAI_NONAME: { reason: 'host not found', notSent: true },
  UND_ERR_CONNECT_TIMEOUT: { reason: 'timed out connecting', notSent: true, transient: true },
  UND_ERR_HEADERS_TIMEOUT: { reason: 'timed out waiting for an answer', transient: true },
  UND_ERR_BODY_TIMEOUT: { reason: 'timed out reading the answer', transient: true },
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: { reason: 'the answer was cut off', transient: true },
  ECONNRESET: { reason: 'the connection was reset', transient: true },
  EPIPE: { reason: 'the connection was closed', transient: true },
  ECONNABORTED: { reason: 'the connection was aborted', transient: true },
  ETIMEDOUT: { reason: 'timed out', transient: true },
  EHOSTUNREACH: { reason: 'host unreachable', notSent: true, transient: true },
  ENETUNREACH: { reason: 'network unreachable', notSent: true, transient: true },
  ENETDOWN: { notSent: true, transient: true },
  EHOSTDOWN: { notSent: true, transient: true },
  EADDRNOTAVAIL: { notSent: true },
  UND_ERR_SOCKET: { reason: 'the connection was closed', transient: true },
  UND_ERR_CLOSED: { reason: 'the connection was closed', transient: true },
  // https:// to a server that speaks plain http: its answer is not a TLS handshake at all.
  ERR_SSL_WRONG_VERSION_NUMBER: { reason: NOT_TLS, notSent: true },
  ERR_SSL_PACKET_LENGTH_TOO_LONG: { reason: NOT_TLS, notSent: true },
};

const TLS_CODES =
  /^(CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|ERR_TLS_CERT_ALTNAME_INVALID|ERR_SSL_|HOSTNAME_MISMATCH)/;

/** What a thrown network error means for the request. */
export function classify(e: unknown): Failure {
  const err = e as {
    code?: unknown;
    message?: unknown;
    cause?: { code?: unknown };
    socket?: { bytesWritten?: unknown };
    [BEFORE_REQUEST]?: unknown;
  };
  const rawCode = err?.code ?? err?.cause?.code;
  const code = typeof rawCode === 'string' ? rawCode : undefined;
  // undici's ProxyAgent: "Proxy response (407) !== 200 when HTTP Tunneling".
  const proxy = /^Proxy response \((\d{3})\)/.exec(typeof err?.message === 'string' ? err.message : '')?.[1];
  if (proxy !== undefined)
    return {
      code: `PROXY_${proxy}`,
      reason: `the proxy refused to connect to it (${proxy}${proxy === '407' ? ': the proxy wants credentials' : ''})`,
      sent: 'no',
      transient: proxy === '502' || proxy === '503' || proxy === '504',
    };
  const known = code && Object.hasOwn(CODES, code) ? CODES[code] : undefined;
  if (!known && code && TLS_CODES.test(code))
    return { code, reason: `the server's certificate is not trusted (${code})`, sent: 'no', transient: false };
  const before = err?.[BEFORE_REQUEST] === true;
  const nothingWritten = typeof err?.socket?.bytesWritten === 'number' && err.socket.bytesWritten === 0;
  const sent: RequestSent = before || known?.notSent || nothingWritten ? 'no' : 'maybe';
  const reason =
    known?.reason ?? (typeof err?.message === 'string' && err.message ? err.message : 'the request failed');
  return {
    code,
    reason: before && code === 'ECONNRESET' ? 'the connection was reset while connecting' : reason,
    sent,
    transient: known?.transient === true,
  };
}
