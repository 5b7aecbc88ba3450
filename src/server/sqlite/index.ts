/**
 * The Store on SQLite (better-sqlite3): one connection to a data file, its statements in a
 * bounded cache, and the store's operations in modules by concern: records.ts (with rows.ts,
 * where.ts, custom-values.ts, fold.ts) and tokens.ts. Opening the file and migrating it is db.ts's.
 */
import { type DB, openDatabase } from '../db.js';
import type { SyncStore } from '../store.js';
import * as records from './records.js';
import { type Sql, StatementCache } from './statements.js';
import * as tokens from './tokens.js';

export interface SqliteStore extends SyncStore {
  /** The data file (or ":memory:"). */
  readonly file: string;
  /** The connection, for tests and tools that look at the file itself. */
  readonly db: DB;
  readonly statements: StatementCache;
}

export function openSqliteStore(file: string, now: () => number = Date.now): SqliteStore {
  const db = openDatabase(file);
  const statements = new StatementCache(db);
  const sql: Sql = {
    db,
    now,
    stmt: (text) => statements.get(text),
    write: (fn) => db.transaction(fn).immediate(),
  };
  return {
    file,
    db,
    statements,
    list: (accountId, r, q) => records.listRecords(sql, accountId, r, q),
    get: (accountId, r, uuid, embed) => records.getRecord(sql, accountId, r, uuid, embed),
    create: (accountId, r, body, parent) => records.createRecord(sql, accountId, r, body, parent),
    update: (accountId, r, uuid, body) => records.updateRecord(sql, accountId, r, uuid, body),
    delete: (accountId, r, uuid) => records.deleteRecord(sql, accountId, r, uuid),
    createAccount: (name, userName) => tokens.createAccount(sql, name, userName),
    firstUser: () => tokens.firstUser(sql),
    userOfAccount: (accountId) => tokens.userOfAccount(sql, accountId),
    createToken: (userId, name, scopes) => tokens.createToken(sql, userId, name, scopes),
    authenticate: (token) => tokens.authenticate(sql, token),
    listTokens: () => tokens.listTokens(sql),
    revokeToken: (id) => tokens.revokeToken(sql, id),
    write: sql.write,
    close: () => db.close(),
  };
}
