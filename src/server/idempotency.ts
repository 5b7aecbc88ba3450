/**
 * Idempotency keys at the API's door (an extension: docs/api.md): the key a create names in its
 * `Idempotency-Key` header, what its request was (a digest the store compares: the same key given
 * to another request is a 422), and the first answer given again. The store keeps them
 * (sql/idempotency.ts); the API core sweeps old ones now and then.
 */
import { ApiError } from '../core/errors.js';
import type { ApiRequest } from './exchange.js';
import { KEY_HEADER, REPLAYED_HEADER, type Replayed } from './sql/idempotency.js';
import type { KeyClaim } from './store.js';

export { Replayed } from './sql/idempotency.js';

/** A key: 1 to 255 printable ASCII characters. */
const KEY = /^[\x20-\x7e]{1,255}$/;

/** The request's key, checked (400 naming the header); undefined when it sends none. */
export function keyOf(req: ApiRequest): string | undefined {
  const key = req.header(KEY_HEADER.toLowerCase());
  if (key === undefined) return undefined;
  if (!KEY.test(key)) throw new ApiError(400, `The ${KEY_HEADER} header must be 1 to 255 printable ASCII characters.`);
  return key;
}

/** A key and what its request was: a digest of `parts` (its path, its body or its file's). */
export function claimOf(key: string | undefined, parts: readonly string[]): KeyClaim | undefined {
  if (key === undefined) return undefined;
  const hash = process.getBuiltinModule('node:crypto').createHash('sha256');
  for (const p of parts) hash.update(p).update('\u0000');
  return { key, fingerprint: hash.digest('hex') };
}

/** The headers of a first answer given again: its Location, and the header that says so. */
export function replayHeaders(origin: string, path: string, r: Replayed): Record<string, string> {
  const uuid = (JSON.parse(r.record) as { uuid?: unknown }).uuid;
  return {
    ...(typeof uuid === 'string' ? { Location: `${origin}/${path}/${uuid}` } : {}),
    [REPLAYED_HEADER]: 'true',
  };
}

/** How often the API core sweeps keys older than a day (ms). */
const SWEEP_EVERY_MS = 60_000;

/** The sweep, at most once every SWEEP_EVERY_MS of `now`'s clock; its failures reported, never the request's. */
export function sweeper(sweep: () => unknown, now: () => number, report: (e: unknown) => void): () => void {
  let last = Number.NEGATIVE_INFINITY;
  return () => {
    const t = now();
    if (t - last < SWEEP_EVERY_MS) return;
    last = t;
    Promise.resolve().then(sweep).catch(report);
  };
}
