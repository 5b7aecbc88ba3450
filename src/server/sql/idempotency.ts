/**
 * Idempotency keys, for both stores (an extension of the API: docs/api.md). A create sent with a
 * key claims it, in the transaction that writes its record, and keeps its answer there too: the
 * record and its key are written together or not at all. A second request with the key finds the
 * first one's answer (`Replayed`, thrown so that its transaction, which wrote nothing, ends); one
 * sent while the first is still being written waits for it on PostgreSQL (the primary key's
 * insert waits for the other transaction), and on SQLite cannot happen (writers take turns).
 */
import { ApiError, ValidationError } from '../../core/errors.js';
import type { ApiRecord, KeyClaim } from '../store.js';
import { type Dialect, get, type Row, run, type Steps } from './steps.js';

/** How long a key is kept (ms): at least a day, as the API promises. */
const KEPT_MS = 24 * 60 * 60 * 1000;

/** The header a request names its key in, and the one a replayed answer carries. */
export const KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** The answer a key was first given: its status, and its record as JSON text. */
export class Replayed extends Error {
  constructor(
    readonly status: number,
    readonly record: string,
  ) {
    super('an answer kept for an idempotency key');
    this.name = 'Replayed';
  }
}

/**
 * The record `created` makes, under the key of `claim`: claimed first (a key older than KEPT_MS is
 * free again), and the answer kept with it. A key already kept: its answer (`Replayed`), or a 422
 * naming the header when it was given to another request.
 */
export function* keyed(d: Dialect, accountId: number, claim: KeyClaim, created: Steps<ApiRecord>): Steps<ApiRecord> {
  const now = d.now();
  const at = [accountId, claim.key];
  yield run('DELETE FROM idempotency_keys WHERE account_id = ? AND key = ? AND created_at < ?', [...at, now - KEPT_MS]);
  const claimed = (yield run(
    'INSERT INTO idempotency_keys (account_id, key, fingerprint, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
    [...at, claim.fingerprint, now],
  )) as number;
  if (!claimed) {
    const row = (yield get(
      'SELECT fingerprint, status, body FROM idempotency_keys WHERE account_id = ? AND key = ?',
      at,
    )) as Row | undefined;
    // Swept (or its request's transaction undone) between the two statements: sent again, it is claimed.
    if (!row || row.status === null)
      throw new ApiError(
        409,
        `A request with this ${KEY_HEADER} is still being processed; try again shortly.`,
        undefined,
        {
          'Retry-After': '1',
        },
      );
    if (row.fingerprint !== claim.fingerprint)
      throw new ValidationError({
        [KEY_HEADER]: [
          `The ${KEY_HEADER} header was already used for another request; use a new key for a new request.`,
        ],
      });
    throw new Replayed(Number(row.status), String(row.body));
  }
  const rec = yield* created;
  yield run('UPDATE idempotency_keys SET status = ?, body = ? WHERE account_id = ? AND key = ?', [
    201,
    JSON.stringify(rec),
    ...at,
  ]);
  return rec;
}

/** Deletes up to `limit` keys older than KEPT_MS; how many it deleted. */
export function* sweepKeys(d: Dialect, limit = 1000): Steps<number> {
  return (yield run(
    `DELETE FROM idempotency_keys WHERE (account_id, key) IN
       (SELECT account_id, key FROM idempotency_keys WHERE created_at < ? LIMIT ${Math.trunc(limit)})`,
    [d.now() - KEPT_MS],
  )) as number;
}
