/**
 * Opening a data file: SQLite in WAL mode with foreign keys and a busy timeout, migrated to the
 * current schema under an immediate transaction so that two processes opening the same new file
 * at once migrate it once.
 */
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { MissingDriverError } from '../core/errors.js';
import { type Migration, migrations, SCHEMA_VERSION } from './schema.js';
import { searchText } from './search-keys.js';

/**
 * better-sqlite3's compiled part, given to it by path: left to itself, it searches a dozen places
 * for it with the `bindings` package, which costs every run some milliseconds (the bundle holds
 * better-sqlite3's JavaScript, where that search would not find it at all). Looked for first in
 * the node_modules folders above this file, as Node would find the package (a stat each); Node's
 * own resolution, which also reads package.json files on the way (a millisecond), is the fallback;
 * node:module is loaded for it alone (with the ES module loader it brings, which costs every run).
 */
let binding: string | undefined;
const BINDING = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
function nativeBinding(): string {
  if (binding) return binding;
  // import.meta.dirname is the bundle's own __dirname (esbuild.config.mjs): no file URL made and read back.
  for (let dir = import.meta.dirname ?? dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (basename(dir) !== 'node_modules' && existsSync(join(dir, BINDING))) {
      binding = join(dir, BINDING);
      return binding;
    }
    if (dirname(dir) === dir) break;
  }
  try {
    binding = process
      .getBuiltinModule('node:module')
      .createRequire(import.meta.url)
      .resolve('better-sqlite3/build/Release/better_sqlite3.node');
  } catch {
    throw new MissingDriverError('better-sqlite3', 'the SQLite driver');
  }
  return binding;
}

export type DB = Database.Database;

const BUSY_TIMEOUT_MS = 10_000;

export function openDatabase(file: string): DB {
  // Made first when missing (most opens find it: no folder made, no EEXIST thrown and caught).
  if (file !== ':memory:' && !existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // Contacts' emails and phone numbers are personal data: a new data file is its owner's alone
    // (SQLite gives its -wal and -shm files the same mode).
    try {
      closeSync(openSync(file, 'wx', 0o600));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS, nativeBinding: nativeBinding() });
  try {
    // A file at this pm's schema version is pm's own and migrated (most opens): not checked again.
    const current = db.pragma('user_version', { simple: true }) === SCHEMA_VERSION;
    if (!current) refuseForeign(db, file);
    walMode(db);
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    withFunctions(db);
    if (!current) migrate(db);
  } catch (e) {
    const err = damageOf(db, file, e);
    db.close();
    throw err;
  }
  return db;
}

/**
 * The error to report for `e`, met while opening `file`: that the file is damaged when SQLite
 * says so, or when its own check finds damage (a damaged page of a search index is first met as
 * "vtable constructor failed"); else `e` itself.
 */
export function damageOf(db: DB, file: string, e: unknown): unknown {
  const code = (e as { code?: unknown }).code;
  let damaged = code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB';
  if (!damaged)
    try {
      damaged = db.pragma('quick_check', { simple: true }) !== 'ok';
    } catch {
      damaged = true;
    }
  return damaged
    ? new Error(`the data file ${file} is damaged (${(e as Error).message}); restore it from a backup`)
    : e;
}

/**
 * An SQLite file that is not pm's (tables of its own, no pm schema version) is refused before
 * anything is written to it: not switched to WAL, not given pm's tables.
 */
function refuseForeign(db: DB, file: string): void {
  // One statement, one snapshot: another process may be migrating the new file at this moment.
  const sql =
    "SELECT (SELECT user_version FROM pragma_user_version) AS v, (SELECT COUNT(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%') AS n";
  const { v, n } = db.prepare(sql).get() as { v: number; n: number };
  if (v === 0 && n > 0)
    throw new Error(
      `${file} is an SQLite file that is not a pm data file (it has tables of its own); pm leaves it as it is`,
    );
}

/**
 * Switches the file to WAL. SQLite answers "database is locked" at once, without waiting out the
 * busy timeout, when another process is in the middle of opening or migrating the same new file:
 * so wait and try again here, up to the same timeout.
 */
function walMode(db: DB): void {
  const until = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() > until) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/**
 * The SQL functions the schema calls, on a connection that writes: pm_search_keys(), which the
 * search indexes' triggers (from migration 5 on) call on every write of a record. A connection
 * without them cannot write a record (SQLite says "no such function").
 */
export function withFunctions(db: DB): DB {
  db.function('pm_search_keys', { deterministic: true, varargs: true }, searchText);
  return db;
}

function migrate(db: DB): void {
  const apply = db.transaction(() => {
    const all = migrations();
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > all.length)
      throw new Error(
        `the data file is at schema version ${current}, newer than this pm knows (${all.length}); upgrade pm`,
      );
    for (let v = current; v < all.length; v++) {
      const migration = all[v] as Migration;
      if (typeof migration === 'function') migration(db);
      else for (const sql of migration) db.exec(sql);
      db.pragma(`user_version = ${v + 1}`);
    }
  });
  if ((db.pragma('user_version', { simple: true }) as number) !== SCHEMA_VERSION) apply.immediate();
}
