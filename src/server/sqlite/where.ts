/**
 * The WHERE clause of a list, from the conditions core/query.ts parsed out of its query string.
 * Every column comes from the description; every value is bound (pushed onto `params` in the
 * order of the placeholders). Relational subqueries are confined to the account, passed in.
 */
import type { Condition } from '../../core/query.js';
import type { ResourceDef } from '../../resources/types.js';
import { foldColumnOf } from '../columns.js';
import { customValuesCondition } from './custom-values.js';
import { fold } from './fold.js';

/** SQL conditions on the records of `r` aliased `alias`, to be joined with AND. */
export function whereSql(
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
      case 'fuzzy':
        out.push(`instr(${alias}."${foldColumnOf(c.field)}", ?) > 0`);
        params.push(fold(c.value, c.field.filter));
        break;
      case 'range':
        out.push(`${alias}."${c.field.name}" >= ? AND ${alias}."${c.field.name}" < ?`);
        params.push(c.range.start, c.range.end);
        break;
      case 'relation': {
        const t = `r${depth}`;
        params.push(accountId);
        const inner = whereSql(c.target, t, c.conditions, accountId, params, depth + 1);
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
