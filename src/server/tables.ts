/**
 * Tables written once. From migration 4 on, a migration step is a literal, frozen table spec
 * (history.ts) and both stores' DDL is generated from it here: columns with their type, null,
 * default and checks; a record table's common columns, its order and update indexes, its count,
 * its order blocks (SQLite) and its search index over its fold columns, triggers included. The
 * generated text is pinned by test/server/migrations.test.ts, so a spec, once released, makes the
 * same schema for ever: a change is a new step, never an edit.
 */

/**
 * A column: text, an integer, a 0/1 boolean, the id of a row of another table, a time (ms since
 * the epoch: a 64-bit integer on PostgreSQL), a 64-bit integer (`bigint`), or bytes (BLOB, BYTEA).
 */
export interface ColumnSpec {
  readonly name: string;
  readonly type: 'text' | 'int' | 'bool' | 'id' | 'time' | 'bigint' | 'bytes';
  readonly notNull?: boolean;
  readonly default?: number;
  /** Text: at most this many characters. */
  readonly maxLength?: number;
  /** Int: one of these values. */
  readonly oneOf?: readonly number[];
  /** Id: the table it refers to, and what deleting that row does to this one. */
  readonly references?: { readonly table: string; readonly onDelete: 'CASCADE' | 'SET NULL' };
}

/**
 * A table. A record table (`records`) holds an account's records: it has id, account_id, uuid,
 * created_at and updated_at before its own columns, indexes for list order and updated_at, a
 * kept count, order blocks (SQLite), and a search index over its `folded` columns (each a text
 * column whose folded copy, `<name>_fold`, the code writes). Any other table (a join table)
 * has its columns alone and a primary key.
 */
export interface TableSpec {
  readonly name: string;
  readonly records: boolean;
  readonly columns: readonly ColumnSpec[];
  readonly folded?: readonly string[];
  /**
   * Of `folded`, those whose text may be longer than 255 characters (a note's content): searched
   * by their keys alone, never by a phrase (sqlite/dialect.ts), so SQLite's index keeps each key
   * of a row once.
   */
  readonly long?: readonly string[];
  /** Indexes, each of column names: a record table's are led by account_id. */
  readonly indexes?: readonly (readonly string[])[];
  readonly primaryKey?: readonly string[];
}

/**
 * A migration step: a new table, columns added to a table (with their indexes), one statement
 * both stores run as written, or a record table whose deletes are stamped (`stampDeletes`: the
 * time an account's record of it was last deleted, kept in record_counts.deleted_at by a trigger,
 * so that what is derived from the table can tell a delete from no change).
 */
export type Step =
  | { readonly create: TableSpec }
  | {
      readonly alter: string;
      readonly add: readonly ColumnSpec[];
      readonly indexes?: readonly (readonly string[])[];
    }
  | { readonly sql: string }
  /** One statement PostgreSQL runs as written (SQLite has nothing to do). */
  | { readonly postgres: string }
  /** One statement SQLite runs as written (PostgreSQL has nothing to do). */
  | { readonly sqlite: string }
  /** SQLite: the triggers that count every write of a record table in its account's record_counts.writes. */
  | { readonly countWrites: string }
  /**
   * A record table's search index made keyed (search-keys.ts): on SQLite, its trigram index
   * replaced; on PostgreSQL, each fold column's trigram index (where pg_trgm made one) replaced
   * by a column of its keys, filled, and a GIN index over it.
   */
  | {
      readonly searchKeys: {
        readonly table: string;
        readonly folded: readonly string[];
        readonly long?: readonly string[];
      };
    }
  /** Triggers that stamp record_counts.deleted_at when a record of the table is deleted. */
  | { readonly stampDeletes: string }
  /** SQLite: a record table's update blocks (UPDATE_BLOCKS), filled from its rows and kept by triggers. */
  | { readonly updateBlocks: string };

/** The record tables of migration 1, written as SQL (schema.ts), to which migration 3 gave counts, order blocks and indexes. */
export const FIRST_RECORD_TABLES = ['contacts', 'properties', 'custom_fields', 'notes', 'reminders'] as const;

/**
 * Where an account's records sit in a trigram index: a row's key there is its account's id times
 * TRIGRAM_ACCOUNT_SPAN plus its own id, so that one account's matches are a range of keys the
 * index reads alone (a count needs no row). Record ids stay below 2^32, accounts below 2^31.
 */
export const TRIGRAM_ACCOUNT_SPAN = 4294967296;

/**
 * The records of an account's table, in list order (created_at, id), fall in blocks of about this
 * many: a block is the range from its first key to the next block's, and keeps how many records
 * it holds, so that a deep page of an unfiltered list adds up block sizes to find where it starts.
 */
export const ORDER_BLOCK = 1024;

/**
 * A record table's count in record_counts (migration 3): filled from the rows already there, and
 * kept by triggers. Migration 3's text for its tables, and every later record table's.
 */
export function countTriggers(t: string): string[] {
  return [
    `INSERT INTO record_counts (account_id, tbl, n) SELECT account_id, '${t}', COUNT(*) FROM ${t} GROUP BY account_id`,
    `CREATE TRIGGER ${t}_count_insert AFTER INSERT ON ${t} BEGIN
  INSERT INTO record_counts (account_id, tbl, n) VALUES (NEW.account_id, '${t}', 1)
    ON CONFLICT (account_id, tbl) DO UPDATE SET n = n + 1;
END`,
    `CREATE TRIGGER ${t}_count_delete AFTER DELETE ON ${t} BEGIN
  UPDATE record_counts SET n = n - 1 WHERE account_id = OLD.account_id AND tbl = '${t}';
END`,
  ];
}

/**
 * A record table's writes (every insert, update and delete) counted in its account's
 * record_counts.writes (migration 5 on, SQLite): what a keyset page's hint checks, so that it
 * holds until the account itself writes, whatever other accounts do (sqlite/records.ts).
 */
function writeTriggers(t: string): string[] {
  const bump = (row: string) =>
    `UPDATE record_counts SET writes = writes + 1 WHERE account_id = ${row}.account_id AND tbl = '${t}';`;
  return [
    `CREATE TRIGGER ${t}_writes_insert AFTER INSERT ON ${t} BEGIN
  INSERT INTO record_counts (account_id, tbl, n, writes) VALUES (NEW.account_id, '${t}', 0, 1)
    ON CONFLICT (account_id, tbl) DO UPDATE SET writes = writes + 1;
END`,
    `CREATE TRIGGER ${t}_writes_update AFTER UPDATE ON ${t} BEGIN
  ${bump('NEW')}
END`,
    `CREATE TRIGGER ${t}_writes_delete AFTER DELETE ON ${t} BEGIN
  ${bump('OLD')}
END`,
  ];
}

/**
 * The blocks an account's records of a table are kept in, in one order: `order_blocks` in list
 * order, (created_at, id), from migration 3; `update_blocks` in (updated_at, id), from the migration
 * that made it (history.ts), which also drops a block once it holds no record (an update moves its
 * record to the last block, so the blocks it leaves would otherwise pile up).
 */
export interface BlockOrder {
  readonly table: 'order_blocks' | 'update_blocks';
  readonly column: 'created_at' | 'updated_at';
}

export const ORDER_BLOCKS: BlockOrder = { table: 'order_blocks', column: 'created_at' };
export const UPDATE_BLOCKS: BlockOrder = { table: 'update_blocks', column: 'updated_at' };

/**
 * A record table's blocks in one order (migration 3's order blocks; update blocks): filled from the
 * rows already there, and kept by triggers. A record joins the block its key falls in, or starts a
 * new last block when it comes after a full one; one earlier than the first block's key moves
 * that key. Update blocks also follow an update of updated_at (the record leaves its block and
 * joins as an insert would), and drop a block that an update or a delete empties: a block is the
 * range from its key to the next block's, so the block before takes its range and its size stays
 * exact (a first block dropped leaves the next one first, whose key is at or before every record's:
 * none lay before it). Migration 3's text for its tables, and every later record table's.
 */
export function blockTriggers(t: string, o: BlockOrder = ORDER_BLOCKS): string[] {
  const { table, column: c } = o;
  const blocks = `${table} WHERE account_id = NEW.account_id AND tbl = '${t}'`;
  const holding = (row: string) =>
    `(SELECT ${c}, id FROM ${table} WHERE account_id = ${row}.account_id AND tbl = '${t}'
      AND (${c}, id) <= (${row}.${c}, ${row}.id) ORDER BY ${c} DESC, id DESC LIMIT 1)`;
  const join = `  INSERT INTO ${table} (account_id, tbl, ${c}, id, n)
    SELECT NEW.account_id, '${t}', NEW.${c}, NEW.id, 0
    WHERE COALESCE((SELECT n >= ${ORDER_BLOCK} AND (${c}, id) < (NEW.${c}, NEW.id) FROM ${blocks}
      ORDER BY ${c} DESC, id DESC LIMIT 1), 1);
  UPDATE ${table} SET ${c} = NEW.${c}, id = NEW.id
    WHERE account_id = NEW.account_id AND tbl = '${t}'
    AND (${c}, id) = (SELECT ${c}, id FROM ${blocks} ORDER BY ${c}, id LIMIT 1)
    AND (${c}, id) > (NEW.${c}, NEW.id);
  UPDATE ${table} SET n = n + 1
    WHERE account_id = NEW.account_id AND tbl = '${t}' AND (${c}, id) = ${holding('NEW')};`;
  // Migration 3's order blocks keep an emptied block, and follow no update (created_at never changes).
  const updated = o !== ORDER_BLOCKS;
  const leave = `  UPDATE ${table} SET n = n - 1
    WHERE account_id = OLD.account_id AND tbl = '${t}' AND (${c}, id) = ${holding('OLD')};${
      updated
        ? `
  DELETE FROM ${table}
    WHERE account_id = OLD.account_id AND tbl = '${t}' AND (${c}, id) = ${holding('OLD')} AND n = 0;`
        : ''
    }`;
  const name = updated ? `${t}_update_block` : `${t}_block`;
  return [
    `INSERT INTO ${table} (account_id, tbl, ${c}, id, n)
SELECT account_id, '${t}', ${c}, id, MIN(${ORDER_BLOCK}, of - k + 1) FROM (
  SELECT account_id, ${c}, id,
    row_number() OVER (PARTITION BY account_id ORDER BY ${c}, id) AS k,
    COUNT(*) OVER (PARTITION BY account_id) AS of
  FROM ${t}
) WHERE (k - 1) % ${ORDER_BLOCK} = 0`,
    `CREATE TRIGGER ${name}_insert AFTER INSERT ON ${t} BEGIN
${join}
END`,
    `CREATE TRIGGER ${name}_delete AFTER DELETE ON ${t} BEGIN
${leave}
END`,
    ...(updated
      ? [
          `CREATE TRIGGER ${name}_update AFTER UPDATE OF ${c} ON ${t} WHEN OLD.${c} IS NOT NEW.${c} BEGIN
${leave}
${join}
END`,
        ]
      : []),
  ];
}

/**
 * A record table's search index over its fold columns (`folded`: the columns folded, without
 * _fold), contentless and keyed by account and id: filled from the rows already there, and kept
 * by triggers. Up to migration 4, an index of the text's trigrams, which every account shares (a
 * search read the matches of every account, and cost what they held); from migration 5 on,
 * `keyed`: an index of the text's search keys (search-keys.ts), each led by the account, which
 * pm_search_keys() computes.
 */
export function searchIndex(
  t: string,
  folded: readonly string[],
  keyed = false,
  long: readonly string[] = [],
): string[] {
  const cols = folded.map((c) => `"${c}_fold"`);
  const key = (row: string) => `${row}.account_id * ${TRIGRAM_ACCOUNT_SPAN} + ${row}.id`;
  const keysOf = (row: string, c: string) =>
    `pm_search_keys(${row}.account_id, ${row}."${c}_fold"${long.includes(c) ? ', 1' : ''})`;
  const values = (row: string) => folded.map((c) => (keyed ? keysOf(row, c) : `${row}."${c}_fold"`)).join(', ');
  const insert = (row: string) =>
    `INSERT INTO ${t}_fts (rowid, ${cols.join(', ')}) VALUES (${key(row)}, ${values(row)});`;
  const tokenize = keyed ? 'ascii' : 'trigram case_sensitive 1';
  return [
    `CREATE VIRTUAL TABLE ${t}_fts USING fts5(${cols.join(', ')}, content='', contentless_delete=1, tokenize='${tokenize}')`,
    `INSERT INTO ${t}_fts (rowid, ${cols.join(', ')}) SELECT ${key(t)}, ${values(t)} FROM ${t}`,
    `CREATE TRIGGER ${t}_fts_insert AFTER INSERT ON ${t} BEGIN
  SELECT RAISE(ABORT, 'record ids must stay below 2^32') WHERE NEW.id >= ${TRIGRAM_ACCOUNT_SPAN};
  ${insert('NEW')}
END`,
    `CREATE TRIGGER ${t}_fts_delete AFTER DELETE ON ${t} BEGIN
  DELETE FROM ${t}_fts WHERE rowid = ${key('OLD')};
END`,
    `CREATE TRIGGER ${t}_fts_update AFTER UPDATE OF ${cols.join(', ')} ON ${t} BEGIN
  DELETE FROM ${t}_fts WHERE rowid = ${key('OLD')};
  ${insert('NEW')}
END`,
  ];
}

/**
 * A record table's GIN indexes over its fold columns' search keys, on PostgreSQL (migration 5 on).
 * Without GIN's pending list (fastupdate off): a search reads that list whole, whoever's rows are
 * in it, so with it one account's recent writes would add to what another's search costs.
 */
function pgKeysIndexes(t: string, folded: readonly string[]): string[] {
  return folded.map((c) => `CREATE INDEX ${t}_${c}_keys ON ${t} USING gin ("${c}_keys") WITH (fastupdate = off)`);
}

/**
 * PostgreSQL's search keys of the rows already there when migration 5 runs, as pm writes them
 * (search-keys.ts): the distinct keys of a text, its characters read once, in order. Made for the
 * migration and dropped after it (pm computes every later row's keys itself: this costs some 13
 * times what pg_trgm's own C code does).
 */
export const PG_MIGRATION_KEYS = `CREATE FUNCTION pm_migration_keys(account BIGINT, t TEXT) RETURNS TEXT[]
LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT array_agg(DISTINCT account::text || 'x' || encode(convert_to(k, 'UTF8'), 'hex'))
  FROM (
    SELECT c || lead(c, 1) OVER w || lead(c, 2) OVER w AS k
    FROM unnest(string_to_array(t, NULL)) WITH ORDINALITY AS u(c, n)
    WINDOW w AS (ORDER BY n)
  ) s
  WHERE k IS NOT NULL
$$`;

/**
 * A record table's count in record_counts (migration 3): kept by statement-level triggers, and
 * filled from the rows already there. Migration 3's text for its tables, and every later record table's.
 */
export function pgCountTriggers(t: string): string[] {
  return [
    `CREATE TRIGGER ${t}_inserted AFTER INSERT ON ${t} REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION pm_count_inserted()`,
    `CREATE TRIGGER ${t}_deleted AFTER DELETE ON ${t} REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION pm_count_deleted()`,
    `INSERT INTO record_counts (account_id, tbl, n) SELECT account_id, '${t}', COUNT(*) FROM ${t} GROUP BY account_id`,
  ];
}

type Dialect = 'sqlite' | 'postgres';

/** A field's column is quoted ("type" is a word of SQL); an id column is not, as migration 1 wrote them. */
const quoted = (c: ColumnSpec) => (c.type === 'id' ? c.name : `"${c.name}"`);
const nameOf = (cols: readonly string[]) => cols.join(', ');
/** In an index: a record table's own columns and ids as they are, a field's quoted. */
const columnRef = (name: string) => (name === 'account_id' || name.endsWith('_id') ? name : `"${name}"`);

function columnSql(c: ColumnSpec, d: Dialect): string {
  const q = quoted(c);
  const wide = c.type === 'id' || c.type === 'time' || c.type === 'bigint';
  const bytes = d === 'postgres' ? 'BYTEA' : 'BLOB';
  const type =
    c.type === 'text' ? 'TEXT' : c.type === 'bytes' ? bytes : wide && d === 'postgres' ? 'BIGINT' : 'INTEGER';
  const parts = [q, type];
  if (c.notNull) parts.push('NOT NULL');
  if (c.default !== undefined) parts.push(`DEFAULT ${c.default}`);
  if (c.maxLength !== undefined)
    parts.push(`CHECK (${d === 'postgres' ? 'char_length' : 'length'}(${q}) <= ${c.maxLength})`);
  if (c.type === 'bool') parts.push(`CHECK (${q} IN (0, 1))`);
  if (c.oneOf) parts.push(`CHECK (${q} IN (${c.oneOf.join(', ')}))`);
  if (c.references) parts.push(`REFERENCES ${c.references.table}(id) ON DELETE ${c.references.onDelete}`);
  return parts.join(' ');
}

function recordColumns(d: Dialect): string[] {
  const id = d === 'postgres' ? 'BIGINT' : 'INTEGER';
  return [
    d === 'postgres' ? 'id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY' : 'id INTEGER PRIMARY KEY',
    `account_id ${id} NOT NULL REFERENCES accounts(id) ON DELETE CASCADE`,
    'uuid TEXT NOT NULL UNIQUE',
    `created_at ${id} NOT NULL`,
    `updated_at ${id} NOT NULL`,
  ];
}

function indexSql(table: string, cols: readonly string[]): string {
  const name = `${table}_${cols.filter((c) => c !== 'account_id').join('_')}`;
  return `CREATE INDEX ${name} ON ${table} (${nameOf(cols.map(columnRef))})`;
}

/** A PostgreSQL trigram index on each fold column, where pg_trgm is installed (migration 2 made it when it could). */
function pgSearchIndex(t: string, folded: readonly string[]): string {
  const made = folded.map((c) => `    CREATE INDEX ${t}_${c}_trgm ON ${t} USING gin ("${c}_fold" gin_trgm_ops);`);
  return `DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
${made.join('\n')}
  END IF;
END
$$`;
}

/**
 * SQLite's order index from the update blocks' migration on: list order, with the update time
 * beside it, so that a page of an update-time range walks the index alone, no row read
 * (sqlite/records.ts, `window`).
 */
function orderIndex(t: string): string {
  return `CREATE INDEX ${t}_order ON ${t} (account_id, created_at, id, updated_at)`;
}

function createTable(t: TableSpec, d: Dialect, accountLed: boolean, updateBlocks: boolean): string[] {
  const lines = [
    ...(t.records ? recordColumns(d) : []),
    ...t.columns.map((c) => columnSql(c, d)),
    ...(t.folded ?? []).map((c) => `"${c}_fold" TEXT`),
    ...(accountLed && d === 'postgres' ? (t.folded ?? []).map((c) => `"${c}_keys" TEXT[]`) : []),
  ];
  if (t.primaryKey) lines.push(`PRIMARY KEY (${nameOf(t.primaryKey)})`);
  const out = [`CREATE TABLE ${t.name} (\n  ${lines.join(',\n  ')}\n)`];
  if (t.records)
    out.push(
      d === 'sqlite' && updateBlocks
        ? orderIndex(t.name)
        : `CREATE INDEX ${t.name}_order ON ${t.name} (account_id, created_at, id)`,
      `CREATE INDEX ${t.name}_updated ON ${t.name} (account_id, updated_at)`,
    );
  for (const cols of t.indexes ?? []) out.push(indexSql(t.name, cols));
  if (!t.records) return out;
  const folded = t.folded ?? [];
  if (d === 'sqlite')
    out.push(
      ...countTriggers(t.name),
      ...blockTriggers(t.name),
      ...(accountLed ? writeTriggers(t.name) : []),
      ...(updateBlocks ? blockTriggers(t.name, UPDATE_BLOCKS) : []),
    );
  else out.push(...pgCountTriggers(t.name));
  if (!folded.length) return out;
  if (d === 'sqlite') out.push(...searchIndex(t.name, folded, accountLed, t.long));
  else out.push(...(accountLed ? pgKeysIndexes(t.name, folded) : [pgSearchIndex(t.name, folded)]));
  return out;
}

/** A record table's search index made keyed, in one store's dialect. */
function searchKeysSql(table: string, folded: readonly string[], d: Dialect, long?: readonly string[]): string[] {
  if (d === 'postgres')
    return [
      ...folded.map((c) => `DROP INDEX IF EXISTS ${table}_${c}_trgm`),
      `ALTER TABLE ${table} ${folded.map((c) => `ADD COLUMN "${c}_keys" TEXT[]`).join(', ')}`,
      `UPDATE ${table} SET ${folded.map((c) => `"${c}_keys" = pm_migration_keys(account_id, "${c}_fold")`).join(', ')}`,
      ...pgKeysIndexes(table, folded),
    ];
  return [
    ...['insert', 'delete', 'update'].map((w) => `DROP TRIGGER ${table}_fts_${w}`),
    `DROP TABLE ${table}_fts`,
    ...searchIndex(table, folded, true, long),
  ];
}

/**
 * The triggers that stamp record_counts.deleted_at when a record of `t` is deleted (by the
 * database's clock, in ms): one per row on SQLite, one per statement on PostgreSQL.
 */
function deleteStamps(t: string, d: Dialect): string[] {
  if (d === 'sqlite')
    return [
      `CREATE TRIGGER ${t}_stamp_delete AFTER DELETE ON ${t} BEGIN
  UPDATE record_counts SET deleted_at = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
    WHERE account_id = OLD.account_id AND tbl = '${t}';
END`,
    ];
  return [
    `CREATE OR REPLACE FUNCTION pm_stamp_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE record_counts c SET deleted_at = (extract(epoch FROM clock_timestamp()) * 1000)::bigint
    FROM (SELECT DISTINCT account_id FROM deleted) d
    WHERE c.account_id = d.account_id AND c.tbl = TG_TABLE_NAME;
  RETURN NULL;
END
$$`,
    `CREATE TRIGGER ${t}_stamp_delete AFTER DELETE ON ${t} REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION pm_stamp_deleted()`,
  ];
}

/** The statements of one step, in one store's dialect. */
function stepSql(step: Step, d: Dialect, accountLed: boolean, updateBlocks: boolean): string[] {
  if ('sql' in step) return [step.sql];
  if ('postgres' in step) return d === 'postgres' ? [step.postgres] : [];
  if ('sqlite' in step) return d === 'sqlite' ? [step.sqlite] : [];
  if ('countWrites' in step) return d === 'sqlite' ? writeTriggers(step.countWrites) : [];
  if ('updateBlocks' in step)
    return d === 'sqlite'
      ? [
          `DROP INDEX ${step.updateBlocks}_order`,
          orderIndex(step.updateBlocks),
          ...blockTriggers(step.updateBlocks, UPDATE_BLOCKS),
        ]
      : [];
  if ('create' in step) return createTable(step.create, d, accountLed, updateBlocks);
  if ('searchKeys' in step) {
    const { table, folded, long } = step.searchKeys;
    return searchKeysSql(table, folded, d, long);
  }
  if ('stampDeletes' in step) return deleteStamps(step.stampDeletes, d);
  return [
    ...step.add.map((c) => `ALTER TABLE ${step.alter} ADD COLUMN ${columnSql(c, d)}`),
    ...(step.indexes ?? []).map((cols) => indexSql(step.alter, cols)),
  ];
}

/**
 * A migration's statements, from its steps, in one store's dialect. `accountLed` (every migration
 * from 5 on: history.ts): a record table it creates gets keyed search indexes and, on SQLite,
 * its account's write counter. `updateBlocks` (every migration from the one that made them on):
 * on SQLite, its update blocks.
 */
export function migrationSql(steps: readonly Step[], d: Dialect, accountLed = false, updateBlocks = false): string[] {
  return steps.flatMap((s) => stepSql(s, d, accountLed, updateBlocks));
}
