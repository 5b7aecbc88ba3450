/**
 * The database schema: versioned migrations, applied in order, recorded in PRAGMA user_version.
 * Migration 1 derives each resource table from its description; later migrations are written
 * out as explicit statements so that a database's history never changes under it.
 */
import { RESOURCES } from '../resources/index.js';
import type { FieldDef, ResourceDef } from '../resources/types.js';

/** The SQL column name(s) for a field; date_or_datetime keeps a flag beside the instant. */
export function columnsOf(f: FieldDef): string[] {
  if (f.computed || f.name === 'uuid' || f.name === 'created_at' || f.name === 'updated_at') return [];
  if (f.kind === 'date_or_datetime') return [f.name, `${f.name}_is_date`];
  return [f.name];
}

/**
 * The column that keeps a fuzzy-filtered field case-folded (and, for a postcode, without white
 * space), so that SQLite matches substrings with its own instr() rather than a function per row.
 */
export function foldColumnOf(f: FieldDef): string | undefined {
  return f.filter === 'fuzzy' || f.filter === 'postcode' ? `${f.name}_fold` : undefined;
}

function columnSql(f: FieldDef): string[] {
  const q = `"${f.name}"`;
  switch (f.kind) {
    case 'text': {
      const check = f.max !== undefined ? ` CHECK (length(${q}) <= ${f.max})` : '';
      const fold = foldColumnOf(f);
      return [`${q} TEXT${f.nullable ? '' : ' NOT NULL'}${check}`, ...(fold ? [`"${fold}" TEXT`] : [])];
    }
    case 'int': {
      const range = f.min !== undefined && f.max !== undefined ? ` CHECK (${q} BETWEEN ${f.min} AND ${f.max})` : '';
      return [`${q} INTEGER NOT NULL DEFAULT ${Number(f.default ?? 0)}${range}`];
    }
    case 'bool':
      return [`${q} INTEGER NOT NULL DEFAULT ${f.default ? 1 : 0} CHECK (${q} IN (0, 1))`];
    case 'code':
      return [`${q} INTEGER NOT NULL CHECK (${q} IN (${Object.keys(f.codes ?? {}).join(', ')}))`];
    case 'date_or_datetime':
      return [`${q} INTEGER`, `"${f.name}_is_date" INTEGER NOT NULL DEFAULT 0 CHECK ("${f.name}_is_date" IN (0, 1))`];
    case 'datetime':
      return [`${q} INTEGER NOT NULL`];
  }
}

function tableSql(r: ResourceDef): string[] {
  const cols = [
    'id INTEGER PRIMARY KEY',
    'account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE',
    'uuid TEXT NOT NULL UNIQUE',
    'created_at INTEGER NOT NULL',
    'updated_at INTEGER NOT NULL',
  ];
  for (const f of r.fields) if (columnsOf(f).length) cols.push(...columnSql(f));
  for (const l of r.linkOnCreate ?? []) cols.push(`${l.column} INTEGER REFERENCES ${l.target}(id) ON DELETE SET NULL`);
  const rels = r.parents ?? [];
  for (const rel of rels) cols.push(`${rel.column} INTEGER REFERENCES ${rel.target}(id) ON DELETE CASCADE`);
  if (rels.length) cols.push(`CHECK ((${rels.map((x) => `(${x.column} IS NOT NULL)`).join(' + ')}) = 1)`);
  for (const u of r.unique ?? []) cols.push(`UNIQUE (account_id, ${u.join(', ')})`);

  const out = [`CREATE TABLE ${r.table} (\n  ${cols.join(',\n  ')}\n)`];
  out.push(`CREATE INDEX ${r.table}_order ON ${r.table} (account_id, created_at, id)`);
  out.push(`CREATE INDEX ${r.table}_updated ON ${r.table} (account_id, updated_at)`);
  for (const f of r.fields) {
    if (!columnsOf(f).length) continue;
    if (
      f.filter === 'int' ||
      f.filter === 'bool' ||
      f.filter === 'code' ||
      f.filter === 'datetime' ||
      f.filter === 'exact'
    )
      out.push(`CREATE INDEX ${r.table}_${f.name} ON ${r.table} (account_id, "${f.name}")`);
  }
  for (const rel of rels) out.push(`CREATE INDEX ${r.table}_${rel.column} ON ${r.table} (${rel.column})`);
  for (const l of r.linkOnCreate ?? []) out.push(`CREATE INDEX ${r.table}_${l.column} ON ${r.table} (${l.column})`);
  return out;
}

function initial(): string[] {
  const order = ['contacts', 'properties', 'custom-fields', 'notes', 'reminders'];
  const tables = order.map((p) => RESOURCES.find((r) => r.path === p) as ResourceDef);
  return [
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
    ...tables.flatMap(tableSql),
    `CREATE TABLE custom_values (
  id INTEGER PRIMARY KEY,
  field_id INTEGER NOT NULL REFERENCES custom_fields(id) ON DELETE CASCADE,
  property_id INTEGER REFERENCES properties(id) ON DELETE CASCADE,
  contact_id INTEGER REFERENCES contacts(id) ON DELETE CASCADE,
  value TEXT NOT NULL,
  value_fold TEXT NOT NULL,
  CHECK ((property_id IS NULL) <> (contact_id IS NULL)),
  UNIQUE (field_id, property_id),
  UNIQUE (field_id, contact_id)
)`,
    'CREATE INDEX custom_values_property ON custom_values (property_id)',
    'CREATE INDEX custom_values_contact ON custom_values (contact_id)',
  ];
}

/** Migrations in order; index + 1 is the user_version after applying one. */
export const MIGRATIONS: readonly (() => string[])[] = [initial];
