/**
 * A resource's rows and its records as the API shows them, every column from the description
 * (../columns.ts): what a record is read with, a row made a record, a body made column values.
 */
import { fieldKind } from '../../core/kinds.js';
import type { ValidBody } from '../../core/validate.js';
import { childrenOf, linksOf } from '../../resources/index.js';
import type { FieldDef, ResourceDef } from '../../resources/types.js';
import { columnsOf, fold, foldColumnOf } from '../columns.js';
import type { ApiRecord } from '../store.js';
import type { Row } from './steps.js';

/** The column beside a date_or_datetime field's instant that says it is a date (all day). */
export function dateFlagColumn(f: FieldDef): string {
  return columnsOf(f)[1] as string;
}

/** A live count of a child resource's records, as a column expression of the parent's row. */
function countSql(r: ResourceDef, f: FieldDef, alias: string): string | undefined {
  const count = f.computed && 'count' in f.computed ? f.computed.count : undefined;
  const link = count === undefined ? undefined : childrenOf(r).find(({ child }) => child.path === count);
  if (!link) return undefined;
  return `(SELECT COUNT(*) FROM ${link.child.table} c WHERE c.${link.relation.column} = ${alias}.id) AS "${f.name}"`;
}

/**
 * The columns a record of `r` is read with, from the table aliased `alias`: its fields, its
 * internal id as `_id`, the ids of its linked records and parents as `_link_<name>`, and its
 * live counts.
 */
export function selectList(r: ResourceDef, alias: string): string {
  const cols = [`${alias}.id AS _id`, `${alias}.uuid`, `${alias}.created_at`, `${alias}.updated_at`];
  for (const f of r.fields) for (const c of columnsOf(f)) cols.push(`${alias}."${c}"`);
  for (const l of linksOf(r)) cols.push(`${alias}.${l.column} AS _link_${l.name}`);
  for (const f of r.fields) {
    const count = countSql(r, f, alias);
    if (count) cols.push(count);
  }
  return cols.join(', ');
}

export function toRecord(r: ResourceDef, row: Row): ApiRecord {
  const rec: ApiRecord = {};
  for (const f of r.fields)
    rec[f.name] = f.computed ? computedValue(f.computed, row, row[f.name]) : fieldKind(f).load(f, row);
  return rec;
}

/**
 * A computed field as the store answers it: a count, zero, a link (null: the API core makes it
 * absolute), or whether another field has a value.
 */
function computedValue(c: NonNullable<FieldDef['computed']>, row: Row, counted: unknown): unknown {
  if ('zero' in c) return 0;
  if ('set' in c) return row[c.set] !== null && row[c.set] !== undefined;
  return 'link' in c ? null : (counted ?? 0);
}

/** Column assignments for a body's values (fold columns are added last, by withFolds). */
export function columnValues(r: ResourceDef, values: ValidBody['values']): Row {
  const out: Row = {};
  for (const [name, v] of Object.entries(values)) {
    const f = r.fields.find((x) => x.name === name) as FieldDef;
    Object.assign(out, fieldKind(f).store(f, v));
  }
  return out;
}

/** Adds the fold columns of the text columns being written. */
export function withFolds(r: ResourceDef, cols: Row): void {
  for (const f of r.fields) {
    const col = foldColumnOf(f);
    if (col && f.name in cols)
      cols[col] = typeof cols[f.name] === 'string' ? fold(cols[f.name] as string, f.filter) : null;
  }
}
