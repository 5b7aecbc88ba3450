/**
 * The WHERE clause of a list, from the conditions core/query.ts parsed: columns from the
 * description, every value bound (pushed onto `params` in placeholder order), relational
 * subqueries confined to the account. A fuzzy condition is the dialect's.
 */
import type { Condition } from '../../core/query.js';
import { lastUuidFrom, uuidFrom } from '../../core/kinds.js';
import { CUSTOM_FIELD_KEYS, customFields } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import { fold, foldColumnOf } from '../columns.js';
import type { Dialect } from './steps.js';

/** SQL conditions on the records of `r` aliased `alias`, to be joined with AND. */
export function whereSql(
  d: Dialect,
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
      case 'bool': {
        // A computed flag (a reminder's done) is whether its field has a value.
        const set = c.field.computed && 'set' in c.field.computed ? c.field.computed.set : undefined;
        if (set !== undefined) out.push(`${alias}."${set}" IS ${c.value ? 'NOT ' : ''}NULL`);
        else {
          out.push(`${alias}."${c.field.name}" = ?`);
          params.push(c.value ? 1 : 0);
        }
        break;
      }
      case 'fuzzy':
        out.push(
          d.indexed?.(r, alias, c, accountId, params, depth) ??
            d.contains(`${alias}."${foldColumnOf(c.field)}"`, fold(c.value, c.field.filter), params),
        );
        break;
      case 'same':
        out.push(`(${c.values.map(() => d.equalsNoCase(`${alias}."${c.field.name}"`)).join(' OR ')})`);
        params.push(...c.values);
        break;
      case 'prefix':
        // The range of uuids that begin with it (the uuid's unique index reads that range alone), and
        // LIKE without wildcards in the value: a prefix is checked (hex digits and hyphens) by its kind.
        out.push(`${alias}."${c.field.name}" BETWEEN ? AND ? AND ${alias}."${c.field.name}" LIKE ?`);
        params.push(uuidFrom(c.value), lastUuidFrom(c.value), `${c.value}%`);
        break;
      case 'range':
        out.push(`${alias}."${c.field.name}" >= ? AND ${alias}."${c.field.name}" < ?`);
        params.push(c.range.start, c.range.end);
        break;
      case 'relation': {
        const t = `r${depth}`;
        params.push(accountId);
        const inner = whereSql(d, c.target, t, c.conditions, accountId, params, depth + 1).map((s) => ` AND ${s}`);
        const rel = c.relation;
        if ('table' in rel) {
          // A set: the records holding one of the target's records that match.
          const j = `j${depth}`;
          out.push(
            `${alias}.id IN (SELECT ${j}.${rel.column} FROM ${rel.table} ${j} JOIN ${c.target.table} ${t} ON ${t}.id = ${j}.${rel.targetColumn} WHERE ${t}.account_id = ?${inner.join('')})`,
          );
        } else {
          const sub = `SELECT ${t}.id FROM ${c.target.table} ${t} WHERE ${t}.account_id = ?${inner.join('')}`;
          out.push(`${alias}.${rel.column} IN (${sub})`);
        }
        break;
      }
      case 'custom': {
        // A custom_fields[...] filter: the records with a value of the fields named.
        const parts = ['cf.account_id = ?', `cf.${CUSTOM_FIELD_KEYS.entity} = ?`];
        params.push(accountId, c.entity);
        if (c.name !== undefined) {
          parts.push(`cf.${CUSTOM_FIELD_KEYS.name} = ?`);
          params.push(c.name);
        }
        if (c.uuids !== undefined) {
          parts.push(`cf.uuid IN (${c.uuids.map(() => '?').join(', ')})`);
          params.push(...c.uuids);
        }
        if (c.value !== undefined) parts.push(d.contains('cv.value_fold', fold(c.value), params));
        out.push(
          `${alias}.id IN (SELECT cv.${r.customValues?.column} FROM custom_values cv JOIN ${customFields.table} cf ON cf.id = cv.field_id WHERE ${parts.join(' AND ')})`,
        );
        break;
      }
    }
  }
  return out;
}
