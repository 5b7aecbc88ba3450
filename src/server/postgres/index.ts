/**
 * The Store on PostgreSQL: a pool of connections to one database that any number of `pm serve`
 * instances share. Nothing that matters is kept in an instance: tokens are looked up on every
 * request, the rate limit counts in the database (ratelimit.ts). A lost database makes every
 * operation a 503 with Retry-After (db.ts), and the pool connects again when it is back.
 */
import type { Store } from '../store.js';
import { migrate, openPg, type PgDatabase, type PgOptions, storeError } from './db.js';
import * as records from './records.js';
import * as tokens from './tokens.js';

export { DEFAULT_POOL_SIZE } from './db.js';
export { PgRateLimiter } from './ratelimit.js';

export interface PostgresStore extends Store {
  /** The database, for the rate limiter and for tests. */
  readonly db: PgDatabase;
  ping(): Promise<void>;
  /**
   * On the first start on an empty database, creates the first account and its user (no token:
   * `pm serve tokens create --database URL` makes one). Says whether it did. Instances starting
   * at once create one account between them.
   */
  ensureAccount(): Promise<boolean>;
  close(): Promise<void>;
}

/** The key of the advisory lock the first account is created under. */
const FIRST_ACCOUNT_LOCK = 7_340_130_014;

/** A store operation whose loss of the database is reported as a 503. */
function guard<A extends unknown[], T>(fn: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
  return async (...args) => {
    try {
      return await fn(...args);
    } catch (e) {
      throw storeError(e);
    }
  };
}

/** Connects to the database at `opts.url`, migrates it (under an advisory lock), and opens its store. */
export async function openPostgresStore(opts: PgOptions): Promise<PostgresStore> {
  const db = openPg(opts);
  try {
    await migrate(db, opts.url);
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
  let closed: Promise<void> | undefined;
  return {
    db,
    list: guard((accountId, r, q) => records.listRecords(db, accountId, r, q)),
    get: guard((accountId, r, uuid, embed) => records.getRecord(db, accountId, r, uuid, embed)),
    create: guard((accountId, r, body, parent) => records.createRecord(db, accountId, r, body, parent)),
    update: guard((accountId, r, uuid, body) => records.updateRecord(db, accountId, r, uuid, body)),
    delete: guard((accountId, r, uuid) => records.deleteRecord(db, accountId, r, uuid)),
    createAccount: guard((name, userName) => tokens.createAccount(db, name, userName)),
    firstUser: guard(() => tokens.firstUser(db)),
    userOfAccount: guard((accountId) => tokens.userOfAccount(db, accountId)),
    createToken: guard((userId, name, scopes) => tokens.createToken(db, userId, name, scopes)),
    authenticate: guard((token) => tokens.authenticate(db, token)),
    listTokens: guard(() => tokens.listTokens(db)),
    revokeToken: guard((id) => tokens.revokeToken(db, id)),
    ensureAccount: guard(() =>
      db.write(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(?::bigint)', [FIRST_ACCOUNT_LOCK]);
        if (await tokens.firstUser(tx)) return false;
        await tokens.createAccount(tx, 'default');
        return true;
      }),
    ),
    ping: guard(async () => {
      await db.query('SELECT 1');
    }),
    close: () => {
      closed ??= db.close();
      return closed;
    },
  };
}
