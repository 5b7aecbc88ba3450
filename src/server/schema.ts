/**
 * The database schema's history: migrations applied in order, the version recorded in PRAGMA
 * user_version. Migrations are history: once released, a migration is never edited (a test
 * pins each one's text); a change to the schema is a new migration at the end of the list, and
 * test/server/migrations.test.ts checks that the schema they make matches the descriptions.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { HISTORY, accountLedAt, updateBlocksAt } from './history.js';
import { blockTriggers, countTriggers, FIRST_RECORD_TABLES, migrationSql, searchIndex } from './tables.js';

export { ORDER_BLOCK, TRIGRAM_ACCOUNT_SPAN } from './tables.js';

/** A migration: statements run in order, or a function given the connection (in the same transaction). */
export type Migration = readonly string[] | ((db: BetterSqlite3.Database) => void);

/** Migration 1 (pm 0.1.0): accounts, users, tokens, the five resources, custom values. */
const initial: readonly string[] = [
  `CREATE TABLE accounts (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL
)`,
  `CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL
)`,
  `CREATE TABLE tokens (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  hint TEXT NOT NULL,
  scopes TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER,
  revoked_at INTEGER
)`,
  `CREATE TABLE contacts (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  uuid TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  "name" TEXT NOT NULL CHECK (length("name") <= 255),
  "email" TEXT NOT NULL CHECK (length("email") <= 255),
  "contact_number" TEXT CHECK (length("contact_number") <= 255),
  "company" TEXT CHECK (length("company") <= 255),
  "address" TEXT CHECK (length("address") <= 255),
  "address2" TEXT CHECK (length("address2") <= 255),
  "city" TEXT CHECK (length("city") <= 255),
  "county" TEXT CHECK (length("county") <= 255),
  "postcode" TEXT CHECK (length("postcode") <= 255)
)`,
  `CREATE INDEX contacts_order ON contacts (account_id, created_at, id)`,
  `CREATE INDEX contacts_updated ON contacts (account_id, updated_at)`,
  `CREATE TABLE properties (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  uuid TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  "address" TEXT NOT NULL CHECK (length("address") <= 255),
  "address2" TEXT CHECK (length("address2") <= 255),
  "city" TEXT CHECK (length("city") <= 255),
  "county" TEXT CHECK (length("county") <= 255),
  "postcode" TEXT NOT NULL CHECK (length("postcode") <= 255),
  "type" TEXT CHECK (length("type") <= 255),
  "bedrooms" INTEGER NOT NULL DEFAULT 0 CHECK ("bedrooms" BETWEEN 0 AND 1000),
  "bathrooms" INTEGER NOT NULL DEFAULT 0 CHECK ("bathrooms" BETWEEN 0 AND 1000),
  "has_garage" INTEGER NOT NULL DEFAULT 0 CHECK ("has_garage" IN (0, 1)),
  "has_garden" INTEGER NOT NULL DEFAULT 0 CHECK ("has_garden" IN (0, 1)),
  "has_parking" INTEGER NOT NULL DEFAULT 0 CHECK ("has_parking" IN (0, 1)),
  contact_id INTEGER REFERENCES contacts(id) ON DELETE SET NULL
)`,
  `CREATE INDEX properties_order ON properties (account_id, created_at, id)`,
  `CREATE INDEX properties_updated ON properties (account_id, updated_at)`,
  `CREATE INDEX properties_bedrooms ON properties (account_id, "bedrooms")`,
  `CREATE INDEX properties_bathrooms ON properties (account_id, "bathrooms")`,
  `CREATE INDEX properties_has_garage ON properties (account_id, "has_garage")`,
  `CREATE INDEX properties_has_garden ON properties (account_id, "has_garden")`,
  `CREATE INDEX properties_has_parking ON properties (account_id, "has_parking")`,
  `CREATE INDEX properties_contact_id ON properties (contact_id)`,
  `CREATE TABLE custom_fields (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  uuid TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  "name" TEXT CHECK (length("name") <= 255),
  "label" TEXT NOT NULL CHECK (length("label") <= 255),
  "type" INTEGER NOT NULL CHECK ("type" IN (1)),
  "entity_type" INTEGER NOT NULL CHECK ("entity_type" IN (1, 2)),
  UNIQUE (account_id, entity_type, name)
)`,
  `CREATE INDEX custom_fields_order ON custom_fields (account_id, created_at, id)`,
  `CREATE INDEX custom_fields_updated ON custom_fields (account_id, updated_at)`,
  `CREATE INDEX custom_fields_type ON custom_fields (account_id, "type")`,
  `CREATE INDEX custom_fields_entity_type ON custom_fields (account_id, "entity_type")`,
  `CREATE TABLE notes (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  uuid TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  "content" TEXT NOT NULL CHECK (length("content") <= 65535),
  property_id INTEGER REFERENCES properties(id) ON DELETE CASCADE,
  contact_id INTEGER REFERENCES contacts(id) ON DELETE CASCADE,
  CHECK (((property_id IS NOT NULL) + (contact_id IS NOT NULL)) = 1)
)`,
  `CREATE INDEX notes_order ON notes (account_id, created_at, id)`,
  `CREATE INDEX notes_updated ON notes (account_id, updated_at)`,
  `CREATE INDEX notes_property_id ON notes (property_id)`,
  `CREATE INDEX notes_contact_id ON notes (contact_id)`,
  `CREATE TABLE reminders (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  uuid TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  "title" TEXT NOT NULL CHECK (length("title") <= 255),
  "description" TEXT CHECK (length("description") <= 65535),
  "due_at" INTEGER,
  "due_at_is_date" INTEGER NOT NULL DEFAULT 0 CHECK ("due_at_is_date" IN (0, 1)),
  "anytime" INTEGER NOT NULL DEFAULT 0 CHECK ("anytime" IN (0, 1))
)`,
  `CREATE INDEX reminders_order ON reminders (account_id, created_at, id)`,
  `CREATE INDEX reminders_updated ON reminders (account_id, updated_at)`,
  `CREATE INDEX reminders_due_at ON reminders (account_id, "due_at")`,
  `CREATE INDEX reminders_anytime ON reminders (account_id, "anytime")`,
  `CREATE TABLE custom_values (
  id INTEGER PRIMARY KEY,
  field_id INTEGER NOT NULL REFERENCES custom_fields(id) ON DELETE CASCADE,
  property_id INTEGER REFERENCES properties(id) ON DELETE CASCADE,
  contact_id INTEGER REFERENCES contacts(id) ON DELETE CASCADE,
  value TEXT NOT NULL,
  CHECK ((property_id IS NULL) <> (contact_id IS NULL)),
  UNIQUE (field_id, property_id),
  UNIQUE (field_id, contact_id)
)`,
  `CREATE INDEX custom_values_property ON custom_values (property_id)`,
  `CREATE INDEX custom_values_contact ON custom_values (contact_id)`,
];

/**
 * The fold columns of migration 2, in order: table, column, and whether it is a postcode (white
 * space dropped). A fuzzy filter matches a folded copy of its column with instr() rather than
 * running a function on every row.
 */
const FOLDED: readonly (readonly [string, string, boolean])[] = Object.entries({
  contacts: ['name', 'email', 'contact_number', 'company', 'address', 'address2', 'city', 'county', 'postcode'],
  properties: ['address', 'address2', 'city', 'county', 'postcode', 'type'],
  custom_fields: ['name', 'label'],
  notes: ['content'],
  reminders: ['title'],
}).flatMap(([table, columns]) => columns.map((c) => [table, c, c === 'postcode'] as const));

/**
 * Migration 2: a folded copy of every fuzzy-filtered text column, and of each custom value,
 * filled from the rows already there. The fold is JavaScript's toLowerCase (every letter, unlike
 * SQLite's lower()); for a postcode, white space is dropped too. Builds of pm made between 0.1.0
 * and this migration created these columns within migration 1: they are kept, and filled again.
 */
function foldColumns(db: BetterSqlite3.Database): void {
  const has = (table: string, column: string) =>
    (db.pragma(`table_info(${table})`) as { name: string }[]).some((c) => c.name === column);
  db.function('pm_migration_fold', { deterministic: true }, (value: unknown, postcode: unknown) =>
    typeof value === 'string' ? (postcode ? value.toLowerCase().replace(/\s+/g, '') : value.toLowerCase()) : null,
  );
  for (const [table, column, postcode] of FOLDED) {
    if (!has(table, `${column}_fold`)) db.exec(`ALTER TABLE ${table} ADD COLUMN "${column}_fold" TEXT`);
    db.exec(`UPDATE ${table} SET "${column}_fold" = pm_migration_fold("${column}", ${postcode ? 1 : 0})`);
  }
  if (!has('custom_values', 'value_fold'))
    db.exec(`ALTER TABLE custom_values ADD COLUMN value_fold TEXT NOT NULL DEFAULT ''`);
  db.exec('UPDATE custom_values SET value_fold = pm_migration_fold(value, 0)');
}

/** The resource tables of migration 3. */
const TABLES = FIRST_RECORD_TABLES;

/**
 * Migration 3, for lists at scale: a count of each account's records per table, kept by
 * triggers (an unfiltered list's total without counting the rows); the order blocks of each
 * account's table (ORDER_BLOCK), kept by triggers: a record joins the block its key falls in,
 * or starts a new last block when it comes after a full one (records come in creation order, so
 * blocks stay near their size; one made earlier than the first block's key moves that key); and
 * a trigram index (FTS5) over the fold columns of each table (a fuzzy filter of three characters
 * or more looks its matches up instead of reading every row). The indexes are contentless (they keep no text, only
 * which key holds which trigrams), keyed by account and id (TRIGRAM_ACCOUNT_SPAN), kept by
 * triggers and filled from the rows already there. Not in a release before it took this form.
 */
function scaleIndexes(): string[] {
  const out = [
    `CREATE TABLE record_counts (
  account_id INTEGER NOT NULL,
  tbl TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (account_id, tbl)
) WITHOUT ROWID`,
  ];
  for (const t of TABLES) out.push(...countTriggers(t));
  out.push(`CREATE TABLE order_blocks (
  account_id INTEGER NOT NULL,
  tbl TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  id INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (account_id, tbl, created_at, id)
) WITHOUT ROWID`);
  for (const t of TABLES) out.push(...blockTriggers(t));
  for (const t of TABLES)
    out.push(
      ...searchIndex(
        t,
        FOLDED.filter(([table]) => table === t).map(([, c]) => c),
      ),
    );
  return out;
}

/** The schema version this pm writes: the number of migrations (three written here, then HISTORY's). */
export const SCHEMA_VERSION = 3 + HISTORY.length;

let made: readonly Migration[] | undefined;

/**
 * Every migration, in order; index + 1 is the user_version after applying one. Made when first
 * asked (their text is generated): opening a data file at SCHEMA_VERSION needs none of them.
 */
export function migrations(): readonly Migration[] {
  made ??= [
    initial,
    foldColumns,
    scaleIndexes(),
    ...HISTORY.map((steps, i) => migrationSql(steps, 'sqlite', accountLedAt(i), updateBlocksAt(i))),
  ];
  return made;
}
