/**
 * The Store on PostgreSQL: a pool of connections to one database that any number of `pm serve`
 * instances share. Nothing that matters is kept in an instance: tokens are looked up on every
 * request, the rate limit counts in the database (ratelimit.ts). A lost database makes every
 * operation a 503 with Retry-After (db.ts), and the pool connects again when it is back.
 */
import * as records from '../sql/records.js';
import { runSteps, type Steps } from '../sql/steps.js';
import * as tokens from '../sql/tokens.js';
import type { Store } from '../store.js';
import { migrate, openPg, type Pg, type PgDatabase, type PgOptions, storeError } from './db.js';
import { execute, listRecords, pgDialect } from './records.js';

export interface PostgresStore extends Store {
  /** The database, for the rate limiter and for tests. */
  readonly db: PgDatabase;
  /**
   * On the first start on an empty database, creates the first account and its user (no token:
   * `pm serve tokens create --database URL` makes one). Says whether it did. Instances starting
   * at once create one account between them.
   */
  ensureAccount(): Promise<boolean>;
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
  const d = pgDialect(opts.now ?? Date.now);
  /** Runs an operation of ../sql/ on the pool, or on a transaction's connection. */
  const run = async <T>(steps: Steps<T>, pg: Pg = db) => runSteps((q) => execute(pg, q), steps);
  /** An operation of ../sql/ in one write transaction (made anew if the transaction runs again: db.ts). */
  const write = <T>(steps: () => Steps<T>) => db.write((tx) => run(steps(), tx));
  return {
    db,
    list: guard((accountId, r, q) => listRecords(db, d, accountId, r, q)),
    get: guard((accountId, r, uuid, embed) => run(records.getRecord(d, accountId, r, uuid, embed))),
    create: guard((accountId, r, body, parent) => write(() => records.createRecord(d, accountId, r, body, parent))),
    update: guard((accountId, r, uuid, body) => write(() => records.updateRecord(d, accountId, r, uuid, body))),
    delete: guard((accountId, r, uuid) => write(() => records.deleteRecord(accountId, r, uuid))),
    createAccount: guard((name) => write(() => tokens.createAccount(d, name))),
    firstUser: guard(() => run(tokens.firstUser())),
    userOfAccount: guard((accountId) => run(tokens.userOfAccount(accountId))),
    createToken: guard((userId, name, scopes) => run(tokens.createToken(d, userId, name, scopes))),
    authenticate: guard((token) => run(tokens.authenticate(d, token))),
    listTokens: guard(() => run(tokens.listTokens())),
    revokeToken: guard((id) => run(tokens.revokeToken(d, id))),
    ensureAccount: guard(() =>
      db.write(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(?::bigint)', [FIRST_ACCOUNT_LOCK]);
        if (await run(tokens.firstUser(), tx)) return false;
        await run(tokens.createAccount(d, 'default'), tx);
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
