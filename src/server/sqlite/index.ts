/** The Store on SQLite (better-sqlite3): one connection to a data file (opened and migrated by db.ts). */
import type { Statement } from 'better-sqlite3';
import { ApiError } from '../../core/errors.js';
import { chunkByChunk } from '../blobs.js';
import { FairQueue, OverBudget } from '../budget.js';
import { type DB, damageOf, openDatabase } from '../db.js';
import type { ResourceDef } from '../../resources/types.js';
import type { ListQuery } from '../../core/query.js';
import type { RecordPage, StoreOf } from '../store.js';
import * as blobs from '../sql/blobs.js';
import * as feeds from '../sql/feeds.js';
import * as idempotency from '../sql/idempotency.js';
import * as records from '../sql/records.js';
import { type Query, runSteps, type Steps } from '../sql/steps.js';
import * as tokens from '../sql/tokens.js';
import { execute, sqliteDialect } from './dialect.js';
import { keptCount, listRecords, TUNING } from './records.js';
import { dropStaged, type Staging, StagedUpload, staged } from './uploads.js';
import {
  Bounded,
  type PageEnd,
  type Sql,
  type SqliteBudget,
  type SqliteTuning,
  StatementCache,
  trigramColumns,
} from './statements.js';

export type { SqliteBudget, SqliteTuning } from './statements.js';

/** A store that answers at once, and runs several calls in one write transaction. */
export interface SqliteStore extends StoreOf<'sync'> {
  /** A list, stopped (OverBudget) when its budget is spent or its `stop` flag is set. */
  list(accountId: number, r: ResourceDef, q: ListQuery, budget?: SqliteBudget): RecordPage;
  /** Runs `fn` (which calls this store) in one write transaction; nested calls join it. */
  write<T>(fn: () => T): T;
  /** The data file (or ":memory:"). */
  readonly file: string;
  /** The connection, for tests and tools that look at the file itself. */
  readonly db: DB;
  readonly statements: StatementCache;
  /** SQLite's quick integrity check of the whole file: what is wrong, or undefined when it is sound. */
  quickCheck(): string | undefined;
  /** How many records of `r` an account has, from the counts kept. */
  recordCount(accountId: number, r: ResourceDef): number;
  /**
   * Where the WAL is checkpointed after an upload's chunk is written (a reader thread: readers.ts),
   * so that copying its pages into the data file does not hold the event loop; undefined: at its
   * commit, as after any write (SQLite's wal_autocheckpoint).
   */
  checkpointer: (() => void) | undefined;
  /**
   * Deletes the chunks of uploads not under way in this process and untouched for `idleMs` (a
   * process killed during an upload leaves them): how many uploads' it deleted.
   */
  sweepUploads(idleMs: number): Promise<number>;
}

/**
 * SQLite's failures a client should hear of as what they are, not as a bare 500: a full disk
 * (507, nothing written: the transaction rolled back), a file that is damaged or was taken away.
 */
function storeError(e: unknown): unknown {
  const code = (e as { code?: unknown }).code;
  const said =
    code === 'SQLITE_FULL'
      ? new ApiError(507, 'The server cannot store this: its disk is full. Nothing was written.')
      : code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB'
        ? new ApiError(503, 'The server cannot read its data file: it is damaged.')
        : undefined;
  // What SQLite said stays with the answer, for the server's log (never the client's).
  if (said) said.cause = e;
  return said ?? e;
}

/** A store operation whose SQLite failures are reported as storeError says. */
function guard<A extends unknown[], T>(fn: (...args: A) => T): (...args: A) => T {
  return (...args) => {
    try {
      return fn(...args);
    } catch (e) {
      throw storeError(e);
    }
  };
}

/** What the record modules need of a connection: its statements, and what the schema has. */
function sqlOf(db: DB, now: () => number, tuning: SqliteTuning = {}): Sql {
  const statements = new StatementCache(db);
  const exec = (q: Query) => execute(statements, q);
  // Read from the schema when a fuzzy filter first asks: most runs of the CLI filter no text.
  let columns: Set<string> | undefined;
  const trigram = {
    has(key: string) {
      columns ??= trigramColumns(db);
      return columns.has(key);
    },
  };
  let random: Statement<unknown[]> | undefined;
  const sql: Sql = {
    statements,
    dialect: sqliteDialect(trigram, now, () => {
      random ??= db.prepare('SELECT randomblob(16)').pluck();
      return random.get() as Buffer;
    }),
    // Its statements answer at once, and so does the operation.
    run: <T>(steps: Steps<T>) => runSteps(exec, steps) as T,
    write: (fn) => {
      try {
        return db.transaction(fn).immediate();
      } catch (e) {
        throw storeError(e);
      }
    },
    pageEnds: new Bounded<PageEnd>(1000),
    trigram,
    tuning: { ...TUNING, ...tuning },
    budget: undefined,
  };
  // Asked by a list's SQL (dialect.ts, budgetGate): throws, which stops the statement, once the
  // list's budget is spent or another thread has said to stop it. Not deterministic, so that
  // SQLite asks it on every row it is written for rather than once.
  db.function('pm_budget', { deterministic: false }, () => {
    const b = sql.budget;
    if (b?.deadline !== undefined && performance.now() > b.deadline) throw new OverBudget(true);
    if (b?.stop && Atomics.load(b.stop.cells, b.stop.slot) === b.stop.id) throw new OverBudget(true);
    return 0;
  });
  return sql;
}

/** SQLite's default wal_autocheckpoint (pages), put back after a file's transaction. */
const AUTOCHECKPOINT_PAGES = 1000;

export function openSqliteStore(file: string, now: () => number = Date.now, tuning: SqliteTuning = {}): SqliteStore {
  const db = openDatabase(file);
  let sql: Sql;
  try {
    sql = sqlOf(db, now, tuning);
  } catch (e) {
    const err = damageOf(db, file, e);
    db.close();
    throw err;
  }
  const d = sql.dialect;
  const write = <T>(steps: Steps<T>): T => sql.write(() => sql.run(steps));
  // Downloads read their chunks in turn, one account's at most one at a time while another's wait.
  const downloads = new FairQueue(2);
  const staging: Staging = {
    writeChunk: guard((key, seq, data) => {
      const elsewhere = store.checkpointer;
      if (!elsewhere) return write(blobs.writeChunk(key, seq, d.now(), data));
      // A chunk's pages are checkpointed on a reader thread, not at this commit.
      db.pragma('wal_autocheckpoint = 0');
      try {
        write(blobs.writeChunk(key, seq, d.now(), data));
      } finally {
        db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
        elsewhere();
      }
    }),
    dropChunks: guard((key, from, to) => write(blobs.dropChunks(key, from, to))),
    underWay: new Set(),
  };
  const store: SqliteStore = {
    checkpointer: undefined,
    file,
    db,
    statements: sql.statements,
    list: guard((accountId, r, q, budget) => {
      sql.budget = budget;
      try {
        return listRecords(sql, accountId, r, q);
      } finally {
        sql.budget = undefined;
      }
    }),
    recordCount: (accountId, r) => keptCount(sql, accountId, r.table),
    get: guard((accountId, r, uuid, embed) => sql.run(records.getRecord(d, accountId, r, uuid, embed))),
    create: guard((accountId, r, body, parent, file, key) => {
      const keyed = (made: ReturnType<typeof records.createRecord>) =>
        key ? idempotency.keyed(d, accountId, key, made) : made;
      const upload = staged(file);
      if (upload) {
        // Its chunks are written already: the record alone, in a transaction as short as any write's.
        const rec = write(
          blobs.withStagedChunks(
            keyed(records.createRecord(d, accountId, r, body, parent, upload.key)),
            upload.key,
            upload.count,
          ),
        );
        upload.keptBy();
        return rec;
      }
      if (file) throw new Error("an upload's bytes were received by another store");
      return write(keyed(records.createRecord(d, accountId, r, body, parent)));
    }),
    update: guard((accountId, r, uuid, body) => write(records.updateRecord(d, accountId, r, uuid, body))),
    delete: guard((accountId, r, uuid) => write(records.deleteRecord(accountId, r, uuid))),
    quickCheck: () => {
      try {
        const rows = db.pragma('quick_check(20)') as { quick_check: string }[];
        // SQLite may say one problem over several lines: each is put on one.
        const problems = rows.map((x) => x.quick_check.replace(/\s*\n\s*/g, ' ')).filter((x) => x !== 'ok');
        return problems.length ? problems.join('; ') : undefined;
      } catch (e) {
        if (storeError(e) instanceof ApiError) return (e as Error).message;
        throw e;
      }
    },
    createAccount: (name) => write(tokens.createAccount(d, name)),
    firstUser: () => sql.run(tokens.firstUser()),
    userOfAccount: (accountId) => sql.run(tokens.userOfAccount(accountId)),
    createToken: (userId, name, scopes) => sql.run(tokens.createToken(d, userId, name, scopes)),
    authenticate: (token) => sql.run(tokens.authenticate(d, token)),
    listTokens: () => sql.run(tokens.listTokens()),
    revokeToken: (id) => sql.run(tokens.revokeToken(d, id)),
    createFeed: guard((owner, name) => sql.run(feeds.createFeed(d, owner, name))),
    listFeeds: guard((accountId) => sql.run(feeds.listFeeds(accountId))),
    revokeFeed: guard((accountId, uuid) => sql.run(feeds.revokeFeed(accountId, uuid))),
    openFeed: guard((secret, r) => sql.run(feeds.openFeed(secret, r))),
    sweepKeys: guard(() => write(idempotency.sweepKeys(d))),
    write: sql.write,
    blobs: {
      bytes: (accountId, key, start, end) =>
        chunkByChunk(
          guard((seq) => sql.run(blobs.chunks(key, seq, seq))[0] as Uint8Array),
          start,
          end,
          () => downloads.acquire(accountId),
        ),
      // An upload is written a chunk a transaction as it comes: a transaction on SQLite holds the
      // one writer, and cannot wait for its client.
      receive: async () => new StagedUpload(staging),
      stored: guard((accountId) => sql.run(blobs.storedBytes(accountId))),
      usage: guard(() => sql.run(blobs.usage())),
    },
    async sweepUploads(idleMs) {
      const strays = sql.run(blobs.strayUploads(d.now() - idleMs)).filter((u) => !staging.underWay.has(u.key));
      for (const u of strays) await dropStaged(staging, u.key, u.count);
      return strays.length;
    },
    ping: guard(() => {
      db.prepare('SELECT 1').get();
    }),
    close: () => db.close(),
  };
  return store;
}
