/**
 * The Store on PostgreSQL: a pool of connections to one database that any number of `pm serve`
 * instances share. Nothing that matters is kept in an instance: tokens are looked up on every
 * request, the rate limit counts in the database (ratelimit.ts). A lost database makes every
 * operation a 503 with Retry-After (db.ts), and the pool connects again when it is back.
 */
import { chunksOf } from '../blobs.js';
import { FairQueue, OverBudget, spending } from '../budget.js';
import * as blobs from '../sql/blobs.js';
import * as feeds from '../sql/feeds.js';
import * as idempotency from '../sql/idempotency.js';
import * as records from '../sql/records.js';
import { runSteps, type Steps } from '../sql/steps.js';
import * as tokens from '../sql/tokens.js';
import type { Store } from '../store.js';
import {
  DEFAULT_POOL_SIZE,
  type Doing,
  migrate,
  openPg,
  type Pg,
  type PgDatabase,
  type PgOptions,
  storeError,
} from './db.js';
import { pgBlobs, streamed } from './blobs.js';
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

/** A store operation whose loss of the database is reported as a 503, saying what it did (db.ts). */
function guard<A extends unknown[], T>(
  fn: (...args: A) => Promise<T>,
  doing: Doing = 'read',
): (...args: A) => Promise<T> {
  return async (...args) => {
    try {
      return await fn(...args);
    } catch (e) {
      throw e instanceof OverBudget ? e : storeError(e, doing);
    }
  };
}

/**
 * The connections lists may hold at once: all but two of the pool, so that a token's check, a
 * record by uuid, a write and /health (and the cancel of a list) always find one however many
 * long lists there are; and one account's lists all but one of those (FairQueue).
 */
const listSlots = (poolSize: number): number => Math.max(1, poolSize - 2);

/**
 * The slots (of the lists') streamed uploads may hold between them: half, so lists keep the rest;
 * none with a pool under four (every upload then waits in a spool file).
 */
const streamSlots = (poolSize: number): number => Math.floor(listSlots(poolSize) / 2);

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
  const poolSize = opts.poolSize ?? DEFAULT_POOL_SIZE;
  const lists = new FairQueue(listSlots(poolSize));
  const files = pgBlobs({ db, slots: lists, streamSlots: streamSlots(poolSize), now: d.now });
  return {
    db,
    // In its account's turn, on a connection of its own, cancelled when its budget is spent.
    list: guard(async (accountId, r, q, budget) => {
      const spent = spending(budget);
      try {
        const release = await lists.acquire(accountId, spent.signal);
        try {
          return await db.reading(spent.signal, (pg) => listRecords(pg, d, accountId, r, q));
        } finally {
          release();
        }
      } finally {
        spent.done();
      }
    }),
    get: guard((accountId, r, uuid, embed) => run(records.getRecord(d, accountId, r, uuid, embed))),
    create: guard((accountId, r, body, parent, file, key) => {
      const made = (uuid?: string) => {
        const created = records.createRecord(d, accountId, r, body, parent, uuid);
        return key ? idempotency.keyed(d, accountId, key, created) : created;
      };
      // An upload streamed into its own transaction: its record is written there, after its chunks.
      const upload = file && streamed(file);
      if (upload) return upload.finish((tx, uuid) => run(made(uuid), tx));
      return write(() => {
        const created = made();
        return file ? blobs.withChunks(created, chunksOf(file), d.now()) : created;
      });
    }, 'write'),
    update: guard(
      (accountId, r, uuid, body) => write(() => records.updateRecord(d, accountId, r, uuid, body)),
      'write',
    ),
    delete: guard((accountId, r, uuid) => write(() => records.deleteRecord(accountId, r, uuid)), 'write'),
    createAccount: guard((name) => write(() => tokens.createAccount(d, name)), 'write'),
    firstUser: guard(() => run(tokens.firstUser())),
    userOfAccount: guard((accountId) => run(tokens.userOfAccount(accountId))),
    createToken: guard((userId, name, scopes) => run(tokens.createToken(d, userId, name, scopes)), 'statement'),
    authenticate: guard((token) => run(tokens.authenticate(d, token))),
    listTokens: guard(() => run(tokens.listTokens())),
    revokeToken: guard((id) => run(tokens.revokeToken(d, id)), 'statement'),
    createFeed: guard((owner, name) => run(feeds.createFeed(d, owner, name)), 'statement'),
    listFeeds: guard((accountId) => run(feeds.listFeeds(accountId))),
    revokeFeed: guard((accountId, uuid) => run(feeds.revokeFeed(accountId, uuid)), 'statement'),
    openFeed: guard((secret, r) => run(feeds.openFeed(secret, r))),
    sweepKeys: guard(() => run(idempotency.sweepKeys(d)), 'statement'),
    blobs: {
      ...files,
      stored: guard((accountId) => run(blobs.storedBytes(accountId))),
      usage: guard(() => run(blobs.usage())),
    },
    ensureAccount: guard(
      () =>
        db.write(async (tx) => {
          await tx.query('SELECT pg_advisory_xact_lock(?::bigint)', [FIRST_ACCOUNT_LOCK]);
          if (await run(tokens.firstUser(), tx)) return false;
          await run(tokens.createAccount(d, 'default'), tx);
          return true;
        }),
      'write',
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
