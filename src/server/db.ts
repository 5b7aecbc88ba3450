/**
 * Opening a data file: SQLite in WAL mode with foreign keys and a busy timeout, migrated to the
 * current schema under an immediate transaction so that two processes opening the same new file
 * at once migrate it once.
 */
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { MIGRATIONS, type Migration } from './schema.js';

// Required rather than imported: an ES import of this CommonJS module has Node scan its source for
// export names on every run.
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

export type DB = BetterSqlite3.Database;

export const BUSY_TIMEOUT_MS = 10_000;

export function openDatabase(file: string): DB {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  migrate(db);
  return db;
}

export function migrate(db: DB): void {
  const apply = db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > MIGRATIONS.length)
      throw new Error(
        `the data file is at schema version ${current}, newer than this pm knows (${MIGRATIONS.length}); upgrade pm`,
      );
    for (let v = current; v < MIGRATIONS.length; v++) {
      const migration = MIGRATIONS[v] as Migration;
      if (typeof migration === 'function') migration(db);
      else for (const sql of migration) db.exec(sql);
      db.pragma(`user_version = ${v + 1}`);
    }
  });
  if ((db.pragma('user_version', { simple: true }) as number) !== MIGRATIONS.length) apply.immediate();
}
