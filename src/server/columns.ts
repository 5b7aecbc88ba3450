/**
 * The stored columns a description implies, for any store: a field's own columns (its kind says
 * which: a date_or_datetime keeps a flag beside its instant), the folded copy a fuzzy filter
 * matches against, and every column of a resource's table. The migrations must make exactly these
 * (test/server/migrations.test.ts); the SQL that reads and writes them uses these names.
 */
import { FILTER_KINDS, fieldKind, foldText } from '../core/kinds.js';
import { linksOf } from '../resources/index.js';
import type { FieldDef, FilterKind, ResourceDef } from '../resources/types.js';

interface DescribedColumn {
  readonly name: string;
  readonly type: 'TEXT' | 'INTEGER';
  readonly notNull: boolean;
}

/** Columns every resource table has besides its fields'. */
const COMMON: readonly DescribedColumn[] = [
  { name: 'id', type: 'INTEGER', notNull: false },
  { name: 'account_id', type: 'INTEGER', notNull: true },
  { name: 'uuid', type: 'TEXT', notNull: true },
  { name: 'created_at', type: 'INTEGER', notNull: true },
  { name: 'updated_at', type: 'INTEGER', notNull: true },
];

const isCommon = (f: FieldDef) => COMMON.some((c) => c.name === f.name);

/** The column name(s) of a field; none for the common ones and for computed values. */
export function columnsOf(f: FieldDef): string[] {
  if (f.computed || isCommon(f)) return [];
  return fieldKind(f)
    .columns(f)
    .map((c) => c.name);
}

/** The column keeping a fuzzy-filtered field folded (case, and spaces for a postcode). */
export function foldColumnOf(f: FieldDef): string | undefined {
  return f.filter && FILTER_KINDS[f.filter].fold ? `${f.name}_fold` : undefined;
}

/** PostgreSQL's column of a fold column's search keys (search-keys.ts), from migration 5 on. */
export function keysColumnOf(foldColumn: string): string {
  return `${foldColumn.slice(0, -'_fold'.length)}_keys`;
}

/**
 * Case folding for fuzzy filters: what a fold column keeps, what a custom value's value_fold
 * keeps, and what a filter value is compared as; each filter kind says how it folds (kinds.ts:
 * Unicode-aware, unlike SQLite's LIKE and lower(); for a postcode, white space dropped too).
 */
export function fold(value: string, filter?: FilterKind): string {
  const kindFold = filter && FILTER_KINDS[filter].fold;
  return kindFold ? kindFold(value) : foldText(value);
}

/** Every column of a resource's table, as its description implies them. */
export function describedColumns(r: ResourceDef): DescribedColumn[] {
  const out = [...COMMON];
  for (const f of r.fields) {
    if (f.computed || isCommon(f)) continue;
    out.push(...fieldKind(f).columns(f));
    const fold = foldColumnOf(f);
    if (fold) out.push({ name: fold, type: 'TEXT', notNull: false });
  }
  for (const l of linksOf(r)) out.push({ name: l.column, type: 'INTEGER', notNull: false });
  return out;
}
