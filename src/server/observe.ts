/**
 * What `pm serve`'s HTTP door tells about each request it answers (http.ts): the record the
 * access log (access-log.ts) and the metrics (metrics.ts) are made from, the request's id, and the
 * one rule of what part of a request target is never written down. The API core and the CLI's
 * embedded default know nothing of this: they neither log nor count.
 */
import { randomUUID } from 'node:crypto';
import { FEED_PATH } from '../core/endpoints.js';
import { hideFeedSecrets } from '../core/redact.js';
import { decodeSegment } from './routes.js';

/** One request as it was answered. */
export interface RequestRecord {
  readonly requestId: string;
  readonly method: string;
  /** The request target as sent (path and query), its secrets masked (`maskSecrets`). */
  readonly target: string;
  /** The route it matched (`/properties/{uuid}`), for metrics; undefined when none did. */
  readonly route: string | undefined;
  readonly status: number;
  readonly durationMs: number;
  /** The bytes of the request body read, and of the answer's body sent. */
  readonly bytesIn: number;
  readonly bytesOut: number;
  /** The account whose token the request carried, once it was authenticated. */
  readonly accountId: number | undefined;
  readonly remote: string | undefined;
  /** A 5xx the store answered, with its cause (api.ts, `ApiResponse.fault`). */
  readonly fault?: Error | undefined;
}

/** What the door reports to: the log and the metrics, each when it is on. */
export interface Observer {
  /** A request's headers have been read (the log's debug level). */
  started?(requestId: string, method: string, target: string): void;
  answered(record: RequestRecord): void;
}

/** The header a request id travels in, both ways. */
export const REQUEST_ID_HEADER = 'X-Request-Id';
/** The longest request id a client may send that is kept. */
const MAX_REQUEST_ID_LENGTH = 128;

/**
 * The request's id: the client's `X-Request-Id` when it is sane (printable ASCII without spaces,
 * at most MAX_REQUEST_ID_LENGTH characters), so that a proxy's id follows the request through;
 * else a new one.
 */
export function requestIdOf(given: string | string[] | undefined): string {
  return typeof given === 'string' && SANE_ID.test(given) ? given : randomUUID();
}

const SANE_ID = new RegExp(`^[\\x21-\\x7e]{1,${MAX_REQUEST_ID_LENGTH}}$`);

/**
 * Request targets whose part in the group named `secret` is a secret (a feed's key in its path):
 * the log writes `***` in its place. A route that takes a secret in its target adds its pattern
 * here, so that no log line ever holds it.
 */
export const SECRET_TARGETS: RegExp[] = [
  // A calendar feed is read by the secret in its path: the segment after /feeds/.
  new RegExp(`^${FEED_PATH}/(?<secret>[^?#/]+)`, 'i'),
];

/**
 * The target with every secret part of it (SECRET_TARGETS) written as `***`. A target whose
 * secret is reached only once its escapes are decoded (`/%63alendar-feeds/...`, which the API
 * routes as the router decodes it) is masked in its decoded form.
 */
export function maskSecrets(target: string): string {
  // And a feed's secret anywhere else in it (a query string), however it came there.
  return hideFeedSecrets(maskPaths(target));
}

function maskPaths(target: string): string {
  const masked = maskWith(target);
  if (masked !== target) return masked;
  const decoded = decodeSegment(target);
  return decoded === target ? target : maskWith(decoded) === decoded ? target : maskWith(decoded);
}

function maskWith(target: string): string {
  let masked = target;
  for (const pattern of SECRET_TARGETS) {
    const m = pattern.exec(masked);
    const secret = m?.groups?.secret;
    if (!m || !secret) continue;
    const at = m.index + m[0].lastIndexOf(secret);
    masked = `${masked.slice(0, at)}***${masked.slice(at + secret.length)}`;
  }
  return masked;
}
