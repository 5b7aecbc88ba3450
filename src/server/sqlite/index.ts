/**
 * The Store on SQLite (better-sqlite3): one connection to a data file, its statements in a
 * bounded cache, and the store's operations in modules by concern: records.ts (with rows.ts,
 * where.ts, custom-values.ts, fold.ts) and tokens.ts. Opening the file and migrating it is db.ts's.
 */
import { ApiError } from '../../core/errors.js';
import { type DB, openDatabase } from '../db.js';
import type { ResourceDef } from '../../resources/types.js';
import type { SyncStore } from '../store.js';
import * as records from './records.js';
import { PageEnds, type Sql, StatementCache, trigramColumns } from './statements.js';
import * as tokens from './tokens.js';

export interface SqliteStore extends SyncStore {
  /** The data file (or ":memory:"). */
  readonly file: string;
  /** The connection, for tests and tools that look at the file itself. */
  readonly db: DB;
  readonly statements: StatementCache;
  /** SQLite's quick integrity check of the whole file: what is wrong, or undefined when it is sound. */
  quickCheck(): string | undefined;
  /** How many records of `r` an account has, from the counts kept (undefined on an older file). */
  recordCount(accountId: number, r: ResourceDef): number | undefined;
}

/**
 * SQLite's failures a client should hear of as what they are, not as a bare 500: a full disk
 * (507, nothing written: the transaction rolled back), a file that is damaged or was taken away.
 */
function storeError(e: unknown): unknown {
  const code = (e as { code?: unknown }).code;
  if (code === 'SQLITE_FULL')
    return new ApiError(507, 'The server cannot store this: its disk is full. Nothing was written.');
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB')
    return new ApiError(503, 'The server cannot read its data file: it is damaged.');
  return e;
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
function sqlOf(db: DB, statements: StatementCache, now: () => number, scanBelow = records.SCAN_BELOW): Sql {
  // PRAGMA data_version moves when another connection commits; this connection's own writes are counted here.
  let own = 0;
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  return {
    db,
    now,
    stmt: (text) => statements.get(text),
    write: (fn) => {
      own++;
      try {
        return db.transaction(fn).immediate();
      } catch (e) {
        throw storeError(e);
      } finally {
        own++;
      }
    },
    pageEnds: new PageEnds(),
    version: () => `${dataVersion.get()}:${own}`,
    trigram: trigramColumns(db),
    counted: db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'record_counts'`).get() !== undefined,
    scanBelow,
  };
}

/**
 * A second connection to a data file, for lists only (a reader thread's): lists answered by it
 * read a snapshot of what was committed, as any reader in WAL mode does.
 */
export function openListReader(file: string): { list: SqliteStore['list']; close(): void } {
  const db = openDatabase(file);
  const sql = sqlOf(db, new StatementCache(db), Date.now);
  return { list: guard((accountId, r, q) => records.listRecords(sql, accountId, r, q)), close: () => db.close() };
}

/** How a store plans its lists; tests set it to take each path on small data. */
export interface SqliteTuning {
  /** Below this many records of a table, a fuzzy filter beside another is tested on the rows. */
  readonly scanBelow?: number;
}

export function openSqliteStore(file: string, now: () => number = Date.now, tuning: SqliteTuning = {}): SqliteStore {
  const db = openDatabase(file);
  const statements = new StatementCache(db);
  const sql = sqlOf(db, statements, now, tuning.scanBelow);
  return {
    file,
    db,
    statements,
    list: guard((accountId, r, q) => records.listRecords(sql, accountId, r, q)),
    recordCount: (accountId, r) =>
      sql.counted
        ? ((
            sql.stmt('SELECT n FROM record_counts WHERE account_id = ? AND tbl = ?').get(accountId, r.table) as
              | { n: number }
              | undefined
          )?.n ?? 0)
        : undefined,
    get: guard((accountId, r, uuid, embed) => records.getRecord(sql, accountId, r, uuid, embed)),
    create: guard((accountId, r, body, parent) => records.createRecord(sql, accountId, r, body, parent)),
    update: guard((accountId, r, uuid, body) => records.updateRecord(sql, accountId, r, uuid, body)),
    delete: guard((accountId, r, uuid) => records.deleteRecord(sql, accountId, r, uuid)),
    quickCheck: () => {
      try {
        const rows = db.pragma('quick_check(20)') as { quick_check: string }[];
        const problems = rows.map((x) => x.quick_check).filter((x) => x !== 'ok');
        return problems.length ? problems.join('; ') : undefined;
      } catch (e) {
        if (storeError(e) instanceof ApiError) return (e as Error).message;
        throw e;
      }
    },
    createAccount: (name, userName) => tokens.createAccount(sql, name, userName),
    firstUser: () => tokens.firstUser(sql),
    userOfAccount: (accountId) => tokens.userOfAccount(sql, accountId),
    createToken: (userId, name, scopes) => tokens.createToken(sql, userId, name, scopes),
    authenticate: (token) => tokens.authenticate(sql, token),
    listTokens: () => tokens.listTokens(sql),
    revokeToken: (id) => tokens.revokeToken(sql, id),
    write: sql.write,
    ping: guard(() => {
      db.prepare('SELECT 1').get();
    }),
    close: () => db.close(),
  };
}
