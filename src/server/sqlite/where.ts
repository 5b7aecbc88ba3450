/**
 * The WHERE clause of a list, from the conditions core/query.ts parsed out of its query string.
 * Every column comes from the description; every value is bound (pushed onto `params` in the
 * order of the placeholders). Relational subqueries are confined to the account, passed in.
 */
import type { Condition } from '../../core/query.js';
import type { ResourceDef } from '../../resources/types.js';
import { foldColumnOf } from '../columns.js';
import { TRIGRAM_ACCOUNT_SPAN } from '../schema.js';
import { customValuesCondition } from './custom-values.js';
import { fold } from './fold.js';
import type { Sql } from './statements.js';

/**
 * A fuzzy condition the trigram index can answer: the fold column, and the MATCH value (the folded
 * text as one quoted phrase: a substring). Undefined below three characters, or without an index.
 */
export function trigramMatch(
  sql: Pick<Sql, 'trigram'>,
  r: ResourceDef,
  c: Condition,
): { column: string; match: string } | undefined {
  if (c.kind !== 'fuzzy') return undefined;
  const column = foldColumnOf(c.field) as string;
  const needle = fold(c.value, c.field.filter);
  if ([...needle].length < 3 || !sql.trigram.has(`${r.table}.${column}`)) return undefined;
  return { column, match: `"${needle.replace(/"/g, '""')}"` };
}

/** The keys of one account's rows in a trigram index (schema.ts): the first, and the last. */
export function trigramKeys(accountId: number): [number, number] {
  const base = accountId * TRIGRAM_ACCOUNT_SPAN;
  return [base, base + TRIGRAM_ACCOUNT_SPAN - 1];
}

/**
 * SQL conditions on the records of `r` aliased `alias`, to be joined with AND. A fuzzy condition
 * reads the row's fold column (the row is read anyway, and listRecords drives a list from the
 * trigram index itself); within a relational subquery, which selects every matching record, it
 * looks its matches up in the trigram index when it can.
 */
export function whereSql(
  sql: Pick<Sql, 'trigram'>,
  r: ResourceDef,
  alias: string,
  conditions: readonly Condition[],
  accountId: number,
  params: unknown[],
  depth = 0,
): string[] {
  const out: string[] = [];
  for (const c of conditions) {
    switch (c.kind) {
      case 'in':
      case 'int':
        out.push(`${alias}."${c.field.name}" IN (${c.values.map(() => '?').join(', ')})`);
        params.push(...c.values);
        break;
      case 'bool':
        out.push(`${alias}."${c.field.name}" = ?`);
        params.push(c.value ? 1 : 0);
        break;
      case 'fuzzy': {
        // Three characters or more, a subquery's matches come from the trigram index; shorter, or on the row itself, from the fold column.
        const indexed = depth > 0 ? trigramMatch(sql, r, c) : undefined;
        if (indexed) {
          const [first, last] = trigramKeys(accountId);
          out.push(
            `${alias}.id IN (SELECT rowid - ? FROM ${r.table}_fts WHERE "${indexed.column}" MATCH ? AND rowid BETWEEN ? AND ?)`,
          );
          params.push(first, indexed.match, first, last);
        } else {
          out.push(`instr(${alias}."${foldColumnOf(c.field)}", ?) > 0`);
          params.push(fold(c.value, c.field.filter));
        }
        break;
      }
      case 'range':
        out.push(`${alias}."${c.field.name}" >= ? AND ${alias}."${c.field.name}" < ?`);
        params.push(c.range.start, c.range.end);
        break;
      case 'relation': {
        const t = `r${depth}`;
        params.push(accountId);
        const inner = whereSql(sql, c.target, t, c.conditions, accountId, params, depth + 1);
        out.push(
          `${alias}.${c.relation.column} IN (SELECT ${t}.id FROM ${c.target.table} ${t} WHERE ${t}.account_id = ?${inner
            .map((s) => ` AND ${s}`)
            .join('')})`,
        );
        break;
      }
      case 'custom':
        out.push(customValuesCondition(r, alias, c, accountId, params));
        break;
    }
  }
  return out;
}
